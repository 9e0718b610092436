"""Blind check 15's wrong statement 5 and noise in the local summary (issue 28, results15), each
on a session built here by shape: ``rg``/``grep`` exit 1 with no output is "no match" whatever
the shell wrapper (``bash -lc``) or the result format (Codex JSON with ``metadata.exit_code``,
Codex exec text, Claude Code Bash) says."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.schema import content_type, user_text

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 5. rg exit 1 with no output is no failure under any wrapper and in any format --------------

_CODEX_JSON = json.dumps({"output": "", "metadata": {"exit_code": 1, "duration_seconds": 0.0}})


def _no_match_session(name: str, args: dict[str, object], result: str) -> str:
    s = SessionBuilder()
    s.user("replace every placeholder of the constitution, then check none is left")
    s.call(name, {"command": ["bash", "-lc", "cat docs/rules.md"]}, "# Rules\n[X] one\n")
    s.call(name, args, result)
    s.call(name, {"command": ["bash", "-lc", "nl -ba docs/rules.md"]}, "1 # Rules\n2 one\n")
    s.say("Verified the rules have no placeholders left.")
    return summarize_transcript(s.messages)


def test_rg_exit_one_under_a_shell_wrapper_is_no_match_in_every_format() -> None:
    cases: list[tuple[str, dict[str, object], str]] = [
        ("shell", {"command": ["bash", "-lc", "rg '\\[' docs/rules.md"]}, _CODEX_JSON),
        ("shell", {"command": ["bash", "-lc", "rg '\\[' docs/rules.md"]}, "Exit code: 1\n"),
        (
            "exec_command",
            {"cmd": "bash -lc \"grep -n 'TODO' docs/rules.md\""},
            "Process exited with code 1\nOutput:\n",
        ),
        ("Bash", {"command": "sh -c 'rg \"\\[[A-Z_]+\\]\" docs/rules.md'"}, "Exit code 1"),
        ("Bash", {"command": "cd docs && rg -n '\\[' rules.md"}, "Exit code 1"),
    ]
    for name, args, result in cases:
        text = _no_match_session(name, args, result)
        errors = section(text, 4)
        assert "failed" not in errors and "Fixed:" not in errors, (args, errors)
        assert "Unresolved failure" not in section(text, 7), (args, section(text, 7))


def test_rg_exit_one_with_an_error_under_a_wrapper_stays_a_failure() -> None:
    error = json.dumps(
        {
            "output": "rg: docs/rules.md: No such file or directory (os error 2)\n",
            "metadata": {"exit_code": 2, "duration_seconds": 0.0},
        }
    )
    text = _no_match_session("shell", {"command": ["bash", "-lc", "rg '\\[' docs/rules.md"]}, error)
    assert "failed (exit code 2)" in section(text, 4), section(text, 4)


# -- noise: a long message's head is cut at a word's end, never inside a word -------------------


def test_a_constraint_of_a_long_message_is_never_cut_inside_a_word() -> None:
    rule = "You must analyze the project files, technology stack, and patterns, then write docs."
    for shift in range(0, 60, 7):  # the 600-character cut falls at many places of the rule
        lead = "Write the documentation of this codebase for the agents. " * 12
        lead = lead[: lead.rfind(" ", 0, 560 + shift)] + " " * (1 + shift % 5)
        text = lead + rule + "\n"
        text += "Step: describe one module of the project in plain words.\n" * 60
        s = SessionBuilder()
        s.user(text)
        s.say("I will write the docs.")
        intent = section(summarize_transcript(s.messages), 1)
        lines = [x for x in intent.splitlines() if x.strip().startswith("- You must")]
        for line in lines:
            words = line.strip()[2:].rstrip("\u2026").split()
            assert all(w in rule.split() for w in words), (shift, line)


# -- noise: a function called in the earlier summary's code is no file; hash parts no facts -----


def test_a_function_called_in_an_earlier_summary_s_code_is_not_a_file() -> None:
    from compactor.schema import CONTENT_TYPE_KEY

    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n   Build the login page.\n"
        "2. Key Technical Concepts:\n   - React\n3. Files and Code Sections:\n"
        "   - src/auth/ResetDialog.tsx\n     ```tsx\n     const submit = (e) => {\n"
        "       e.preventDefault(); console.log('reset:', email); json.load(x); close(); };\n"
        "     ```\n   - src/pages/LoginPage.tsx\n   - build.log (the last build's output)\n"
        "4. Errors and fixes:\n   - none\n"
    )
    s = SessionBuilder()
    s.user(earlier, **{CONTENT_TYPE_KEY: "summary"})
    s.user("Now make the text field taller.")
    s.say("Done.")
    listed = section(summarize_transcript(s.messages), 3)
    line = next(x for x in listed.split("\n   - ") if x.startswith("Every file"))
    assert "src/auth/ResetDialog.tsx" in line and "build.log" in line, line
    assert "console.log" not in line and "json.load" not in line, line


def test_a_hash_part_of_a_printed_file_name_is_no_fact_of_its_own() -> None:
    build = (
        "vite v5.4.0 building for production...\n"
        "dist/index.html                          0.71 kB\n"
        "dist/assets/form-vendor-C2sCgOtr.js     74.10 kB\n"
        "dist/assets/react-vendor-DsDned5s.js   141.32 kB\n"
        "built in 3.46s\n"
    )
    s = SessionBuilder()
    s.user("fix the form layout and rebuild")
    s.call("Bash", {"command": "pnpm build"}, build)
    s.say("Built. Now the lint.")
    s.call("Bash", {"command": "pnpm lint"}, "ok\n")
    current = section(summarize_transcript(s.messages), 8)
    assert "form-vendor-C2sCgOtr.js" in current, current
    assert "C2sCgOtr`," not in current and "C2sCgOtr, " not in current, current
    assert "`DsDned5s`" not in current, current


# -- noise: "Worked around by" only a call that does the failed work another way ---------------

_CRASH = "Exit code 1\nTraceback (most recent call last):\nRuntimeError: CUDA out of memory\n"


def _after_crash(said: str, command: str, out: str) -> str:
    s = SessionBuilder()
    s.user("train the model on the full dataset")
    s.call("Bash", {"command": "python train.py --config conf/config.yaml"}, _CRASH)
    s.say(said)
    s.call("Bash", {"command": command}, out)
    return section(summarize_transcript(s.messages), 4)


def test_a_look_or_another_python_snippet_is_no_workaround_of_a_failed_run() -> None:
    look = _after_crash("Let me try to see what is running.", "ps aux | grep -v grep", "u 1 x\n")
    assert "Worked around by" not in look, look
    snippet = _after_crash(
        "Let me check the config.",
        "python -c \"import yaml; print(yaml.safe_load(open('conf/config.yaml')))\"",
        "{'batch': 64}\n",
    )
    assert "Worked around by" not in snippet, snippet


def test_the_same_script_run_another_way_is_still_a_workaround() -> None:
    errors = _after_crash(
        "Out of memory: running it with a smaller batch.",
        "OMP_NUM_THREADS=2 python3 train.py --config conf/small.yaml",
        "epoch 1 loss 0.3\n",
    )
    assert "Worked around by" in errors or "Fixed" in errors, errors


# -- noise: a command template is quoted as the user's words, its pages once and cut ------------

_TEMPLATE = (
    "\n## User Input\n\n```text\n{typed}\n```\n\nYou **MUST** consider the user input before "
    "proceeding (if not empty).\n\n## Outline\n\n"
    + "".join(
        f"{i}. Run step {i} of the workflow: check the plan files, mark finished tasks with "
        f"[X] and STOP when validation step {i} reports an incomplete checklist.\n"
        for i in range(1, 60)
    )
    + "\nNote: this command assumes a complete task breakdown exists in tasks.md.\n"
)


def _codex_template_session(path: Path) -> Path:
    meta: dict[str, object] = {"id": "0195f0aa-1111-7222-8333-944455556688", "cwd": "/home/dev/app",
            "originator": "codex_cli_rs", "cli_version": "0.48.0", "source": "cli"}  # fmt: skip
    items: list[tuple[str, dict[str, object]]] = [("session_meta", meta)]

    def user(text: str) -> None:
        content = [{"type": "input_text", "text": text}]
        items.append(("response_item", {"type": "message", "role": "user", "content": content}))

    def say(text: str) -> None:
        content = [{"type": "output_text", "text": text}]
        items.append(
            ("response_item", {"type": "message", "role": "assistant", "content": content})
        )

    user(_TEMPLATE.format(typed=""))
    for i in range(4):
        call = {"command": ["bash", "-lc", f"cat src/part_{i}.ts"]}
        items.append(("response_item", {"type": "function_call", "name": "shell",
                      "arguments": json.dumps(call), "call_id": f"c{i}"}))  # fmt: skip
        out = json.dumps({"output": "x\n" * 400, "metadata": {"exit_code": 0}})
        items.append(
            ("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": out})
        )
    say("Done: the tasks are implemented. Shall I also enlarge the overlay?")
    user(_TEMPLATE.format(typed="yes, and make the overlay window 800 by 150"))
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-03-02T10:00:{n:02d}.000Z", "type": k, "payload": p})
            + "\n"
            for n, (k, p) in enumerate(items, 1)
        )
    )
    return path


def test_a_command_template_is_quoted_as_the_user_s_words_and_listed_cut(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    src = _codex_template_session(tmp_path / "cx.jsonl")
    result = CliRunner().invoke(
        app, ["run", str(src), "--force", "--model", "local", "-o", str(out), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    t = read_transcript(str(out), out.read_bytes())
    text = next(user_text(m) for m in t.messages if content_type(m) == "summary")
    assert "validation step 40" not in text, text  # the template's pages: never in full
    request = section(text, 1)
    assert '"yes, and make the overlay window 800 by 150" (typed into a command template' in (
        request
    ), request
    assert "Run step 3 of" not in request, request
    assert "(typed into a command template" in section(text, 9), section(text, 9)
    block = text.split("<all_user_messages>")[1].split("</all_user_messages>")[0]
    assert block.count("yes, and make the overlay window 800 by 150") == 1, block
    assert block.count("characters of a command template truncated") == 2, block


def test_a_restart_whose_job_then_failed_is_no_workaround() -> None:
    s = SessionBuilder()
    s.user("train the model on the full dataset")
    s.call(
        "Bash",
        {"command": "python train.py --config conf/config.yaml", "run_in_background": True},
        "Command running in background with ID: bqs1z89mh",
    )
    s.say("Training started; checking on it.")
    s.call(
        "Bash",
        {"command": "sleep 60 && tail -5 /tmp/tasks/bqs1z89mh.output"},
        "Exit code 137\n/commands/python: line 47: 163097 Killed\n",
    )
    s.say("The process was killed (out of memory). Let me try with fewer workers.")
    s.call(
        "Bash",
        {"command": "python train.py --workers 2", "run_in_background": True},
        "Command running in background with ID: bxqaitwtg",
    )
    s.user(
        "<task-notification><task-id>bxqaitwtg</task-id><status>failed</status>"
        "<summary>Background command 'train' failed with exit code 1</summary>"
        "</task-notification>"
    )
    errors = section(summarize_transcript(s.messages), 4)
    assert "tail -5" in errors and "Worked around by" not in errors, errors


def test_words_whose_other_way_was_only_a_read_do_not_set_the_failure_aside() -> None:
    errors = _after_crash(
        "Actually, the loader stores the raw audio instead. Let me read it.",
        "cat src/dataset.py",
        "class Dataset: ...\n",
    )
    assert "Worked around by" not in errors and "Done without it" not in errors, errors
