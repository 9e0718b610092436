"""Blind check 15, Codex sessions (issue 28, rows 610-619): a command that failed in one
directory and later succeeded in another is not fixed (the first place is unchanged); files
calls changed before a Codex ``compacted`` record were changed by a call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .fake_server_cli import invoke
from .planted_session import SessionBuilder
from .test_models_local_session import section

_NOT_A_REPO = (
    "Exit code: 128\nWall time: 0 seconds\nOutput:\n"
    "fatal: not a git repository (or any of the parent directories): .git\n"
)
_STATUS = "Exit code: 0\nWall time: 0 seconds\nOutput:\n## main...origin/main\n M docs/plan.md\n"


def _status_session(first: dict[str, str], later: dict[str, str]) -> str:
    s = SessionBuilder()
    s.user("commit the docs")
    s.call("shell_command", {"command": "git status -sb", **first}, _NOT_A_REPO, error=True)
    s.call("shell_command", {"command": "git status -sb", **later}, _STATUS)
    s.say("The workspace root is not a git repository; the app below it is. Commit there?")
    return section(summarize_transcript(s.messages), 4)


def test_a_success_in_another_workdir_does_not_fix_a_failure() -> None:
    """kn-commit: ``git status -sb`` failed (exit 128) with ``workdir`` the workspace root and
    succeeded with ``workdir`` a repository below it; section 4 said "Fixed: a later git
    status -sb succeeded"."""
    errors = _status_session({"workdir": "/w/space"}, {"workdir": "/w/space/app"})
    assert "exit code 128" in errors or "not a git repository" in errors, errors
    assert "Fixed: a later" not in errors, errors


def test_a_leading_cd_elsewhere_does_not_fix_it_either() -> None:
    s = SessionBuilder()
    s.user("commit the docs")
    s.call("Bash", {"command": "cd /w/space && git status -sb"}, _NOT_A_REPO, error=True)
    s.call("Bash", {"command": "cd /w/space/app && git status -sb"}, _STATUS)
    s.say("The app is a repository.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors, errors


def test_the_same_command_in_the_same_workdir_still_fixes_it() -> None:
    errors = _status_session({"workdir": "/w/space"}, {"workdir": "/w/space/"})
    assert "Fixed: a later" in errors, errors
    errors = _status_session({"workdir": "/w/space"}, {})  # later place unknown: as before
    assert "Fixed: a later" in errors, errors


# -- a file an earlier call changed, before the rollout's compacted record -------------------------


def _rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-01-05T19:00:00.000Z", "type": kind, "payload": payload}


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _compacted_rollout() -> bytes:
    """A Codex rollout whose ``apply_patch`` call edited ``docs/RULES.md`` and a shell call read
    ``notes/todo.md`` before its ``compacted`` record (an encrypted compaction: no summary
    text); the user's messages name both and ``spec/never.md``."""
    ask = "update docs/RULES.md and notes/todo.md, then spec/never.md"
    patch = (
        "*** Begin Patch\n*** Update File: docs/RULES.md\n@@\n-old rule\n+new rule\n*** End Patch"
    )
    read = {"command": "sed -n 1,80p notes/todo.md", "workdir": "/w/space"}
    records = [
        _rec("session_meta", {"id": "1a2b3c4d-0000-4000-8000-000000000003", "cwd": "/w/space"}),
        _rec("response_item", _user(ask)),
        _rec(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": patch},
        ),
        _rec(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "c1",
                "output": "Success. Updated the following files:\nM docs/RULES.md",
            },
        ),
        _rec(
            "response_item",
            {
                "type": "function_call",
                "name": "shell_command",
                "call_id": "c2",
                "arguments": json.dumps(read),
            },
        ),
        _rec(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": "Exit code: 0\nOutput:\n- todo one\n",
            },
        ),
        _rec(
            "compacted",
            {
                "message": "",
                "replacement_history": [
                    _user(ask),
                    {"type": "compaction", "encrypted_content": "gAAAAB" + "q" * 400},
                ],
            },
        ),
        _rec("response_item", _user("is everything in place? " + ask)),
        _rec(
            "response_item",
            {"type": "function_call", "name": "shell_command", "call_id": "c3", "arguments": "{}"},
        ),
        _rec("response_item", {"type": "function_call_output", "call_id": "c3", "output": "ok"}),
        _rec(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Yes, both are done."}],
            },
        ),
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_files_changed_before_a_codex_compaction_are_not_named_never_by_a_call(
    tmp_path: Path,
) -> None:
    """kn-commit: ``apply_patch`` edited ``CLAUDE.md`` and ``.agent/README.md`` before the
    ``compacted`` record; section 3 said the user named them "never by a call (they may not
    exist)"."""
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(_compacted_rollout())
    transcript = read_transcript(str(src), src.read_bytes())
    files = section(summarize_transcript(transcript.messages), 3)
    never = next((x for x in files.split("\n   - ") if "never by a call" in x), "")
    assert "spec/never.md" in never, files  # no call named it: still said
    assert "docs/RULES.md" not in never and "notes/todo.md" not in never, files
    before = next(x for x in files.split("\n   - ") if "before the earlier compaction" in x)
    assert "docs/RULES.md" in before and "notes/todo.md" not in before, files
    assert "No file was created, edited or deleted since the earlier compaction." in files, files


