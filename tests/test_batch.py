"""``compact run A B … --jobs N``: batch compaction (several files or a directory)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app

from .fake_server_cli import default_sigint

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


# -- one event loop, shared clients ---------------------------------------------------------------


@pytest.fixture
def fake_env(monkeypatch):
    from compactor.testing.fake_openai import FakeOpenAI

    server = FakeOpenAI().start()
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    yield server
    server.stop()


def _copies(folder: Path, n: int) -> list[Path]:
    folder.mkdir()
    paths = [folder / f"t{i:02d}.jsonl" for i in range(n)]
    for i, p in enumerate(paths):
        shutil.copy(CODING if i % 3 == 0 else SMALL, p)
    return paths


def test_batch_isolates_one_failed_model_call(tmp_path: Path, fake_env) -> None:
    """12 files, 4 at a time; the fake answers one request with HTTP 400 (not retried): that
    file fails alone and writes nothing; exactly one request per file reaches the server."""
    from compactor.testing.fake_openai import status

    fake_env.enqueue(status(400))
    paths = _copies(tmp_path / "in", 12)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: m}\nretry: {max_retries: 2, initial_delay: 0}\n"
    )
    report = tmp_path / "r.json"
    args = ["run", str(tmp_path / "in"), "--force", "--jobs", "4", "-c", str(cfg)]
    result = CliRunner().invoke(app, [*args, "--report", str(report)])
    assert result.exit_code == 3, result.output
    files = json.loads(report.read_text())["files"]
    assert [f["input"] for f in files] == [str(p) for p in paths]
    failed = [f for f in files if f["exit_code"] != 0]
    assert len(failed) == 1 and failed[0]["exit_code"] == 3
    assert "HTTP 400" in failed[0]["error"]
    bad = Path(failed[0]["input"])
    for p in paths:
        assert p.with_name(f"{p.stem}.compact.jsonl").exists() == (p != bad), p
    assert result.stderr.count(": compacted → ") == 11
    assert result.stderr.count(f"{bad}: failed (exit 3)") == 1
    assert len(fake_env.requests) == 12  # 400 is not retried; nobody else was affected
    assert len({r.peer for r in fake_env.requests}) <= 4  # one shared client, kept-alive


def test_batch_retries_stay_per_file(tmp_path: Path, fake_env) -> None:
    """A 500 is retried by the file that got it only: one request per file, plus one."""
    from compactor.testing.fake_openai import status

    fake_env.enqueue(status(500))
    paths = _copies(tmp_path / "in", 9)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "model: {provider: openai, name: m}\nretry: {max_retries: 2, initial_delay: 0}\n"
    )
    report = tmp_path / "r.json"
    args = ["run", *map(str, paths), "--force", "-j", "3", "-c", str(cfg), "--report", str(report)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    files = json.loads(report.read_text())["files"]
    assert all(f["exit_code"] == 0 and f["triggered"] for f in files)
    assert sorted(len(f["attempts"]) for f in files) == [1] * 8 + [2]
    assert len(fake_env.requests) == 10
    fake_env.assert_complete()


def test_batch_jobs_bounds_the_requests_in_flight(tmp_path: Path, fake_env) -> None:
    """--jobs 3 over 10 files: the server never answers more than 3 requests at once, and does
    answer 3 (files beyond the 3 in flight are prepared meanwhile, not sent)."""
    fake_env.latency = 0.15
    paths = _copies(tmp_path / "in", 10)
    args = ["run", str(tmp_path / "in"), "--force", "--jobs", "3", "--model", "openai:m"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(fake_env.requests) == len(paths)
    assert fake_env.peak_in_flight == 3


@pytest.mark.anyio
async def test_request_slot_bounds_only_inside_shared_clients() -> None:
    import asyncio

    from compactor.models.pool import request_slot, shared_clients

    in_flight = peak = 0

    async def call() -> None:
        nonlocal in_flight, peak
        async with request_slot():
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1

    async with shared_clients(requests=2):
        await asyncio.gather(*(call() for _ in range(7)))
    assert peak == 2
    peak = 0
    await asyncio.gather(*(call() for _ in range(7)))  # outside: no bound
    assert peak == 7


def test_batch_outputs_equal_single_runs(tmp_path: Path, fake_env) -> None:
    """Same bytes as `compact run FILE` for each file (the note names each input's path)."""
    paths = _copies(tmp_path / "in", 6)
    result = CliRunner().invoke(
        app, ["run", *map(str, paths), "--force", "-j", "6", "--model", "openai:m"]
    )
    assert result.exit_code == 0, result.output
    for p in paths:
        single = tmp_path / f"{p.stem}.single.jsonl"
        one = CliRunner().invoke(
            app, ["run", str(p), "--force", "--model", "openai:m", "-o", str(single)]
        )
        assert one.exit_code == 0, one.output
        assert p.with_name(f"{p.stem}.compact.jsonl").read_bytes() == single.read_bytes()
    assert len(fake_env.requests) == 12


def test_batch_config_error_is_reported_per_file(tmp_path: Path) -> None:
    """The config file is read once; its error still fails every file with exit 2."""
    paths = _copies(tmp_path / "in", 3)
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("model: {provider: openai, name: m}\nretri: {max_retries: 1}\n")
    report = tmp_path / "r.json"
    result = CliRunner().invoke(
        app, ["run", *map(str, paths), "-c", str(cfg), "--report", str(report)]
    )
    assert result.exit_code == 2, result.output
    files = json.loads(report.read_text())["files"]
    assert [f["exit_code"] for f in files] == [2, 2, 2]
    assert len({f["error"] for f in files}) == 1
    assert "unknown key 'retri'" in files[0]["error"]


def test_batch_sigint_is_130_and_writes_nothing(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from compactor.testing.fake_openai import FakeOpenAI, hang

    paths = _copies(tmp_path / "in", 4)
    server = FakeOpenAI(default=hang()).start()
    try:
        env = dict(os.environ, OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test")
        exe = str(Path(sys.executable).with_name("compact"))
        proc = subprocess.Popen(
            [exe, "run", str(tmp_path / "in"), "--jobs", "2", "--force", "--model", "openai:m"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint,
        )
        deadline = time.monotonic() + 30
        while len(server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        server.stop()
    assert proc.returncode == 130, err.decode()
    assert b"interrupted" in err
    assert sorted(p.name for p in (tmp_path / "in").iterdir()) == [p.name for p in paths]


def test_batch_on_a_terminal_prints_each_line_as_its_file_finishes(
    tmp_path: Path, monkeypatch
) -> None:
    import io

    from rich.console import Console

    from compactor.cli import common

    out = io.StringIO()
    monkeypatch.setattr(
        common,
        "err_console",
        lambda: Console(file=out, force_terminal=True, width=300, color_system=None),
    )
    paths = _copies(tmp_path / "in", 5)
    result = CliRunner().invoke(app, ["run", *map(str, paths), "--force", "--model", "local"])
    assert result.exit_code == 0, result.output
    lines = out.getvalue().splitlines()
    assert sorted(lines) == sorted(
        f"{p}: compacted → {p.with_name(p.stem + '.compact.jsonl')}" for p in paths
    )


def test_batch_report_that_is_one_of_the_batchs_files_is_refused_before_any_work(
    batch_dir: Path,
) -> None:
    files = sorted(batch_dir.glob("*.jsonl"))
    before = {p: p.read_bytes() for p in files}
    out_of_first = files[0].with_name(files[0].stem + ".compact.jsonl")
    for report in (files[1], out_of_first):
        result = CliRunner().invoke(
            app, ["run", *map(str, files), "--force", "--model", "local", "--report", str(report)]
        )
        assert result.exit_code == 2, result.output
        assert "a file of the batch" in result.stderr
        assert {p: p.read_bytes() for p in files} == before
        assert not out_of_first.exists()
