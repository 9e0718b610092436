"""The archive's index and ``compact archive restore``: the undo of ``--in-place`` (issue 32,
point 5)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.io.archive_index import INDEX_NAME, read_index, record_archived

REPO = Path(__file__).resolve().parents[1]
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "compact" / "archive"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _in_place(src: Path) -> None:
    run = CliRunner().invoke(app, ["run", str(src), "--in-place", "--model", "local"])
    assert run.exit_code == 0, run.output


def test_restore_undoes_an_in_place_run_and_is_itself_undone(archive: Path, tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    os.chmod(src, 0o640)
    original = src.read_bytes()
    _in_place(src)
    compacted = src.read_bytes()
    assert compacted != original

    listed = CliRunner().invoke(app, ["archive", "list"])
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.splitlines()[0].endswith(
        f"{archive / _sha(original)}.jsonl  <- {src.resolve()}"
    )
    as_json = CliRunner().invoke(app, ["archive", "list", "--json"]).stdout
    (record,) = [json.loads(line) for line in as_json.splitlines()]
    assert record["original"] == str(src.resolve())
    assert record["run"].startswith(f"{os.getpid()}-")

    first = CliRunner().invoke(app, ["archive", "restore", str(src)])
    assert first.exit_code == 0, first.output
    assert src.read_bytes() == original
    assert stat.S_IMODE(src.stat().st_mode) == 0o640
    assert f"restored {src.resolve()} from {archive / _sha(original)}.jsonl" in first.stdout
    assert f"archived as {archive / _sha(compacted)}.jsonl" in first.stdout

    second = CliRunner().invoke(app, ["archive", "restore", str(src)])
    assert second.exit_code == 0, second.output
    assert src.read_bytes() == compacted
    assert [r.by for r in read_index(archive)] == [
        "run --in-place",
        "archive restore",
        "archive restore",
    ]
    # entries stay the only <sha256>.jsonl files; the index is private
    names = sorted(p.name for p in archive.iterdir())
    assert names == sorted([INDEX_NAME, f"{_sha(original)}.jsonl", f"{_sha(compacted)}.jsonl"])
    assert stat.S_IMODE((archive / INDEX_NAME).stat().st_mode) == 0o600


def test_restore_of_a_file_never_archived_is_a_usage_error(archive: Path, tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    result = CliRunner().invoke(app, ["archive", "restore", str(src)])
    assert result.exit_code == 2
    assert f"no archived original of {str(src.resolve())!r}" in result.stderr
    assert src.read_bytes() == LONG.read_bytes()


def test_restore_refuses_an_entry_whose_bytes_changed(archive: Path, tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    _in_place(src)
    compacted = src.read_bytes()
    (archive / f"{_sha(LONG.read_bytes())}.jsonl").write_bytes(b"tampered\n")
    result = CliRunner().invoke(app, ["archive", "restore", str(src)])
    assert result.exit_code == 2
    assert "its bytes no longer match its name; not restored" in result.stderr
    assert src.read_bytes() == compacted


def test_the_index_is_never_written_through_a_planted_symlink(
    archive: Path, tmp_path: Path
) -> None:
    archive.mkdir(parents=True)
    os.chmod(archive, 0o700)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (archive / INDEX_NAME).symlink_to(victim)
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    run = CliRunner().invoke(app, ["run", str(src), "--in-place", "--model", "local"])
    assert run.exit_code == 6, run.output
    assert "archive index is never written through one" in run.stderr
    assert victim.read_text() == "keep me\n"
    assert src.read_bytes() == LONG.read_bytes()  # the input is not replaced either
    assert read_index(archive) == []


def test_prune_drops_the_index_lines_of_pruned_entries(archive: Path, tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    _in_place(src)
    entry = archive / f"{_sha(LONG.read_bytes())}.jsonl"
    old = time.time() - 40 * 86_400
    os.utime(entry, (old, old))
    record_archived(archive, str(archive / ("0" * 64 + ".jsonl")), str(tmp_path / "other"))
    result = CliRunner().invoke(app, ["archive", "prune", "--older-than", "30d"])
    assert result.exit_code == 0, result.output
    assert not entry.exists()
    assert [r.entry for r in read_index(archive)] == ["0" * 64 + ".jsonl"]


_APPENDER = """
import sys
from compactor.io.archive_index import record_archived
for i in range(40):
    record_archived(sys.argv[1], f"{i:064x}.jsonl", f"/w/{sys.argv[2]}/{i}")
"""


def test_concurrent_appends_keep_every_line_whole(tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    procs = [
        subprocess.Popen([sys.executable, "-c", _APPENDER, str(folder), str(n)]) for n in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    lines = (folder / INDEX_NAME).read_bytes().splitlines()
    assert len(lines) == 160
    records = read_index(folder)
    assert len(records) == 160
    assert {r.original for r in records} == {f"/w/{n}/{i}" for n in range(4) for i in range(40)}


def test_an_index_line_naming_a_path_outside_the_archive_is_ignored(
    archive: Path, tmp_path: Path
) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(LONG, src)
    secret = tmp_path / "secret.txt"
    secret.write_text("not a transcript\n")
    archive.mkdir(parents=True)
    line = {
        "entry": f"../../../{secret.name}",
        "original": str(src.resolve()),
        "archived_at": time.time(),
        "run": "x",
        "pid": 1,
        "by": "planted",
    }
    (archive / INDEX_NAME).write_text(json.dumps(line) + "\n")
    result = CliRunner().invoke(app, ["archive", "restore", str(src)])
    assert result.exit_code == 2
    assert "no archived original" in result.stderr
    assert src.read_bytes() == LONG.read_bytes()
    assert read_index(archive) == []


def test_the_readme_round_trip_runs_as_written(tmp_path: Path) -> None:
    """The README's ``--in-place`` section shows the undo: its commands, run as written."""
    import shlex

    text = (REPO / "README.md").read_text("utf-8")
    block = text.split("an in-place run can be undone:", 1)[1].split("```sh", 1)[1]
    block = block.split("```", 1)[0]
    commands = [
        line.split("#", 1)[0].strip()
        for line in block.splitlines()
        if line.strip().startswith("compact ")
    ]
    assert [c.split()[1:3] for c in commands] == [
        ["run", "session.jsonl"],
        ["archive", "list"],
        ["archive", "restore"],
        ["archive", "restore"],
    ]
    session = tmp_path / "session.jsonl"
    shutil.copy(LONG, session)
    original = session.read_bytes()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    exe = str(Path(sys.executable).with_name("compact"))
    seen: list[bytes] = []
    for command in commands:
        proc = subprocess.run(
            [exe, *shlex.split(command)[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, (command, proc.stderr)
        if "archive list" in command:
            assert f"<- {session.resolve()}" in proc.stdout
        seen.append(session.read_bytes())
    compacted = seen[0]
    assert compacted != original
    assert seen == [compacted, compacted, original, compacted]
