"""Blind check 72: where the work stands, from the latest evidence (W1, W3, N1, N4).

Small synthetic Claude Code sessions (tests/cc_session.py); nothing of the blind sessions."""

from __future__ import annotations

from typing import Any

from tests.cc_session import Session, section

_LISTING = (
    "total 180\ndrwxr-xr-x 1 dev dev     0 Nov 26 12:08 .\n"
    "drwxr-xr-x 1 dev dev     0 Nov 26 12:08 ..\n"
    "-rw-r--r-- 1 dev dev 33339 Nov 26 11:58 pine.jpg\n"
    "-rw-r--r-- 1 dev dev 39430 Nov 26 11:59 beech.jpg\n"
)
_COMMIT = (
    "[main 85984a2] Use the smaller photos\n 2 files changed, 0 insertions(+), 0 deletions(-)\n"
    " create mode 100644 images/pine.jpg\n create mode 100644 images/beech.jpg\n"
)


def _removed_then(*later: tuple[str, dict[str, Any], str]) -> str:
    """``git rm`` of two photos and its commit, the user's new photos, then ``later`` calls."""
    s = Session()
    s.user("the photos are too large for the pages build; drop them")
    s.call(
        "Bash",
        {"command": "git rm images/pine.jpg images/beech.jpg"},
        "rm 'images/pine.jpg'\nrm 'images/beech.jpg'",
    )
    s.call(
        "Bash",
        {"command": 'git commit -m "Drop large photos"'},
        "[main b0ae3dd] Drop large photos\n 2 files changed\n"
        " delete mode 100644 images/pine.jpg\n delete mode 100644 images/beech.jpg\n",
    )
    s.user("I saved smaller ones under the same names, they are there")
    for name, args, out in later:
        s.call(name, args, out)
    s.say("Done.")
    return s.summary()


def test_a_folder_listing_shows_a_deleted_file_again() -> None:
    """jk_strom W1: ``git rm images/…`` early, later ``ls -la images/`` lists the user's new
    photos: §3 said "images/pine.jpg (deleted by Bash)"."""
    text = _removed_then(("Bash", {"command": "ls -la images/"}, _LISTING))
    files = section(text, 3)
    assert "pine.jpg (deleted by Bash)" not in files, files
    assert "pine.jpg (deleted by Bash, then shown present by a later result)" in files, files


def test_a_commit_that_creates_it_shows_a_deleted_file_again() -> None:
    """jk_strom W1: a later commit's ``create mode 100644 images/pine.jpg``."""
    text = _removed_then(("Bash", {"command": "git add -A && git commit -m photos"}, _COMMIT))
    files = section(text, 3)
    assert "pine.jpg (deleted by Bash)" not in files, files
    assert "beech.jpg (deleted by Bash, then shown present" in files, files


def test_a_glob_that_lists_it_shows_a_deleted_file_again() -> None:
    found = "/home/dev/board/images/beech.jpg\n/home/dev/board/images/pine.jpg\n"
    text = _removed_then(("Glob", {"pattern": "images/*.jpg"}, found))
    assert "pine.jpg (deleted by Bash, then shown present" in section(text, 3)


def test_the_latest_evidence_decides_and_others_do_not_count() -> None:
    """Shown present, then a later status lists it deleted again: deleted. A listing of another
    folder, a ``git log --summary`` of an old commit and a recursive listing say nothing."""
    again = ("Bash", {"command": "git status --short"}, " D images/pine.jpg\n")
    text = _removed_then(("Bash", {"command": "ls -la images/"}, _LISTING), again)
    assert "pine.jpg (deleted by Bash)" in section(text, 3)
    for later in (
        ("Bash", {"command": "ls -la backup/"}, _LISTING),
        ("Bash", {"command": "git log --summary -3"}, "commit 1a2b3c4\n" + _COMMIT[24:]),
        ("Bash", {"command": "ls -laR ."}, "./images:\n" + _LISTING),
    ):
        text = _removed_then(later)
        assert "pine.jpg (deleted by Bash)" in section(text, 3), later
