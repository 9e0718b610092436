"""A foreground command that failed because it needs an interactive terminal is not "cut off by
the time limit … run it in the background" (blind check 70 N4: rb_bash's ``claude doctor`` failed
with Ink's "Raw mode is not supported" after the 2-minute limit). Invented sessions only."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts.terminal import needs_terminal

from .cc_session import Session, cc_summary, section

RAW = (
    "Command timed out after 2m 0.0s Error: Raw mode is not supported on the current "
    "process.stdin, which Ink uses as input stream by default.\n    at handleSetRawMode (cli.js:1)"
)


def _session(output: str, command: str = "mytool doctor") -> Session:
    s = Session()
    s.user("check why the updater fails")
    s.bash("mytool --help", "usage: mytool [doctor|update]")
    s.call("Bash", {"command": command}, output, error=True)
    return s


@pytest.mark.parametrize(
    "output",
    [
        RAW,
        "sudo: a terminal is required to read the password; either use the -S option",
        "the input device is not a TTY",
        "stty: 'standard input': Inappropriate ioctl for device",
    ],
)
def test_a_command_that_needs_a_terminal_is_the_users_to_run(output: str, tmp_path: Path) -> None:
    step = section(cc_summary(_session(output), tmp_path), 9)
    assert "needs an interactive terminal" in step, step
    assert "ask the user to run it" in step
    assert "cut off by the time limit" not in step


def test_a_plain_timeout_still_says_run_it_in_the_background(tmp_path: Path) -> None:
    step = section(cc_summary(_session("Command timed out after 2m 0.0s"), tmp_path), 9)
    assert "cut off by the time limit" in step, step
    assert "interactive terminal" not in step


def test_needs_terminal_reads_the_shapes_and_not_a_word() -> None:
    assert needs_terminal("Error: stdin is not a terminal")
    assert needs_terminal("x\n" * 5000 + "Error: Raw mode is not supported on the current stdin")
    assert not needs_terminal("the terminal shows 3 tests failed")
    assert not needs_terminal("Error: ENOENT: no such file or directory, open 'tty.log'")
