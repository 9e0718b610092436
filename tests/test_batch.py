"""``compact run A B … --jobs N``: batch compaction (several files or a directory)."""

from __future__ import annotations

import json
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.testing.fake_openai import FakeOpenAI

from .fake_server_cli import default_sigint

SAMPLES = Path(__file__).resolve().parent.parent / "sample_transcripts"
# 511 tokens: big enough that a forced compaction does not double it (loop_guard.max_growth)
SHORT = SAMPLES / "skills-session.jsonl"
CODING = SAMPLES / "coding-session.jsonl"
LONG = SAMPLES / "coding-session-long.jsonl"


@pytest.fixture
def batch_dir(tmp_path: Path) -> Path:
    shutil.copy(SHORT, tmp_path / "a.jsonl")
    shutil.copy(CODING, tmp_path / "b.jsonl")
    shutil.copy(SHORT, tmp_path / "c.jsonl")
    sub = tmp_path / "dir"
    sub.mkdir()
    shutil.copy(CODING, sub / "d.jsonl")
    shutil.copy(SHORT, sub / "e.jsonl")
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


def test_batch_failing_file_gets_its_exit_code(
    batch_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    """``n`` different transcripts (a sample plus a line of its own: identical files would
    share one cached summary, and these tests count one request per file)."""
    folder.mkdir()
    paths = [folder / f"t{i:02d}.jsonl" for i in range(n)]
    for i, p in enumerate(paths):
        own = json.dumps({"role": "user", "content": f"and this is file {i}"}) + "\n"
        p.write_bytes((CODING if i % 3 == 0 else SHORT).read_bytes() + own.encode())
    return paths


def test_batch_isolates_one_failed_model_call(tmp_path: Path, fake_env: FakeOpenAI) -> None:
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
    assert len(re.findall(r": compacted, [\d,]+ → [\d,]+ tokens → ", result.stderr)) == 11
    assert result.stderr.count(f"{bad}: failed (exit 3)") == 1
    assert "12 files: 11 compacted, 0 unchanged, 1 failed; " in result.stderr
    assert len(fake_env.requests) == 12  # 400 is not retried; nobody else was affected
    assert len({r.peer for r in fake_env.requests}) <= 4  # one shared client, kept-alive


def test_batch_retries_stay_per_file(tmp_path: Path, fake_env: FakeOpenAI) -> None:
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


def test_batch_jobs_bounds_the_requests_in_flight(tmp_path: Path, fake_env: FakeOpenAI) -> None:
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


def test_batch_outputs_equal_single_runs(tmp_path: Path, fake_env: FakeOpenAI) -> None:
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
    # one request per file: the single runs got their summaries from the cache the batch filled
    assert len(fake_env.requests) == 6


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


def test_batch_on_a_terminal_shows_each_line_as_its_file_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each file's line with an N/M counter on a status line as it finishes, then every line
    in natural order and the summary (issue 32)."""
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
    text = out.getvalue()
    assert sorted(set(re.findall(r"(\d)/5 /", text))) == ["1", "2", "3", "4", "5"]
    lines = text.rsplit("\x1b[2K", 1)[1].splitlines()  # after the status line is cleared
    *files, summary = lines
    assert files == sorted(files)  # natural order (t00 ... t04)
    assert sorted(re.sub(r"[\d,]+ → [\d,]+ tokens", "N → M tokens", x) for x in files) == sorted(
        f"{p}: compacted, N → M tokens → {p.with_name(p.stem + '.compact.jsonl')}" for p in paths
    )
    assert summary.startswith("5 files: 5 compacted, 0 unchanged, 0 failed; ")


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


# -- issue 23: folders, earlier outputs, clashing outputs, --output-dir, totals -----------------


def _run(*args: str) -> Any:
    return CliRunner(env={"NO_COLOR": "1"}).invoke(app, ["run", *args])


def test_a_folder_alone_is_a_batch_without_jobs(batch_dir: Path) -> None:
    result = _run(str(batch_dir / "dir"), "--force", "--model", "local")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (batch_dir / "dir").glob("*.compact.jsonl")) == [
        "d.compact.jsonl",
        "e.compact.jsonl",
    ]
    assert "2 files: 2 compacted, 0 unchanged, 0 failed; " in result.stderr


def test_running_again_never_compacts_earlier_outputs(batch_dir: Path) -> None:
    folder = batch_dir / "dir"
    first = _run(str(folder), "--force", "--model", "local")
    assert first.exit_code == 0, first.output
    outputs = {p: p.read_bytes() for p in folder.glob("*.compact.jsonl")}
    report = batch_dir / "r.json"
    again_folder = _run(str(folder), "--force", "--model", "local")
    # The shell's glob hands over the outputs too: they are left out all the same.
    again_glob = _run(
        *map(str, sorted(folder.glob("*.jsonl"))),
        "--force",
        "--model",
        "local",
        "--report",
        str(report),
    )
    for result in (again_folder, again_glob):
        assert result.exit_code == 0, result.output
        assert "2 files: 2 compacted, 0 unchanged, 0 failed, 2 earlier outputs skipped" in (
            result.stderr
        )
    assert not list(batch_dir.rglob("*.compact.compact.jsonl"))
    assert sorted(json.loads(report.read_text())["skipped"]) == sorted(map(str, outputs))
    assert {p.name for p in folder.iterdir()} == {"d.jsonl", "e.jsonl", "notes.txt"} | {
        p.name for p in outputs
    }


def test_an_earlier_output_named_alone_is_compacted(batch_dir: Path) -> None:
    out = batch_dir / "a.compact.jsonl"
    out.write_bytes((batch_dir / "a.jsonl").read_bytes())
    result = _run(str(out), "--force", "--model", "local")
    assert result.exit_code == 0, result.output
    assert (batch_dir / "a.compact.compact.jsonl").exists()


def test_a_folder_of_only_earlier_outputs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.compact.jsonl").write_bytes(SHORT.read_bytes())
    result = _run(str(tmp_path), "--model", "local")
    assert result.exit_code == 2
    assert "only earlier outputs" in result.stderr


def test_two_inputs_with_one_output_are_refused_before_any_work(batch_dir: Path) -> None:
    (batch_dir / "a.txt").write_bytes((batch_dir / "a.jsonl").read_bytes())
    before = sorted(p.name for p in batch_dir.iterdir())
    result = _run(
        str(batch_dir / "a.jsonl"),
        str(batch_dir / "b.jsonl"),
        str(batch_dir / "a.txt"),
        "--force",
        "--model",
        "local",
    )
    assert result.exit_code == 2
    assert (
        f"'{batch_dir / 'a.jsonl'}' and '{batch_dir / 'a.txt'}' would both write "
        f"'{batch_dir / 'a.compact.jsonl'}'; run them separately or use --output-dir"
    ) in result.stderr
    assert sorted(p.name for p in batch_dir.iterdir()) == before  # b was not compacted either
    # With --output-dir they keep their own names: no clash.
    out = batch_dir / "out"
    out.mkdir()
    result = _run(
        str(batch_dir / "a.jsonl"),
        str(batch_dir / "a.txt"),
        "--output-dir",
        str(out),
        "--force",
        "--model",
        "local",
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["a.jsonl", "a.txt"]


def test_output_dir_writes_each_result_under_its_input_name(batch_dir: Path) -> None:
    out = batch_dir / "small"
    out.mkdir()
    result = _run(
        str(batch_dir / "dir"),
        str(batch_dir / "a.jsonl"),
        "--output-dir",
        str(out),
        "--force",
        "--model",
        "local",
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["a.jsonl", "d.jsonl", "e.jsonl"]
    assert not list(batch_dir.rglob("*.compact.jsonl"))
    assert f"{batch_dir / 'a.jsonl'}: compacted, " in result.stderr
    assert f" → {out / 'a.jsonl'}\n" in result.stderr
    # one file: the same folder, the same name
    single = _run(str(batch_dir / "b.jsonl"), "--output-dir", str(out), "--model", "local")
    assert single.exit_code == 0, single.output
    assert (out / "b.jsonl").read_bytes() == (batch_dir / "b.jsonl").read_bytes()  # untriggered


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--output-dir", "a.jsonl/sub"], "--output-dir '{tmp}/a.jsonl/sub': '{tmp}/a.jsonl' is"),
        (["--output-dir", "a.jsonl"], "--output-dir '{tmp}/a.jsonl' is not a folder"),
        (["--output-dir", "."], "--output-dir '{tmp}' holds '{tmp}/a.jsonl'"),
        (["--output-dir", "dir", "--in-place"], "use either --output-dir or --in-place"),
        (["--output-dir", "dir", "-o", "x"], "-o/--output works with one input only"),
    ],
)
def test_output_dir_is_planned_before_any_work(
    batch_dir: Path, extra: list[str], message: str
) -> None:
    before = {p: p.read_bytes() for p in batch_dir.rglob("*") if p.is_file()}
    names = ("a.jsonl/sub", "a.jsonl", ".", "dir")
    extra = [str(batch_dir / e) if e in names else e for e in extra]
    result = _run(
        str(batch_dir / "a.jsonl"),
        str(batch_dir / "b.jsonl"),
        *extra,
        "--force",
        "--model",
        "local",
    )
    assert result.exit_code == 2, result.output
    assert message.format(tmp=batch_dir) in result.stderr
    assert {p: p.read_bytes() for p in batch_dir.rglob("*") if p.is_file()} == before


def test_output_dir_with_one_input_refuses_stdin(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "-", "--output-dir", str(tmp_path)], input="")
    assert result.exit_code == 2
    assert "--output-dir needs a file input" in result.stderr
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("inputs", [1, 2], ids=["one-file", "batch"])
def test_a_missing_output_dir_is_created_private(
    batch_dir: Path, tmp_path_factory: pytest.TempPathFactory, inputs: int
) -> None:
    """Issue 32 point 2: `compact run logs/ --output-dir small/` works before small/ exists;
    the folder (and a missing parent) is made 0700, as the archive and the cache are."""
    base = tmp_path_factory.mktemp("out")
    small = base / "new" / "small"
    files = [str(batch_dir / "a.jsonl"), str(batch_dir / "b.jsonl")][:inputs]
    result = _run(*files, "--output-dir", f"{small}/", "--model", "local")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in small.iterdir()) == ["a.jsonl", "b.jsonl"][:inputs]
    for folder in (small, small.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder


def test_a_refused_plan_leaves_no_output_dir_behind(tmp_path: Path) -> None:
    """The folder is created only for a plan that is accepted: a report equal to the input
    refuses the run (exit 2) and the folder made for it is removed again."""
    src = tmp_path / "s.jsonl"
    shutil.copy(SHORT, src)
    result = _run(str(src), "--output-dir", str(tmp_path / "out" / "deep"), "--report", str(src))
    assert result.exit_code == 2, result.output
    assert "--report" in result.stderr and "is the input file" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_two_inputs_of_one_name_into_one_output_dir_are_refused(tmp_path: Path) -> None:
    for sub in ("x", "y", "out"):
        (tmp_path / sub).mkdir()
    shutil.copy(SHORT, tmp_path / "x" / "s.jsonl")
    shutil.copy(CODING, tmp_path / "y" / "s.jsonl")
    result = _run(str(tmp_path / "x"), str(tmp_path / "y"), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert f"would both write '{tmp_path / 'out' / 's.jsonl'}'" in result.stderr
    assert "use --output-dir" not in result.stderr
    assert not list((tmp_path / "out").iterdir())


def test_each_line_shows_its_tokens_and_the_summary_line_the_totals(batch_dir: Path) -> None:
    shutil.copy(LONG, batch_dir / "long.jsonl")
    (batch_dir / "bad.jsonl").write_text('{"role": "user", "content": "hi"}\n{not json\n')
    report = batch_dir / "r.json"
    names = ["a.jsonl", "long.jsonl", "bad.jsonl", "b.jsonl"]
    result = _run(*(str(batch_dir / n) for n in names), "--model", "local", "--report", str(report))
    assert result.exit_code == 2, result.output
    data = json.loads(report.read_text())
    by_name = {Path(f["input"]).name: f for f in data["files"]}
    lines = result.stderr.splitlines()
    for name in ("a.jsonl", "b.jsonl"):
        f = by_name[name]
        assert any(
            line.startswith(
                f"{batch_dir / name}: unchanged (not triggered), {f['tokens_before']:,} tokens"
            )
            for line in lines
        )
    long = by_name["long.jsonl"]
    assert (
        f"{batch_dir / 'long.jsonl'}: compacted, {long['tokens_before']:,} → "
        f"{long['tokens_after']:,} tokens → {batch_dir / 'long.compact.jsonl'}"
    ) in lines
    assert any(line.startswith(f"{batch_dir / 'bad.jsonl'}: failed (exit 2)") for line in lines)
    totals = data["totals"]
    ok = [f for f in data["files"] if f["exit_code"] == 0]
    assert totals["files"] == 4
    assert (totals["compacted"], totals["unchanged"], totals["failed"]) == (1, 2, 1)
    assert totals["tokens_before"] == sum(f["tokens_before"] for f in ok)
    assert totals["tokens_after"] == sum(f["tokens_after"] for f in ok)
    assert totals["duration_s"] >= max(f["duration_s"] for f in data["files"])
    summary = lines[-1]
    assert re.fullmatch(
        rf"4 files: 1 compacted, 2 unchanged, 1 failed; {totals['tokens_before']:,} → "
        rf"{totals['tokens_after']:,} tokens; \d+\.\ds",
        summary,
    ), summary


def test_quiet_batch_prints_nothing(batch_dir: Path) -> None:
    result = _run(str(batch_dir / "dir"), "--quiet", "--model", "local")
    assert result.exit_code == 0
    assert result.stderr == ""


@given(
    st.lists(
        st.tuples(
            st.sampled_from([0, 0, 2, 3]),
            st.booleans(),
            st.integers(0, 10**6),
            st.integers(0, 10**6),
        ),
        max_size=20,
    )
)
def test_batch_totals_add_up(rows: list[tuple[int, bool, int, int]]) -> None:
    from compactor.runs.batch import batch_totals
    from compactor.runs.runner import RunResult

    results = [
        RunResult(
            input=f"{i}.jsonl",
            output="",
            exit_code=code,
            triggered=trig,
            tokens_before=before,
            tokens_after=after if trig else before,
        )
        for i, (code, trig, before, after) in enumerate(rows)
    ]
    totals = batch_totals(results, 1.0)
    assert totals["compacted"] + totals["unchanged"] + totals["failed"] == totals["files"]
    assert totals["failed"] == sum(1 for code, *_ in rows if code)
    assert totals["tokens_before"] == sum(b for code, _, b, _ in rows if code == 0)
    assert totals["tokens_after"] == sum((a if t else b) for code, t, b, a in rows if code == 0)


def test_the_library_leaves_the_cyclic_collector_alone(
    tmp_path: Path, fake_env: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch with an openai model (its backend imported, its config built once before the
    loop) never disables, freezes or re-enables the process's collector: that is the caller's."""
    import asyncio
    import gc

    from compactor.runs.batch import run_batch
    from compactor.runs.runner import RunOptions

    def touched(*args: Any) -> None:
        raise AssertionError("the library touched the cyclic GC")

    for name in ("disable", "enable", "freeze", "unfreeze"):
        monkeypatch.setattr(gc, name, touched)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("model: {provider: openai, name: m}\ncache: false\n")
    paths = _copies(tmp_path / "in", 3)
    base = RunOptions(input="", force=True, config=str(cfg))
    results = asyncio.run(run_batch([str(p) for p in paths], base, jobs=2))
    assert [r.exit_code for r in results] == [0, 0, 0]
    assert len(fake_env.requests) == 3
