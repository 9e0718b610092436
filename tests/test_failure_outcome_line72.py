"""Blind check 72 (N2): a failed command whose output opens with a status header is quoted by
the line that states its outcome. hk_home's ``git commit`` failed with git's status ("On branch
main", "Untracked files:", the paths) and, last, "nothing added to commit but untracked files
present": §4 read "failed: On branch main", which says nothing of why."""

from __future__ import annotations

import pytest

from compactor.facts.wenton import first_informative_line

from .cc_session import Session

_UNTRACKED = (
    "On branch main\n"
    "Untracked files:\n"
    '  (use "git add <file>..." to include in what will be committed)\n'
    "\t.cache/\n"
    "\t.claude.json\n"
    "\tApp/\n"
    "\n"
    'nothing added to commit but untracked files present (use "git add" to track)'
)
_CLEAN = (
    "On branch main\n"
    "Your branch is up to date with 'origin/main'.\n"
    "\n"
    "nothing to commit, working tree clean"
)
_UNSTAGED = (
    "On branch feature/login\n"
    "Changes not staged for commit:\n"
    '  (use "git add <file>..." to update what will be committed)\n'
    '  (use "git restore <file>..." to discard changes in working directory)\n'
    "\tmodified:   src/app.py\n"
    "\n"
    'no changes added to commit (use "git add" and/or "git commit -a")'
)


@pytest.mark.parametrize(
    ("output", "line"),
    [
        (_UNTRACKED, "nothing added to commit but untracked files present"),
        (_CLEAN, "nothing to commit, working tree clean"),
        (_UNSTAGED, "no changes added to commit"),
    ],
)
def test_the_outcome_line_is_quoted_not_the_status_header(output: str, line: str) -> None:
    assert first_informative_line(output).startswith(line)


def test_a_header_alone_or_a_plain_first_line_is_still_quoted() -> None:
    assert first_informative_line("On branch main") == "On branch main"
    assert first_informative_line("Building the site\nDone in 3s") == "Building the site"
    listed = "Untracked files:\n\tnotes.txt\nsomething else happened"
    assert first_informative_line(listed) == "something else happened"


def test_the_failed_commit_of_blind_check_72_is_quoted_by_its_outcome() -> None:
    s = Session()
    s.user("Commit the logging changes.")
    s.call(
        "Bash",
        {"command": 'git add api/miso.js && git commit -m "fix: log the API error"'},
        _UNTRACKED,
        error=True,
    )
    s.say("The commit did not go through.")
    text = s.summary()
    assert "failed: nothing added to commit but untracked files present" in text, text
    assert "failed: On branch main" not in text, text
