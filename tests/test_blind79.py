"""Blind check 79: an exit-code line the command's own ``echo …$?`` printed is output, not the
call's status (W2); a memory note, an empty message or a request about something else turns
down no proposal (W1)."""

from __future__ import annotations

import orjson

from compactor.facts.outcomes import outcome
from compactor.facts.text import Call, Result

from .cc_session import Session, section

_PROBE = 'echo "Testing git diff --staged --quiet"; git diff --staged --quiet; echo "Exit code: $?"'


def test_an_exit_code_the_command_echoed_is_no_failure() -> None:
    """W2 (li_push): ``…; git diff --staged --quiet; echo "Exit code: $?"`` returned normally
    (no error flag) and printed "Exit code: 1" (there are staged changes: an answer); the
    summary listed it as failed (exit code 1) and as an unresolved failure."""
    s = Session()
    s.user("Fix push.sh so it commits staged changes.")
    s.call("Bash", {"command": _PROBE}, "Testing git diff --staged --quiet\nExit code: 1")
    s.say("The exit code is 1, meaning there ARE staged changes.")
    text = s.summary()
    assert "failed (exit code 1)" not in section(text, 4)
    assert "Unresolved failure" not in text
    assert 'echo "Exit code: $?" (failed)' not in text


def _outcome(command: str, output: str, error: bool = False) -> tuple[bool, int | None]:
    call = Call(
        id="c1", name="Bash", arguments=orjson.dumps({"command": command}).decode(), index=0
    )
    found = outcome(Result(call_id="c1", name="Bash", text=output, is_error=error), call)
    return found.failed, found.exit_code


def test_only_the_echo_s_own_line_is_output() -> None:
    """The harness's status still counts: its flag, its ``Exit code 1`` header (Claude Code) or
    ``Exit code: 1 … Output:`` header (Codex), and an echoed status beside an error line."""
    assert _outcome(_PROBE, "Testing git diff --staged --quiet\nExit code: 1") == (False, None)
    assert _outcome("make; echo exit=$?", "done\nexit=2")[0] is False
    assert _outcome(_PROBE, "Exit code 1\nTesting git diff --staged --quiet\nExit code: 1", True)[0]
    codex = "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nTesting\nExit code: 1"
    assert _outcome(_PROBE, codex) == (True, 1)
    assert _outcome("pytest -q; echo EXIT:$?", "FAILED tests/test_a.py::test_x\n1 failed\nEXIT:1")[
        0
    ]
    assert _outcome("./build.sh", "Building\nExit code: 1")[0]  # no echo of $?: its status
