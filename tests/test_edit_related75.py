"""Blind check 75 N3: a failed ``Edit(F)`` (adding ``cask "clop"``; "File has been modified since
read") was "Fixed: a later Edit(F) succeeded" though that later edit of F removed another line.
A later edit of the same file fixes a failed edit only when it relates to it: the same
``old_string``, one of the lines the failed edit added, or a write of F holding its new text.
Names invented."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

F = "/home/dev/dots/Brewfile"
_STALE = (
    "<tool_use_error>File has been modified since read, either by the user or by a linter. "
    "Read it again before attempting to write it.</tool_use_error>"
)


def _failed_edit(s: Session) -> None:
    s.user("add the tidy cask to the Brewfile")
    s.call("Read", {"file_path": F}, '1\tcask "alacritty"\n2\tcask "zoomit"\n')
    s.call(
        "Edit",
        {"file_path": F, "old_string": 'cask "zoomit"', "new_string": 'cask "tidy"\ncask "zoomit"'},
        _STALE,
        error=True,
    )
    s.say("The file changed under me.")


def _later_edit(s: Session, old: str, new: str) -> None:
    s.call(
        "Edit",
        {"file_path": F, "old_string": old, "new_string": new},
        f"The file {F} has been updated.",
    )
    s.say("Done.")


def test_an_unrelated_later_edit_of_the_file_fixes_nothing(tmp_path: Path) -> None:
    s = Session()
    _failed_edit(s)
    s.user("also drop alacritty")
    _later_edit(s, 'cask "alacritty"\ncask "tidy"', 'cask "tidy"')
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Edit(" in errors and "Fixed: a later" not in errors, errors


def test_the_same_edit_again_fixes_it(tmp_path: Path) -> None:
    s = Session()
    _failed_edit(s)
    _later_edit(s, 'cask "zoomit"', 'cask "tidy"\ncask "zoomit"')
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" in errors, errors


def test_an_edit_that_adds_the_same_line_elsewhere_fixes_it(tmp_path: Path) -> None:
    s = Session()
    _failed_edit(s)
    _later_edit(s, 'cask "alacritty"', 'cask "alacritty"\ncask "tidy"')
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" in errors, errors


def test_a_write_of_the_file_with_the_new_text_fixes_it(tmp_path: Path) -> None:
    s = Session()
    _failed_edit(s)
    s.call(
        "Write",
        {"file_path": F, "content": 'cask "alacritty"\ncask "tidy"\ncask "zoomit"\n'},
        f"The file {F} has been updated.",
    )
    s.say("Rewrote it.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Not retried afterwards" not in errors, errors


def test_a_deletion_retried_with_another_anchor_fixes_it(tmp_path: Path) -> None:
    """A failed edit that only removed lines, retried on the lines it really had (se_drain)."""
    s = Session()
    s.user("drop the tidy count from the status")
    s.call(
        "Edit",
        {
            "file_path": F,
            "old_string": "    tidy_count: snap.tidy_count,\n    path: snap.path,",
            "new_string": "    path: snap.path,",
        },
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        error=True,
    )
    _later_edit(
        s, "        tidy_count: snap.tidy_count,\n        stale: now,", "        stale: now,"
    )
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" in errors, errors


def test_a_retry_with_another_indentation_fixes_it(tmp_path: Path) -> None:
    """The same tree lines added under another indentation (rc_compact's docs tree)."""
    s = Session()
    s.user("list the new controller in the docs tree")
    s.call(
        "Edit",
        {
            "file_path": F,
            "old_string": "│   │   └── view.js",
            "new_string": "│   │   ├── view.js\n│   │   └── meter.js # new panel",
        },
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        error=True,
    )
    _later_edit(s, "│   └── view.js", "│   ├── view.js\n│   └── meter.js # new panel")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" in errors, errors
