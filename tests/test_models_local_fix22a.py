"""Issue 28 after blind check 22 (fix22a): a queued background-task registration is no user
message; the output of the user's own ``!`` shell commands reaches the summary's state.

Sessions are synthetic, built here in Claude Code 2.x record shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.schema import AgenticMessage

from .cc_session import Session, queue_record
from .fake_server_cli import invoke
from .test_models_local_session import section

PROMPT = "start the app so I can try it"


_queue = queue_record


def _registration(task: str, call: str) -> str:
    """What Claude Code 2.1.4x enqueues when a Bash call goes to the background."""
    body = {"task_id": task, "tool_use_id": call, "description": "Run dev", "task_type": "x"}
    return json.dumps(body, separators=(",", ":"))


def _background(s: Session, task: str) -> None:
    call = f"toolu_bg{task}"
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": call,
                "name": "Bash",
                "input": {"command": "npm run dev", "run_in_background": True},
            }
        ]
    )
    s.records.append(_queue("enqueue", _registration(task, call)))
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": call,
                "content": f"Command running in background with ID: {task}. Output is being "
                f"written to: /tmp/tasks/{task}.output",
            }
        ]
    )


def _registered_session() -> Session:
    s = Session()
    s.user("Add a login page to the app.")
    s.bash("npm test", "Tests: 9 passed, 9 total")
    s.assistant([{"type": "text", "text": "The login page is in src/login.tsx; 9 tests pass."}])
    s.user(PROMPT)
    _background(s, "c41a9e0")
    s.bash("sleep 3; cat /tmp/tasks/c41a9e0.output", "VITE ready on http://localhost:5174/")
    s.assistant([{"type": "text", "text": "The app runs at http://localhost:5174/ (background)."}])
    s.records.append(_queue("remove"))  # the registration leaves the queue
    return s


def _read(s: Session, tmp_path: Path) -> list[Any]:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    return list(read_transcript(str(src), src.read_bytes()).messages)


def _user_texts(messages: list[Any]) -> list[str]:
    return [
        b.text or ""
        for m in messages
        if isinstance(m, AgenticMessage) and m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]


def test_a_queued_task_registration_is_no_user_message(tmp_path: Path) -> None:
    """cc-citedml (W1): Claude Code 2.1.49 enqueued ``{"task_id":…,"tool_use_id":…}`` when a
    Bash call went to the background and removed it later; the reader took it for a prompt the
    user typed mid-turn, and the summary made the JSON the current, unanswered request."""
    messages = _read(_registered_session(), tmp_path)
    texts = _user_texts(messages)
    assert not any("task_id" in t for t in texts), texts
    summary = summarize_transcript(messages)
    assert "task_id" not in section(summary, 1) and PROMPT in section(summary, 1), summary
    assert "not answered" not in section(summary, 7).lower(), section(summary, 7)
    assert "c41a9e0" in section(summary, 7), section(summary, 7)  # the job is still a fact


def test_a_queued_json_object_is_never_a_prompt_but_prose_is(tmp_path: Path) -> None:
    """By shape: any enqueued content that is one JSON object (no prose) is not the user's;
    a prompt that merely holds braces still is."""
    s = _registered_session()
    typed = 'also print {"debug": true} in the log'
    s.records.append(_queue("enqueue", '{"kind": "anything", "n": 3}'))
    s.records.append(_queue("enqueue", typed))
    s.bash("ls", "src")
    s.records.append(_queue("remove"))
    s.records.append(_queue("remove"))
    s.assistant([{"type": "text", "text": "Debug output is on."}])
    texts = _user_texts(_read(s, tmp_path))
    assert typed in texts and not any("anything" in t for t in texts), texts


def _shell(s: Session, command: str, stdout: str, stderr: str) -> None:
    """A ``!`` command the user ran in Claude Code's shell mode, and its echo."""
    s.user(f"<bash-input>{command}</bash-input>")
    s.user(f"<bash-stdout>{stdout}</bash-stdout><bash-stderr>{stderr}</bash-stderr>")


