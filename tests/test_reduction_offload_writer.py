"""Issue 30 point 5: ``reduce``'s offload files made by a forked writer process
(:mod:`compactor.reduction.writer`) while the streaming scan goes on.

The same files (names, bytes, modes) and the same transcript as when the run writes them itself;
a full disk met by the writer is exit 6 with nothing left; a writer that dies is replaced by the
run (which then succeeds, every file whole); a signal to the run while the writer works leaves
no file, no output and no writer process."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from compactor.reduction.writer import WRITER_TEST_ENV
from compactor.runs.run_reduce import INLINE_ENV

from .crash_child import COMPACT, child_env
from .test_reduction_cli import compact, small_disk  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the writer process needs fork")


def _session(path: Path, rounds: int, size: int = 700) -> None:
    """An openai session of ``rounds`` tool rounds; every seventh call id is used again (with
    another result: a hashed name), some results are not ASCII, one is a placeholder already,
    one is longer than the truncation limit (made in line, not by the writer)."""
    recs: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for i in range(rounds):
        cid = f"call_{i % 7}" if i % 7 == 0 and i else f"call_{i}"
        recs.append(
            {
                "role": "assistant",
                "content": f"step {i}",
                "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": "sh", "arguments": "{}"}}
                ],
            }
        )
        body = f"out {i} " + ("é✓ " if i % 5 == 0 else "z") * size
        if i == 3:
            body = "[Old tool result content cleared]"
        if i == 11:
            body = "y" * 9_000
        recs.append({"role": "tool", "tool_call_id": cid, "content": body})
    recs.append({"role": "assistant", "content": "done"})
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), stat.S_IMODE(p.lstat().st_mode))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _run(tmp: Path, name: str, *extra: str, **env: str) -> Any:
    return compact(
        tmp, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", f"{name}.jsonl",
        *extra, config={"reduction": {"max_length_for_trunc": 2_000}}, **env,
    )  # fmt: skip


def test_the_writer_process_makes_the_files_the_run_would_make_itself(tmp_path: Path) -> None:
    _session(tmp_path / "s.jsonl", 400)
    proc = _run(tmp_path, "a", **{INLINE_ENV: "0"})
    assert proc.returncode == 0, proc.stderr
    proc = _run(tmp_path, "b", **{INLINE_ENV: "1"})
    assert proc.returncode == 0, proc.stderr
    a, b = _files(tmp_path / "a.offload"), _files(tmp_path / "b.offload")
    assert a == b and len(a) == 400 - 2  # the placeholder and the retained round stay
    assert any("-" in name for name in a)  # reused call ids: hashed names
    assert "trunc/call_11" in a and a["trunc/call_11"][0] == b"y" * 9_000
    out = (tmp_path / "a.jsonl").read_text()
    assert out == (tmp_path / "b.jsonl").read_text().replace("b.offload", "a.offload")
    assert stat.S_IMODE((tmp_path / "a.offload" / "clear").stat().st_mode) == 0o700


def test_a_full_disk_met_by_the_writer_process_is_exit_6_and_leaves_nothing(
    tmp_path: Path,
    small_disk: Path,  # noqa: F811 - the fixture
) -> None:
    """Every result is short (the writer process makes every file): the 64 KiB tmpfs fills
    after a few; the writer removes its files and says why, the run exits 6."""
    src = tmp_path / "s.jsonl"
    _session(src, 200, size=2_000)
    before = src.read_bytes()
    proc = compact(
        tmp_path, "run", "s.jsonl", "--strategy", "reduce", "--force", "-o", "out.jsonl",
        "--offload-dir", str(small_disk / "off"), COMPACT_OFFLOAD_INLINE="0",
    )  # fmt: skip
    assert proc.returncode == 6, proc.stderr
    err = proc.stderr.decode()
    assert f"{small_disk / 'off' / 'clear'}/call_" in err
    assert "completely: No space left on device; nothing was written" in err
    assert src.read_bytes() == before
    assert not (tmp_path / "out.jsonl").exists()
    assert list(small_disk.iterdir()) == []  # no file, no folder


def test_a_writer_process_that_dies_is_replaced_by_the_run(tmp_path: Path) -> None:
    _session(tmp_path / "s.jsonl", 400)
    proc = _run(tmp_path, "a", **{WRITER_TEST_ENV: "die:25", INLINE_ENV: "0"})
    assert proc.returncode == 0, proc.stderr
    proc = _run(tmp_path, "b", **{INLINE_ENV: "1"})
    assert proc.returncode == 0, proc.stderr
    assert _files(tmp_path / "a.offload") == _files(tmp_path / "b.offload")
    out = (tmp_path / "a.jsonl").read_text()
    assert out == (tmp_path / "b.jsonl").read_text().replace("b.offload", "a.offload")


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_the_writer_works_leaves_nothing(tmp_path: Path, sig: int) -> None:
    """The writer stops after a few files (test hook) and the run waits for it; the signal
    lands there: the run kills the writer, removes every file and folder, writes no output."""
    src = tmp_path / "s.jsonl"
    _session(src, 300)
    before = src.read_bytes()
    out, folder = tmp_path / "out.jsonl", tmp_path / "out.offload"
    proc = subprocess.Popen(
        [COMPACT, "run", str(src), "--strategy", "reduce", "--force", "-o", str(out)],
        env=child_env({WRITER_TEST_ENV: "pause:5", INLINE_ENV: "0"}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    writers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        files = list((folder / "clear").glob("*")) if folder.exists() else []
        writers = _children(proc.pid)
        if len(files) >= 5 and writers:
            break
        time.sleep(0.01)
    assert writers, "no writer process seen"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err.decode(errors="replace")
    assert (
        err.decode()
        .splitlines()[-1]
        .startswith(f"compact: interrupted by {signal.Signals(sig).name}; nothing was written")
    )
    assert not folder.exists()
    assert not out.exists()
    assert src.read_bytes() == before
    assert not [w for w in writers if _alive(w)]


def test_a_writer_process_dies_with_its_run(tmp_path: Path) -> None:
    """The run killed outright (SIGKILL: nothing of it runs again) while its writer works:
    the writer dies too (``PR_SET_PDEATHSIG``) rather than go on alone."""
    src = tmp_path / "s.jsonl"
    _session(src, 300)
    folder = tmp_path / "out.offload"
    proc = subprocess.Popen(
        [COMPACT, "run", str(src), "--strategy", "reduce", "--force", "-o", "out.jsonl"],
        env=child_env({WRITER_TEST_ENV: "pause:5", INLINE_ENV: "0"}),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    writers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        files = list((folder / "clear").glob("*")) if folder.exists() else []
        writers = _children(proc.pid)
        if len(files) >= 5 and writers:
            break
        time.sleep(0.01)
    assert writers, "no writer process seen"
    proc.kill()
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while [w for w in writers if _alive(w)] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [w for w in writers if _alive(w)]


@pytest.mark.parametrize(
    ("load", "running", "by_writer"),
    [(0.0, 9, True), (50.0, 1, False), (-0.2, 1, True), (-0.2, 0, False), (-0.2, None, False)],
)
def test_the_writer_process_is_used_only_when_a_cpu_is_idle(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    load: float,
    running: int | None,
    by_writer: bool,
) -> None:
    """Unset ``COMPACT_OFFLOAD_INLINE``: the run asks the load average; on a busy machine the
    writer would only add its own work, so the run makes the files itself (same files). Less
    than half a CPU under the CPUs (a negative ``load`` here: that much under them), the
    tasks runnable right now decide: fewer than the CPUs (``running`` 1; 0 here: as many as
    the CPUs), a writer; as many, or not known (None), in line."""
    import compactor.reduction.offload as offload
    import compactor.reduction.writer as writer
    from compactor.io import sync_filesystem

    cpus = len(os.sched_getaffinity(0))
    if cpus < 2:
        pytest.skip("one CPU: never a writer process")
    if load < 0:
        load += cpus
    if running == 0:
        running = cpus
    monkeypatch.setattr(writer, "_running_now", lambda: running)
    log = tmp_path / "syncs"

    def spy(path: Any) -> None:
        with log.open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        sync_filesystem(path)

    monkeypatch.setattr(offload, "sync_filesystem", spy)
    monkeypatch.setattr(writer, "sync_filesystem", spy)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.delenv(INLINE_ENV, raising=False)
    _session(tmp_path / "s.jsonl", 300)
    proc = _run(tmp_path, "a")
    assert proc.returncode == 0, proc.stderr
    pids = {int(x) for x in log.read_text().split()}
    assert (pids != {os.getpid()}) is by_writer
    assert len(_files(tmp_path / "a.offload")) == 300 - 2


def test_the_writer_process_never_clears_a_result_carrying_the_users_words(
    tmp_path: Path,
) -> None:
    """The scan names files only for results the clearing will take without testing them again:
    a result carrying the user's words (a rejection with what the user said, an answer to the
    agent's questions) is never named, never cleared (issue 30; blind check 21)."""
    from .test_reduction_user_words import ANSWERED, REJECTED

    _session(tmp_path / "s.jsonl", 60)
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    words = {"call_20": REJECTED, "call_30": ANSWERED}
    for rec in recs:
        if rec.get("role") == "tool" and rec["tool_call_id"] in words:
            rec["content"] = words[rec["tool_call_id"]]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    for name, inline in (("a", "0"), ("b", "1")):
        proc = _run(tmp_path, name, **{INLINE_ENV: inline})
        assert proc.returncode == 0, proc.stderr
        out = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        kept = {r["tool_call_id"]: r["content"] for r in out if r.get("role") == "tool"}
        assert kept["call_20"] == REJECTED and kept["call_30"] == ANSWERED
        assert not (tmp_path / f"{name}.offload" / "clear" / "call_20").exists()
        assert not (tmp_path / f"{name}.offload" / "clear" / "call_30").exists()
        assert len(_files(tmp_path / f"{name}.offload")) == 60 - 2 - 2
    assert _files(tmp_path / "a.offload") == _files(tmp_path / "b.offload")


def test_the_writer_process_names_no_file_for_a_running_jobs_start(tmp_path: Path) -> None:
    """The scan's look-ahead names no file for a result that started a background job: the
    clearing keeps a running job's start whole (issue 30; blind check 23, cc-formula)."""
    from .test_reduction_jobs import SHELL

    _session(tmp_path / "s.jsonl", 60)
    lines = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    recs = [json.loads(line) for line in lines]
    for rec in recs:
        if rec.get("role") == "tool" and rec["tool_call_id"] == "call_20":
            rec["content"] = SHELL
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    for name, inline in (("a", "0"), ("b", "1")):
        proc = _run(tmp_path, name, **{INLINE_ENV: inline})
        assert proc.returncode == 0, proc.stderr
        out = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        kept = {r["tool_call_id"]: r["content"] for r in out if r.get("role") == "tool"}
        assert kept["call_20"] == SHELL
        assert not (tmp_path / f"{name}.offload" / "clear" / "call_20").exists()
        assert len(_files(tmp_path / f"{name}.offload")) == 60 - 2 - 1
    assert _files(tmp_path / "a.offload") == _files(tmp_path / "b.offload")
