"""Blind check 39's W1 and W3 (issue 28, rows 1850-1869): a folder moved by an absolute ``mv``
and then renamed by a relative one; files deleted before a background job that writes them
started. Sessions are built here, by shape, with invented content."""

from __future__ import annotations

from typing import Any

from .cc_session import Session
from .test_models_local_session import section


class _Claude(Session):
    """Claude Code records whose ``cwd`` is ``where`` (changed between calls by the test)."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def _add(self, rec: dict[str, Any]) -> dict[str, Any]:
        full = super()._add(rec)
        full["cwd"] = self.where
        return full


# -- a folder moved, then renamed by a relative mv --------------------------------------------

_P = "/u/proj"


def _renamed(lead_cd: bool) -> str:
    """Role files written (one read, then edited) under proj/team; ``mv /abs/team
    /abs/notes/``; then, in notes, ``mv team crew`` and a rename of a file there and back."""
    s = _Claude(_P)
    s.user("write the role files")
    s.call("Write", {"file_path": f"{_P}/team/README.md", "content": "# Team\n"},
           f"File created successfully at: {_P}/team/README.md")  # fmt: skip
    s.call("Write", {"file_path": f"{_P}/team/data/SKILL_data.md", "content": "# Data\nstep one\n"},
           f"File created successfully at: {_P}/team/data/SKILL_data.md")  # fmt: skip
    s.call("Read", {"file_path": f"{_P}/team/data/SKILL_data.md"}, "1\t# Data\n2\tstep one\n")
    edit = {"file_path": f"{_P}/team/data/SKILL_data.md", "old_string": "step one"}
    s.call("Edit", {**edit, "new_string": "step two"}, "The file has been updated successfully.")
    s.say("Wrote the role files.")
    s.user("put them in notes and call the folder crew")
    s.call("Bash", {"command": f"mv {_P}/team {_P}/notes/"}, "")
    rename = "mv team crew && mv crew/data/SKILL_data.md crew/data/x.md"
    rename += " && mv crew/data/x.md crew/data/SKILL_data.md"
    if lead_cd:
        s.call("Bash", {"command": f"cd {_P}/notes && {rename}"}, "")
    else:
        s.where = f"{_P}/notes"
        s.call("Bash", {"command": rename}, "")
    s.call("Bash", {"command": "ls crew"}, "README.md\ndata\n")
    s.say("The role files are in notes/crew.")
    return s.summary()


def test_a_folder_renamed_by_a_relative_mv_after_its_move_carries_its_files() -> None:
    """cc-kacey (blind check 39 W1): ``mv /abs/ai-workspace /abs/memory/``, then (cwd memory)
    ``mv ai-workspace claude-role && mv …/claude-role.md …/SKILL_….md``; §3 listed the files
    under the old folder, the folders as created/deleted, the renamed file as deleted, and the
    written and edited file as "Read, not changed" under its first path."""
    for lead_cd in (False, True):
        files = section(_renamed(lead_cd), 3)
        assert f"{_P}/notes/crew/README.md (created, then moved from {_P}/team/README.md" in files
        skill = f"{_P}/notes/crew/data/SKILL_data.md (created, then edited, then moved from "
        assert skill + f"{_P}/team/data/SKILL_data.md by Bash, 3 changes)" in files, files
        assert "/team/" not in files.replace(f"moved from {_P}/team/", ""), files
        assert "Read, not changed" not in files, files
        assert "deleted" not in files and "x.md" not in files, files
        assert f"{_P}/notes/ " not in files and f"{_P}/notes/README.md" not in files, files


def test_a_move_into_a_folder_written_with_a_slash_keeps_the_folder_name() -> None:
    """Guard: ``mv DIR DEST/`` puts DIR inside DEST (DEST/DIR/…); ``mv DIR NEW`` (no slash, no
    file known in NEW) renames DIR to NEW; a read file under a moved folder is read there."""
    s = _Claude(_P)
    s.user("add docs")
    s.call("Write", {"file_path": f"{_P}/docs/a.md", "content": "# A\n"}, "File created")
    s.call("Read", {"file_path": f"{_P}/docs/b.md"}, "1\t# B\n")
    s.call("Bash", {"command": "mv docs archive/"}, "")
    s.call("Write", {"file_path": f"{_P}/src/c.md", "content": "# C\n"}, "File created")
    s.call("Bash", {"command": "mv src lib"}, "")
    s.say("Moved the docs.")
    files = section(s.summary(), 3)
    assert f"{_P}/archive/docs/a.md (created, then moved from {_P}/docs/a.md" in files, files
    assert f"{_P}/lib/c.md (created, then moved from {_P}/src/c.md" in files, files
    assert f"Read, not changed: {_P}/archive/docs/b.md" in files, files
