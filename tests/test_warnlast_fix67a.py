"""A failed call's excerpt names its cause, not a warning printed on the way (BENCH67 N1).

``git add`` over a home folder prints dozens of ``warning: could not open directory 'X/':
Permission denied`` lines before ``fatal: adding files failed``; a commit that adds an ignored
path prints ``warning: … LF will be replaced by CRLF`` around git's "The following paths are
ignored by one of your .gitignore files" and its ``hint:`` lines. The excerpt quoted the first
warning; the error and the ignored-path report say why the call failed.
"""

from __future__ import annotations

import json

from compactor.facts import outcome
from compactor.facts.text import Call, Result


def _call(command: str) -> Call:
    return Call("c1", "Bash", json.dumps({"command": command}), 0)


def test_fatal_and_error_lines_come_before_many_permission_warnings() -> None:
    warnings = "".join(
        f"warning: could not open directory 'Folder{i}/': Permission denied\n" for i in range(30)
    )
    text = (
        warnings + "error: 'vendor/' does not have a commit checked out\nfatal: adding files failed"
    )
    judged = outcome(Result("c1", "Bash", text, is_error=True), _call("git add . && git commit"))
    assert judged.failed
    assert set(judged.lines[:2]) == {
        "fatal: adding files failed",
        "error: 'vendor/' does not have a commit checked out",
    }


def test_ignored_path_report_comes_before_line_ending_warnings() -> None:
    text = (
        "warning: in the working copy of 'notes.md', LF will be replaced by CRLF the next time "
        "Git touches it\n"
        "The following paths are ignored by one of your .gitignore files:\n"
        ".cache\n"
        "hint: Use -f if you really want to add them.\n"
        "warning: in the working copy of 'plan.txt', LF will be replaced by CRLF the next time "
        "Git touches it"
    )
    call = _call("git add notes.md .cache plan.txt && git commit -m wip")
    judged = outcome(Result("c1", "Bash", text, is_error=True), call)
    assert judged.failed
    assert judged.lines[0].startswith("The following paths are ignored")


def test_a_warning_alone_is_still_shown() -> None:
    text = "warning: in the working copy of 'a.txt', LF will be replaced by CRLF"
    judged = outcome(Result("c1", "Bash", text, is_error=True), _call("git commit -m x"))
    assert judged.failed and "LF will be replaced" in judged.lines[0]
