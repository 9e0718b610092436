"""Blind check 34 (fix34b): a user's own slash command is a request, its prompt kept (W4; since
blind check 57 N2 the request is the command as typed and the prompt durable context); a Node
error block is summarised by its error line, never by a bare ``errno: 0,`` property line (W5);
a test run whose failure a trailing ``; echo EXIT:$?`` or ``|| true`` hid is a failure, never
the fix of the one before (N4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.facts import entry_of
from compactor.facts.cmdprompt import COMMAND_NOTE
from compactor.facts.maskedexit import hidden_failure
from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import select_user_messages
from compactor.pipeline.skill_focus import injected_skills, recent_from

from .cc_session import Session
from .codex_rollout import codex_say, codex_summary, codex_user, rec

_PROMPT = (
    "# Save a recovery point\n\nDo these steps:\n\n"
    "1. Write the session status to NOTES_STATUS.md (what was done, what is open).\n"
    '2. Create a git save point: `git add -A`, then `git commit -m "Savepoint: [SHORT TEXT]"`.\n'
    '3. Report the short commit hash and the number of changed files ("Restore with /undo-it").\n'
)


def _command_session(name: str = "save-point", prompt: str = _PROMPT) -> Session:
    s = Session()
    s.user("Add a progress bar to the upload dialog.")
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/src/upload.tsx", "old_string": "a", "new_string": "b"},
        "ok",
    )
    s.say("The progress bar is in place.")
    s.user(
        f"<command-message>{name} is running…</command-message>\n"
        f"<command-name>/{name}</command-name>"
    )
    s.user([{"type": "text", "text": prompt}])
    s.records[-1]["isMeta"] = True
    s.call(
        "Write",
        {"file_path": "/home/dev/board/NOTES_STATUS.md", "content": "# Status\n- bar done\n"},
        "File created successfully at: /home/dev/board/NOTES_STATUS.md",
    )
    tool = {"type": "tool_use", "id": "toolu_last", "name": "Bash"}
    s.assistant([{**tool, "input": {"command": "git add -A && git status --short"}}])
    return s


def _messages(s: Session) -> list:  # type: ignore[type-arg]
    raw = b"\n".join(s.lines()) + b"\n"
    return read_transcript("s.jsonl", raw).messages


def test_a_users_own_slash_command_is_a_request_with_its_prompt() -> None:
    messages = _messages(_command_session())
    text = summarize_transcript(messages)
    assert "(a CLI command)" not in text, text
    assert 'Current request: "/save-point"\n' in text, text
    assert "not the user's words: /save-point (300 characters)" in text, text
    entries = [entry_of(i, m) for i, m in enumerate(messages)]
    skills = injected_skills(entries)  # the System reminder keeps it: the pending step is there
    assert [(n, 'git commit -m "Savepoint: [SHORT TEXT]"' in b) for n, b, _ in skills] == [
        ("/save-point", True)
    ], skills
    assert recent_from(entries) <= skills[0][2], "the current request's prompt is kept verbatim"


@pytest.mark.anyio
async def test_the_user_messages_block_shows_a_users_command_with_its_prompt() -> None:
    kept, _ = await select_user_messages(_messages(_command_session()), 10_000, None, 1_500)
    assert kept[0] == "Add a progress bar to the upload dialog."
    assert kept[1] == "/save-point" + COMMAND_NOTE, kept  # its prompt: durable (57 N2)
    assert "(a CLI command)" not in kept[1]


@pytest.mark.anyio
async def test_a_long_prompt_is_cut_and_a_builtin_command_stays_a_cli_command() -> None:
    long = _PROMPT + "".join(
        f"{n}. Also check item number {n} of the list.\n" for n in range(4, 90)
    )
    kept, _ = await select_user_messages(
        _messages(_command_session(prompt=long)), 10_000, None, 1_500
    )
    assert kept[1] == "/save-point" + COMMAND_NOTE, kept[1]
    s = Session()
    s.user("Port the parser to rust.")
    s.user("<command-name>/cost</command-name>\n<command-message>cost</command-message>")
    s.user("<local-command-stdout>Total cost: $0.10</local-command-stdout>")
    kept, _ = await select_user_messages(_messages(s), 10_000, None, 1_500)
    assert kept == ["Port the parser to rust.", "/cost (a CLI command)"], kept


_BUN_ERROR = """<status>completed</status>

<exit_code>0</exit_code>

<stdout>
Starting the speech server on port 8899...
</stdout>