# -- CRLF text shows as plain lines ---------------------------------------------------------------


def test_crlf_instructions_are_plain_lines_in_the_summary_and_in_show(tmp_path: Path) -> None:
    """gd-angular: the repository guide injected as ``session_meta.instructions`` had CRLF line
    ends; ``compact show`` printed a literal ``\\x0d`` at every line end of the summary."""
    guide = "Repository guide\r\n\r\n- frontend/ holds main.js\r\n- never commit target/\r\n"
    records = [
        _rec(
            "session_meta",
            {"id": "1a2b3c4d-0000-4000-8000-000000000004", "cwd": "/w/app", "instructions": guide},
        ),
        _rec("response_item", _user("# AGENTS.md instructions for /w/app\n\n" + guide)),
        _rec("response_item", _user("fix the tray icon\r\nit is blank on Windows")),
        _rec(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Fixed:\r\nthe icon path was wrong."}],
            },
        ),
    ]
    for n in range(8):  # enough history to compact
        args = json.dumps({"command": f"type src\\tray{n}.rs", "workdir": "C:\\w\\app"})
        output = "".join(f"{n}: line {i} of the tray source as read\r\n" for i in range(60))
        records[-1:-1] = [
            _rec("response_item", {"type": "function_call", "name": "shell_command",
                                   "call_id": f"t{n}", "arguments": args}),
            _rec("response_item", {"type": "function_call_output", "call_id": f"t{n}",
                                   "output": output}),
        ]  # fmt: skip
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    out = tmp_path / "out.jsonl"
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"}
    ran = invoke(["run", str(src), "--model", "local", "--force", "-o", str(out)], env=env)
    assert ran.returncode == 0, ran.stderr.decode()
    # the summarizer's own text has plain lines (the user's messages and the instruction
    # files the finalizer quotes are kept verbatim, CRLF and all: SPEC §5.2)
    own = summarize_transcript(read_transcript(str(src), src.read_bytes()).messages)
    assert "\r" not in own and "blank on Windows" in own, own
    shown = invoke(["show", str(out)], env=env)
    assert shown.returncode == 0, shown.stderr.decode()
    text = shown.stdout.decode()
    assert "\\x0d" not in text and "\r" not in text, text
    assert "fix the tray icon\nit is blank on Windows" in text, text  # a plain line end


def test_patched_paths_of_a_shell_apply_patch_call_are_read_too() -> None:
    """An older Codex runs ``apply_patch`` through its shell tool: the patch is inside the JSON
    ``arguments``, its headers on escaped lines."""
    from compactor.formats._codex_earlier import earlier_calls
    from compactor.formats._jsonl import parse_lines

    patch = "*** Begin Patch\n*** Add File: docs/NEW.md\n+hi\n*** Update File: src/a.py\n@@\n"
    call = {"type": "function_call", "name": "shell", "call_id": "c1"}
    call["arguments"] = json.dumps({"command": ["apply_patch", patch]})
    raw = json.dumps(_rec("response_item", call)).encode() + b"\n"
    found = earlier_calls(parse_lines("x.jsonl", raw), 1)
    assert found is not None and found["changed"] == ["docs/NEW.md", "src/a.py"], found
