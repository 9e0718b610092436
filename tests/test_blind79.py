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


_OPTIONS = (
    "You're right! There are better ways to copy files from WSL to Windows:\n\n"
    "## Option 1: Use the \\\\wsl$\\ path\n```powershell\n"
    "Copy-Item \\\\wsl$\\Debian\\home\\jack\\migrate.ps1 $HOME\\Downloads\n```\n\n"
    "## Option 2: Run it in place\n\n## Option 3: One-liner from PowerShell\n\n"
    "## Option 4: Direct access in File Explorer\n\n"
    "**The \\\\wsl$\\ method (Option 1) is probably the cleanest** since it: keeps one copy."
)


def _after_options(*replies: str) -> str:
    s = Session()
    s.user("I copy the script over by hand; is there a better way (say from \\\\wsl$\\)?")
    s.say(_OPTIONS)
    for reply in replies:
        s.user(reply)
    s.say("Good point! I'll skip Microsoft apps from winget.")
    return s.summary()


def test_a_memory_note_and_an_empty_message_turn_nothing_down() -> None:
    """W1 (jc_edit): after the assistant offered four ways to copy the script, the next user
    inputs were a memory note, Claude Code's "(no content)" placeholder and a new request; the
    summary listed options 3, 4 and the recommended one as "Proposals the user turned down":
    "(no content)" was read as a "no"."""
    note = "<user-memory-input>my preferred WSL distros: Debian, Alpine</user-memory-input>"
    for replies in (
        (note, "(no content)", "skip moving apps owned by Microsoft"),
        ("(no content)",),
    ):
        text = _after_options(*replies)
        assert "turned down" not in text


def test_a_no_still_turns_the_options_down() -> None:
    """A typed "no" after the options still turns them down (the rule only skips messages
    that say nothing)."""
    text = _after_options("no, I'll keep copying by hand")
    assert "turned down" in text
