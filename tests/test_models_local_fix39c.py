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


# -- files deleted before a background job that writes them started ---------------------------


def _training(rm_after_start: bool = False, poll: bool = True) -> str:
    """A training script written; its outputs removed; ``nohup python train.py … &``; a later
    ``tail`` of its log shows epoch 22 (``rm_after_start``: the removal comes after the job
    started instead)."""
    s = _Claude("/h/lab")
    s.user("train the denoiser again from scratch")
    script = "import torch\nfor e in range(50):\n    torch.save(m, 'runs/best.ckpt')\n"
    s.call("Write", {"file_path": "/h/lab/train.py", "content": script}, "File created")
    s.call("Write", {"file_path": "/h/lab/notes.md", "content": "# Notes\n"}, "File created")
    start = "nohup python train.py --log runs/log.csv > run_out.log 2>&1 &\necho $!"
    if rm_after_start:
        s.call("Bash", {"command": start}, "4242")
    s.call("Bash", {"command": "rm runs/best.ckpt runs/log.csv notes.md"}, "")
    if not rm_after_start:
        s.call("Bash", {"command": start}, "4242")
    s.say("Started training.")
    s.user("how is it going?")
    if poll:
        s.call(
            "Bash", {"command": "sleep 60; tail -3 runs/log.csv"}, "epoch,loss\n21,0.12\n22,0.11\n"
        )
    s.say("Epoch 22, loss 0.11.")
    return section(s.summary(), 3)


def test_files_a_background_job_writes_are_not_deleted_after_it_started() -> None:
    """cc-lowlight (blind check 39 W3): ``rm best.pth train_log.csv``, then ``nohup python
    train.py … &``, then a ``tail`` of the log at epoch 22; §3 said both were "deleted by Bash"."""
    files = _training()
    assert "/h/lab/runs/log.csv (deleted by Bash, then re-created by the running job)" in files
    best = "/h/lab/runs/best.ckpt (deleted by Bash before the background job started; the job"
    assert best + " may write it again)" in files, files
    assert "/h/lab/notes.md (created, then deleted by Bash, 2 changes)" in files, files  # not its
    files = _training(poll=False)
    assert "/h/lab/runs/log.csv (deleted by Bash before the background job started" in files


def test_a_file_deleted_after_the_job_started_stays_deleted() -> None:
    """Guard: only a job started after the delete may have written the file again."""
    files = _training(rm_after_start=True)
    assert "/h/lab/runs/log.csv (deleted by Bash)" in files, files
    assert "/h/lab/runs/best.ckpt (deleted by Bash)" in files, files
