"""Deletions a command's output reports are applied to the files list (blind check 68 W2:
``git -C DIR clean -fd`` printed "Removing .env.production", yet section 3 still listed the file
as "Read, not changed")."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.facts.reporteddeletes import reported_deletions
from compactor.facts.text import Call

from .cc_session import Session, cc_summary

APP = "/srv/shop"
ENV = f"{APP}/.env.staging"


def _files(summary: str) -> str:
    summary = summary[summary.index("<summary>") :]
    start = summary.index("\n3.")
    return summary[start : summary.index("\n4.", start)]


def _session(command: str, output: str, path: str = ENV) -> Session:
    s = Session()
    s.user("Update the shop checkout to the latest release.")
    s.call("Read", {"file_path": path}, "     1→API_URL=https://staging.example.test")
    s.bash(command, output)
    s.say("The checkout is on the latest release.")
    return s


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (f"git -C {APP} clean -fd", "Removing .env.staging\nRemoving build/"),
        (f"cd {APP} && git clean -fdx", "Removing .env.staging"),
        (f"cd {APP} && ./scripts/reset.sh", "Resetting…\nremoved '.env.staging'\nDone."),
        (f"cd {APP} && git rm --cached -r . -q; git rm .env.staging", "rm '.env.staging'"),
    ],
)
def test_a_deletion_the_output_reports_is_applied(
    command: str, output: str, tmp_path: Path
) -> None:
    files = _files(cc_summary(_session(command, output), tmp_path))
    assert f"{ENV} (deleted by Bash)" in files, files
    assert "Read, not changed" not in files


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (f"git -C {APP} clean -n", "Would remove .env.staging"),
        (f"cd {APP} && apt-get remove -y nginx", "Removing .env.staging (1.2) ..."),
        (f"cat {APP}/cleanup.log", "removed '.env.staging'"),
        (f"cd {APP} && echo \"removed '.env.staging'\"", "removed '.env.staging'"),
    ],
)
def test_a_line_that_reports_no_deletion_of_this_call(
    command: str, output: str, tmp_path: Path
) -> None:
    files = _files(cc_summary(_session(command, output), tmp_path))
    assert f"Read, not changed: {ENV}" in files, files


def test_a_folder_the_output_removed_deletes_the_known_files_in_it(tmp_path: Path) -> None:
    path = f"{APP}/build/report.html"
    summary = cc_summary(_session(f"git -C {APP} clean -fdx", "Removing build/", path), tmp_path)
    assert f"{path} (deleted by Bash)" in _files(summary)


def test_a_mass_clean_lists_only_the_known_files(tmp_path: Path) -> None:
    out = "\n".join(f"Removing dist/chunk-{i}.js" for i in range(40)) + "\nRemoving .env.staging"
    files = _files(cc_summary(_session(f"git -C {APP} clean -fdx", out), tmp_path))
    assert f"{ENV} (deleted by Bash)" in files, files
    assert "chunk-" not in files


def test_the_reader_keeps_every_path_a_clean_printed() -> None:
    call = Call("c", "Bash", '{"command": "git clean -fdx"}', 0)
    out = "\n".join(f"Removing dist/chunk-{i}.js" for i in range(40))
    deleted = reported_deletions(call, out)
    assert deleted is not None and len(deleted.paths) == 40 and deleted.base == ""
