"""Blind check 58 (W1): files renamed or added outside the calls (the user, in an IDE), seen
only in a later ``git status`` (``R old -> new``, ``A new``) or a commit's summary (``rename
{a => b}``, ``create mode … new``), are re-homed in the file list as a shell ``mv`` is; a file
whose name no longer exists is not listed under its old name."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

_ROOT = "/home/dev/board"


def _status_session(*, still: bool = False) -> Session:
    s = Session()
    s.user("Add a draft of the release notes next to the guide.")
    s.call("Read", {"file_path": f"{_ROOT}/docs/guide.md"}, "1\t# Guide\n2\tHow to run the board.")
    s.call(
        "Write",
        {"file_path": f"{_ROOT}/docs/notes_draft.md", "content": "# Notes\n\n- first cut\n"},
        f"File created successfully at: {_ROOT}/docs/notes_draft.md",
    )
    s.bash(
        "git status",
        'On branch main\nUntracked files:\n  (use "git add <file>..." to include in what will '
        "be committed)\n\tdocs/notes_draft.md\n\nnothing added to commit but untracked files "
        "present",
    )
    s.user("I renamed the docs in the editor. Stage the docs folder.")
    s.bash(
        "git add docs/ && git status --short",
        "R  docs/guide.md -> docs/handbook.md\nA  docs/release_notes.md"
        + ("\nA  docs/notes_draft.md" if still else ""),
    )
    s.say("Staged: the guide is now docs/handbook.md and the notes are docs/release_notes.md.")
    return s


def test_a_rename_and_a_new_file_in_a_later_git_status_rehome_the_file_list(
    tmp_path: Path,
) -> None:
    files = section(cc_summary(_status_session(), tmp_path), 3)
    flat = " ".join(files.split())
    assert f"{_ROOT}/docs/release_notes.md (created by hand or outside the calls" in flat, files
    assert f"Read, not changed: {_ROOT}/docs/handbook.md" in flat, files
    assert f"{_ROOT}/docs/guide.md" not in flat, files
    draft = flat[flat.index("docs/notes_draft.md") :][:200]
    assert "then deleted by hand or outside the calls" in draft, files
    assert "no longer lists it (renamed or removed)" in draft, files


def test_a_commit_summary_rename_moves_a_changed_file(tmp_path: Path) -> None:
    s = Session()
    s.user("Fix the greeting in the app.")
    s.call(
        "Edit",
        {"file_path": f"{_ROOT}/src/app.py", "old_string": "hello", "new_string": "hello there"},
        f"The file {_ROOT}/src/app.py has been updated successfully.",
    )
    s.user("I renamed the module to main.py myself; commit it.")
    s.bash(
        "git add -A && git commit -m 'Rename app to main'",
        "[main 1a2b3c4] Rename app to main\n 2 files changed, 3 insertions(+)\n"
        " rename src/{app.py => main.py} (90%)\n create mode 100644 src/util.py",
    )
    s.say("Committed 1a2b3c4.")
    files = " ".join(section(cc_summary(s, tmp_path), 3).split())
    assert f"{_ROOT}/src/main.py (edited, then moved from {_ROOT}/src/app.py" in files, files
    assert f"{_ROOT}/src/util.py (created by hand or outside the calls" in files, files
    assert f"- {_ROOT}/src/app.py" not in files, files


def test_an_untracked_file_still_listed_stays(tmp_path: Path) -> None:
    files = " ".join(section(cc_summary(_status_session(still=True), tmp_path), 3).split())
    assert "no longer lists it" not in files, files
    assert f"{_ROOT}/docs/notes_draft.md (created by Write)" in files, files