<stderr>
 41 |   const server = Bun.serve({
 42 |     port: PORT,
             ^
error: Failed to start server. Is port 8899 in use?
 syscall: "listen",
   errno: 0,
    code: "EADDRINUSE"

      at serve (unknown)
      at /home/dev/speech/server.ts:41:18
</stderr>

<timestamp>2026-03-04T10:00:00.000Z</timestamp>
"""
_NODE_ERROR = """node:events:497
      throw er; // Unhandled 'error' event
      ^

Error: listen EADDRINUSE: address already in use :::3000
    at Server.setupListenHandle [as _listen2] (node:net:1817:16)
Emitted 'error' event on Server instance at:
    at emitErrorNT (node:net:1844:8) {
  code: 'EADDRINUSE',
  errno: -98,
  syscall: 'listen',
  address: '::',
  port: 3000
}

Node.js v20.11.0
"""


def test_a_background_servers_error_block_is_shown_by_its_error_line() -> None:
    s = Session()
    s.user("Start the speech server in the background and test it.")
    start = {"command": "bun run server.ts", "run_in_background": True}
    s.assistant([{"type": "tool_use", "id": "toolu_bg", "name": "Bash", "input": start}])
    started = "Command running in background with ID: 5ab7c1"
    s.user([{"type": "tool_result", "tool_use_id": "toolu_bg", "content": started}])
    s.call("BashOutput", {"bash_id": "5ab7c1"}, _BUN_ERROR)
    s.say("The port is taken by another process.")
    text = s.summary()
    assert "errno: 0," not in text, text
    assert (
        "`BashOutput(bash_id=5ab7c1)` → error: Failed to start server. Is port 8899 in use? | "
        'code: "EADDRINUSE"' in text
    ), text
    assert "still running" not in text, text  # it failed to start: nothing runs


def test_a_node_error_objects_property_lines_are_never_what_it_printed() -> None:
    from compactor.models.local_printed import printed

    assert printed(_NODE_ERROR) == (
        2,
        "Error: listen EADDRINUSE: address already in use :::3000 | code: 'EADDRINUSE'",
    )
    assert printed("errno: 0,") is None
    assert printed("Server ready\nport: 8080") == (2, "Server ready | port: 8080")


def _shell(i: int, command: str, code: int, out: str) -> list[dict[str, Any]]:
    args = {"command": ["bash", "-lc", command], "workdir": "/w/lms"}
    call = {"type": "function_call", "name": "shell", "call_id": f"c{i}"}
    call["arguments"] = json.dumps(args)
    body = json.dumps({"output": out, "metadata": {"exit_code": code, "duration_seconds": 1.0}})
    result = {"type": "function_call_output", "call_id": f"c{i}", "output": body}
    return [rec("response_item", call), rec("response_item", result)]


_GO_FAIL = (
    "--- FAIL: TestShelf (0.00s)\n    shelf_test.go:42: want 200, got 500\n"
    "FAIL\nFAIL\tlms/internal/shelf\t0.012s\nFAIL"
)


def test_a_failed_test_run_whose_exit_an_echo_or_true_hid_is_no_fix(tmp_path: Path) -> None:
    run = "go test ./internal/shelf -run TestShelf -v"
    records = [codex_user("Fix the failing shelf handler test.")]
    records += _shell(0, run, 1, _GO_FAIL)
    records += _shell(1, f"{run}; echo EXIT:$?", 0, _GO_FAIL + "\nEXIT:1")
    records += _shell(2, f"{run} 2>&1 || true", 0, _GO_FAIL)
    records.append(codex_say("The shelf test still fails; looking at the handler."))
    text = codex_summary(records, tmp_path, "s34", "/w/lms")
    assert "Fixed:" not in text, text
    assert "echo EXIT:$?` failed: --- FAIL: TestShelf (0.00s) (exit status 1" in text, text
    assert "|| true` failed: --- FAIL: TestShelf (0.00s) (the exit status hidden" in text, text


def test_an_echoed_exit_of_zero_or_a_grep_without_error_is_no_failure() -> None:
    assert hidden_failure("go test ./...; echo EXIT:$?", "ok  \tlms/x\t0.1s\nEXIT:0") == ""
    assert hidden_failure("grep -c foo notes.txt; echo EXIT:$?", "0\nEXIT:1") == ""
    assert hidden_failure("pytest -q || true", "10 passed, 0 failed in 1.2s") == ""
    assert hidden_failure("go test ./...", "FAIL\nEXIT:1") == ""  # its own exit code counts
    said = hidden_failure(
        'npm test; echo "exit code: $?"', "Error: Cannot find module 'x'\nexit code: 1"
    )
    assert said == "Error: Cannot find module 'x' (exit status 1)"