_MISSING = "error: path '/nix/store/abc-source/hosts/alpha' does not exist"


def _checked_session(last_ok: bool) -> Session:
    s = Session()
    s.user("Split the config into hosts/ and lib/ and keep the build green.")
    _shell(s, "make check", "", "error: config.nix is not part of a project\n")
    s.bash("mkdir -p hosts lib && git mv base.nix lib/", "")
    s.bash("make check", "all checks passed")
    s.assistant([{"type": "text", "text": "Done: hosts/ and lib/ are split; `make check` passes."}])
    s.user("Does hosts/default.nix need the inputs passed in?")
    s.assistant([{"type": "text", "text": "Yes: pass inputs explicitly, as the import does."}])
    if last_ok:
        _shell(s, "make check", "all checks passed", "")
    else:
        _shell(s, "make check", "", f"warning: tree is dirty\nchecking 'alpha'...\n{_MISSING}\n")
    return s


def test_a_failing_user_command_after_the_last_answer_is_the_open_point(tmp_path: Path) -> None:
    """cc-nixsys (W2): the session ended with the user's own ``!nix flake check`` failing after
    the last answer; its output was dropped and the summary said "the last request was
    answered; nothing is pending", and merged two runs with different outputs as "sent 2
    times"."""
    summary = summarize_transcript(_read(_checked_session(last_ok=False), tmp_path))
    pending, state, step = section(summary, 7), section(summary, 8), section(summary, 9)
    assert "nothing is pending" not in pending + step, pending + step
    assert "make check" in pending and "alpha' does not exist" in pending, pending
    assert "it failed" in state, state
    assert "make check" in step and "failure" in step and "alpha" in step, step
    errors = section(summary, 4)  # what the user saw fail, apart from the agent's calls
    assert "`make check` failed" in errors and "not part of a project" in errors, errors
    everyone = section(summary, 6)
    assert "sent 2 times" not in everyone, everyone
    assert "not part of a project" in everyone and "alpha' does not exist" in everyone, everyone


def test_a_user_command_that_succeeded_after_the_answer_is_a_fact_not_work(tmp_path: Path) -> None:
    summary = summarize_transcript(_read(_checked_session(last_ok=True), tmp_path))
    pending, step = section(summary, 7), section(summary, 9)
    assert "it failed" not in pending + step and "failure" not in step, pending + step
    assert "nothing is pending" in pending + step, pending + step
    assert "all checks passed" in section(summary, 6), section(summary, 6)


def _cli_summary(s: Session, tmp_path: Path) -> str:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    out = tmp_path / "out.jsonl"
    args = ["run", "--model", "local", "--force", "--no-cache", str(src), "-o", str(out)]
    proc = invoke(args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    return str(
        next(
            r["message"]["content"]
            for r in map(json.loads, out.read_text("utf-8").splitlines())
            if r.get("isCompactSummary")
        )
    )


def test_each_run_of_a_user_command_is_listed_with_its_own_output(tmp_path: Path) -> None:
    """cc-nixsys (N5): section 6 (which the finalizer fills from the transcript) listed the
    user's two ``!nix flake check`` runs as one message "(sent 2 times)", with no output; the
    runs failed for different reasons. A command with its output in the same record too."""
    s = _checked_session(last_ok=False)
    s.user("<bash-input>git status</bash-input><bash-stdout>nothing to commit</bash-stdout>")
    summary = _cli_summary(s, tmp_path)
    everyone = summary.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert "sent 2 times" not in everyone, everyone
    first, second = everyone.index("not part of a project"), everyone.index("alpha' does not")
    assert first < second and everyone.count("`make check`") == 2, everyone
    assert "`git status` themselves; it printed: nothing to commit" in everyone, everyone
    assert "it failed" in summary.split("7. ", 1)[1], summary
