"""``compactor/runs/archive.py`` and ``compact archive list`` / ``prune`` (issue 23, point 11)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.errors import ConfigError
from compactor.runs.archive import list_archive, parse_age, prune_archive

REPO = Path(__file__).resolve().parents[1]
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"
DAY = 86_400.0


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "compact" / "archive"


def _archived(folder: Path, text: str, age_days: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = text.encode()
    path = folder / f"{hashlib.sha256(data).hexdigest()}.jsonl"
    path.write_bytes(data)
    when = time.time() - age_days * DAY
    os.utime(path, (when, when))
    return path


def test_an_in_place_run_is_listed(archive: Path, tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    run = CliRunner().invoke(app, ["run", str(src), "--in-place", "--model", "local"])
    assert run.exit_code == 0, run.output
    result = CliRunner().invoke(app, ["archive", "list"])
    assert result.exit_code == 0, result.output
    digest = hashlib.sha256(LONG.read_bytes()).hexdigest()
    first, total = result.stdout.splitlines()
    assert first.endswith(f"  {archive / digest}.jsonl  <- {src.resolve()}")
    assert f"{LONG.stat().st_size / 1000:.1f} KB" in first
    assert total == f"1 file, {LONG.stat().st_size / 1000:.1f} KB in {archive}"
    listed = CliRunner().invoke(app, ["archive", "list", "--json"]).stdout
    (record,) = [json.loads(line) for line in listed.splitlines()]
    assert record["path"] == f"{archive / digest}.jsonl"
    assert record["size"] == LONG.stat().st_size and record["leftover"] is False


def test_list_of_a_missing_archive_is_empty(archive: Path) -> None:
    result = CliRunner().invoke(app, ["archive", "list"])
    assert result.exit_code == 0
    assert result.stdout == f"0 files, 0 B in {archive}\n"


def test_prune_removes_only_what_is_older(archive: Path) -> None:
    old = _archived(archive, "old\n", 40)
    new = _archived(archive, "new\n", 2)
    dry = CliRunner().invoke(app, ["archive", "prune", "--older-than", "30d", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert dry.stdout.splitlines()[-1] == f"would remove 1 file (4 B), kept 1 file in {archive}"
    assert old.exists()
    result = CliRunner().invoke(app, ["archive", "prune", "--older-than", "30d"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"removed {old} (")
    assert result.stdout.splitlines()[-1] == f"removed 1 file (4 B), kept 1 file in {archive}"
    assert not old.exists() and new.exists()


def test_prune_touches_nothing_but_the_archives_own_files(archive: Path, tmp_path: Path) -> None:
    old = _archived(archive, "old\n", 40)
    elsewhere = tmp_path / "precious.jsonl"
    elsewhere.write_text("keep me\n")
    when = time.time() - 400 * DAY
    mine = archive / "notes.jsonl"
    mine.write_text("a file of the user's\n")
    link = archive / ("0" * 64 + ".jsonl")
    link.symlink_to(elsewhere)
    sub = archive / ("1" * 64 + ".jsonl")
    sub.mkdir()
    leftover = archive / f".{'2' * 64}.jsonl.abc123.tmp"
    leftover.write_text("half")
    for path in (mine, leftover, elsewhere):
        os.utime(path, (when, when))
    os.utime(link, (when, when), follow_symlinks=False)
    result = prune_archive(archive, 30 * DAY)
    assert sorted(Path(f.path).name for f in result.removed) == sorted([old.name, leftover.name])
    assert [f.leftover for f in result.removed if f.path == str(leftover)] == [True]
    assert mine.exists() and link.is_symlink() and sub.is_dir() and elsewhere.exists()


def test_prune_reports_what_it_freed(archive: Path) -> None:
    _archived(archive, "old\n", 40)
    files = list_archive(archive)
    assert len(files) == 1
    result = prune_archive(archive, 30 * DAY, now=time.time())
    assert len(result.removed) == 1 and result.bytes_freed == 4


def test_archive_dir_from_the_config(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    _archived(folder, "x\n", 1)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {folder}\n")
    result = CliRunner().invoke(app, ["archive", "list", "-c", str(cfg)])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == f"1 file, 2 B in {folder}"
    shown = CliRunner().invoke(app, ["config", "show", "-c", str(cfg), "--json"]).stdout
    assert json.loads(shown)["archive_dir"] == str(folder)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30d", 30 * DAY), ("12h", 43_200), ("2w", 14 * DAY), ("90m", 5_400), ("45s", 45),
     ("1.5d", 1.5 * DAY), (" 7d ", 7 * DAY)],
)  # fmt: skip
def test_parse_age(text: str, seconds: float) -> None:
    assert parse_age(text) == seconds


@pytest.mark.parametrize("text", ["30", "d", "-3d", "3y", "", "30 days"])
def test_bad_ages_are_refused(text: str, archive: Path) -> None:
    with pytest.raises(ConfigError, match="expected a number and a unit"):
        parse_age(text)
    result = CliRunner().invoke(app, ["archive", "prune", "--older-than", text])
    assert result.exit_code == 2


def test_prune_needs_older_than(archive: Path) -> None:
    result = CliRunner().invoke(app, ["archive", "prune"])
    assert result.exit_code == 2
    assert "missing option '--older-than'" in result.stderr


def test_a_file_where_the_archive_folder_should_be(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {not_a_folder}\n")
    result = CliRunner().invoke(app, ["archive", "list", "-c", str(cfg)])
    assert result.exit_code == 2
    assert "is not a folder" in result.stderr
