"""Blind check 78 W2 and W3: two errors that differ only in a path are one error; a later
success of the same command fixes its failure, whatever failed in between. Names invented."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

_BLOCKED = (
    "ERROR: cd to '{}' was blocked. For security, the agent may only change directories to "
    "child directories of the original working directory (/home/dev/dots) for this session."
)


def test_a_rerun_failing_with_the_same_error_but_another_path_got_past_nothing(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("rebuild the key-menu plugin")
    s.call(
        "Bash",
        {"command": "cd ~/.tmux/plugins/key-menu && python plugin/build.py"},
        _BLOCKED.format("/home/dev/dots/~/.tmux/plugins/key-menu"),
        error=True,
    )
    s.call(
        "Bash",
        {"command": "cd /home/dev/.tmux/plugins/key-menu && python plugin/build.py"},
        _BLOCKED.format("/home/dev/.tmux/plugins/key-menu"),
        error=True,
    )
    s.say("I cannot cd there.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Got past" not in errors and "cd to" in errors, errors
