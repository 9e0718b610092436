"""``compact run A B … --jobs N``: batch compaction (several files or a directory)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
SMALL = SAMPLES / "small-chat.jsonl"
CODING = SAMPLES / "coding-session.jsonl"
LONG = SAMPLES / "coding-session-long.jsonl"


@pytest.fixture
def batch_dir(tmp_path: Path) -> Path:
    shutil.copy(SMALL, tmp_path / "a.jsonl")
    shutil.copy(CODING, tmp_path / "b.jsonl")
    shutil.copy(SMALL, tmp_path / "c.jsonl")
    sub = tmp_path / "dir"
    sub.mkdir()
    shutil.copy(CODING, sub / "d.jsonl")
    shutil.copy(SMALL, sub / "e.jsonl")
    (sub / "notes.txt").write_text("not a transcript")
    return tmp_path


def test_batch_three_files_and_a_directory(batch_dir: Path) -> None:
    report = batch_dir / "r.json"
    args = ["run", *(str(batch_dir / n) for n in ("a.jsonl", "b.jsonl", "c.jsonl"))]
    args += [str(batch_dir / "dir"), "--force", "--model", "local", "--jobs", "3"]
    result = CliRunner().invoke(app, [*args, "--report", str(report)])
    assert result.exit_code == 0, result.output
    outs = ["a", "b", "c", "dir/d", "dir/e"]
    for name in outs:
        assert (batch_dir / f"{name}.compact.jsonl").exists(), name
        assert f"{batch_dir / name}.jsonl: compacted" in result.stderr
    data = json.loads(report.read_text())
    assert [f["input"] for f in data["files"]] == [str(batch_dir / f"{n}.jsonl") for n in outs]
    assert all(f["exit_code"] == 0 and f["triggered"] for f in data["files"])


def test_batch_failing_file_gets_its_exit_code(batch_dir: Path, monkeypatch) -> None:
    from compactor.testing.fake_openai import FakeOpenAI, status

    server = FakeOpenAI(default=status(500)).start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    cfg = batch_dir / "c.yaml"
    cfg.write_text("model: {provider: openai, name: dead}\nretry: null\n")
    shutil.copy(LONG, batch_dir / "long.jsonl")  # triggers: needs the (dead) model
    report = batch_dir / "r.json"
    try:
        result = CliRunner().invoke(
            app,
            [
                "run",
                str(batch_dir / "a.jsonl"),
                str(batch_dir / "long.jsonl"),
                str(batch_dir / "b.jsonl"),
                "-c",
                str(cfg),
                "--jobs",
                "2",
                "--report",
                str(report),
            ],
        )
    finally:
        server.stop()
    assert result.exit_code == 3, result.output
    codes = {Path(f["input"]).name: f["exit_code"] for f in json.loads(report.read_text())["files"]}
    assert codes == {"a.jsonl": 0, "long.jsonl": 3, "b.jsonl": 0}
    assert (batch_dir / "a.compact.jsonl").exists()
    assert (batch_dir / "b.compact.jsonl").exists()
    assert not (batch_dir / "long.compact.jsonl").exists()
    assert "long.jsonl: failed (exit 3)" in result.stderr


def test_batch_rejects_output(batch_dir: Path) -> None:
    result = CliRunner().invoke(
        app, ["run", str(batch_dir / "a.jsonl"), str(batch_dir / "b.jsonl"), "-o", "x.jsonl"]
    )
    assert result.exit_code == 2
    assert "-o/--output works with one input only" in result.stderr
    assert not (batch_dir / "a.compact.jsonl").exists()
