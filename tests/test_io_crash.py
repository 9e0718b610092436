"""Crash safety (SPEC §9.5): kill -9 mid-write leaves the old file or the complete new one;
Ctrl-C during a model call exits 130 and writes nothing.

Every test runs a real process. Where the kill or the signal must land at a given point of a
write (half the bytes written, just before or just after the rename), the process is
``tests/crash_child.py``: the real ``main()``, held at that point until the test signals it, so
the signal lands there however busy the machine is. Kills at an arbitrary moment use the
installed console script.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compactor.formats.registry import read_transcript
from compactor.testing.fake_openai import FakeOpenAI, hang

from .fake_server_cli import default_sigint

COMPACT = str(Path(sys.executable).parent / "compact")
CRASH_CHILD = str(Path(__file__).with_name("crash_child.py"))
BIG_MB = 24


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ~24 MB openai-chat transcript (mostly user turns, so a compacted file stays large)."""
    p: Path = tmp_path_factory.mktemp("big") / "big.jsonl"
    filler = "lorem ipsum dolor sit amet " * 400  # ~10 KB
    n = BIG_MB * 1024 * 1024 // len(filler)
    with p.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"role": "system", "content": "You are a helpful assistant."}) + "\n")
        for i in range(n):
            role = "user" if i % 2 == 0 else "assistant"
            fh.write(json.dumps({"role": role, "content": f"{i} {filler}"}) + "\n")
    return p


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra or {})
    return env


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _held(
    args: list[str], point: str, target: Path, marker: Path
) -> tuple[list[str], dict[str, str]]:
    """argv and environment entries of ``compact ARGS`` held at ``point`` of writing ``target``
    (see ``tests/crash_child.py``)."""
    return [sys.executable, CRASH_CHILD, *args], {
        "CRASH_HOLD": f"{point}:{target}",
        "CRASH_MARKER": str(marker),
    }


def _wait_for(marker: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until the held process reached its point (fails if it ended or took 60 s)."""
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, f"the process ended on its own (exit {proc.returncode})"
        assert time.monotonic() < deadline, "the process never reached its hold point"
        time.sleep(0.01)


def _kill_after(proc: subprocess.Popen[bytes], delay: float) -> int:
    """SIGKILL ``proc`` after ``delay`` seconds, wherever it is then (unless it ended)."""
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout=30)


def _parses_fully(p: Path) -> bool:
    raw = p.read_bytes()
    t = read_transcript(str(p), raw)
    return raw.endswith(b"\n") and len(t.messages) > 0


@pytest.mark.parametrize("delay", [None, 0.05, 0.6])
def test_sigkill_during_output_write(big, tmp_path, delay):
    # Not triggered (huge threshold): the output is a 24 MB byte-for-byte copy, written atomically.
    # delay None: killed with half of it in the temp file; else: after `delay`, wherever it is.
    cfg = tmp_path / "c.yaml"
    cfg.write_text("trigger: {context_tokens: 1000000000}\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "big.out.jsonl"
    out.write_bytes(b'{"role": "user", "content": "old"}\n')
    old = out.read_bytes()
    before = _sha(big)
    args = ["run", str(big), "-o", str(out), "-c", str(cfg), "-q"]
    if delay is None:
        marker = tmp_path / "held"
        argv, env = _held(args, "write", out, marker)
        proc = subprocess.Popen(
            argv, env=_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_for(marker, proc)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        [temp] = _temps(out_dir)  # killed mid-write: the partial temp file is left behind
        assert 0 < temp.stat().st_size < big.stat().st_size
    else:
        proc = subprocess.Popen(
            [COMPACT, *args], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _kill_after(proc, delay)
    data = out.read_bytes()
    assert data == old or data == big.read_bytes(), "target is neither old nor complete new"
    if delay is None:
        assert data == old
    assert _sha(big) == before


@pytest.mark.parametrize("delay", [None, 0.3, 1.5])
def test_sigkill_during_in_place(big, tmp_path, delay):
    # delay None: killed with half of the 24 MB archive copy written (the compacted file itself
    # is small); else: after `delay`, wherever it is.
    copy = tmp_path / "work" / "session.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(big.read_bytes())
    original = _sha(copy)
    archive = tmp_path / "archive"
    archive.mkdir()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {archive}\n")
    args = [
        *("run", str(copy), "--in-place", "--force", "-c", str(cfg), "-q"),
        *("--model", "openai:gpt-4o-mini"),
    ]
    with FakeOpenAI() as fake:
        env = {"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}
        if delay is None:
            marker = tmp_path / "held"
            argv, hold = _held(args, "write", archive, marker)
            proc = subprocess.Popen(
                argv,
                env=_env({**env, **hold}),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _wait_for(marker, proc)
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=30) == -signal.SIGKILL
        else:
            proc = subprocess.Popen(
                [COMPACT, *args],
                env=_env(env),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            _kill_after(proc, delay)
    if delay is None:  # killed while archiving: the input is untouched, nothing was archived
        assert _sha(copy) == original
        assert [
            p.name for p in archive.rglob("*") if p.is_file() and not p.name.endswith(".tmp")
        ] == []
        return
    if _sha(copy) == original:
        return  # killed before the replace: the original is intact in place
    # replaced: the new file is complete, and the original survives in the archive
    assert _parses_fully(copy)
    archived = [p for p in archive.glob("*.jsonl") if _sha(p) == original]
    assert archived, "the file was replaced but the original is not in the archive"


@pytest.mark.parametrize("side", ["before", "after"])
def test_sigkill_at_the_rename_in_place(tmp_path, side):
    # The process is held just before (or just after) os.replace of the compacted file over the
    # input; SIGKILL lands there. Before: the input is untouched (and the complete new file sits
    # in the temp file). After: the input is the complete new file. Both times the original is
    # already in the archive.
    work = tmp_path / "work"
    work.mkdir()
    src = work / "session.jsonl"
    lines = [{"role": "user", "content": f"question {i} " * 20} for i in range(20)]
    src.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    original = src.read_bytes()
    archive = tmp_path / "archive"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {archive}\n")
    marker = tmp_path / "held"
    argv, env = _held(
        [
            *("run", str(src), "--in-place", "--force", "-c", str(cfg), "-q"),
            *("--model", "openai:gpt-4o-mini"),
        ],
        side,
        src,
        marker,
    )
    with FakeOpenAI() as fake:
        env.update({"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": fake.base_url})
        proc = subprocess.Popen(
            argv, env=_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_for(marker, proc)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL, "the process ended on its own"
    archived = [p.read_bytes() for p in archive.glob("*.jsonl")]
    assert archived == [original], "the original is not in the archive"
    left = [p for p in work.iterdir() if p.name.endswith(".tmp")]
    if side == "before":
        assert src.read_bytes() == original
        assert len(left) == 1, "killed before the rename: the temp file holds the new file"
        assert _parses_fully(left[0])
    else:
        assert src.read_bytes() != original
        assert _parses_fully(src)
        assert left == []


def test_in_place_completes_and_archives(tmp_path):
    src = tmp_path / "s.jsonl"
    lines = [{"role": "user", "content": f"question {i} " * 20} for i in range(20)]
    src.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    original = src.read_bytes()
    archive = tmp_path / "archive"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {archive}\n")
    with FakeOpenAI() as fake:
        proc = subprocess.run(
            [
                COMPACT,
                "run",
                str(src),
                "--in-place",
                "--force",
                "-c",
                str(cfg),
                "-q",
                "--model",
                "openai:gpt-4o-mini",
            ],
            env=_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() != original
    assert _parses_fully(src)
    assert [p.read_bytes() for p in archive.glob("*.jsonl")] == [original]


@pytest.mark.parametrize("in_place", [False, True])
def test_sigint_during_model_call_exits_130_and_writes_nothing(tmp_path, in_place):
    src = tmp_path / "s.jsonl"
    src.write_bytes(
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    original = src.read_bytes()
    out = tmp_path / "out.jsonl"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {tmp_path / 'archive'}\n")
    target = ["--in-place"] if in_place else ["-o", str(out)]
    with FakeOpenAI(default=hang()) as fake:
        proc = subprocess.Popen(
            [
                COMPACT,
                "run",
                str(src),
                *target,
                "--force",
                "-c",
                str(cfg),
                "--model",
                "openai:gpt-4o-mini",
            ],
            env=_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert fake.requests, "the model was never called"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err.decode(errors="replace")
    assert b"Traceback" not in err
    assert len(err.decode(errors="replace").splitlines()) <= 25
    assert not out.exists()
    assert src.read_bytes() == original
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# -- SIGINT / SIGTERM / SIGHUP (issue 15, rule 5) --------------------------------------------------

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def _default_signals() -> None:
    """``preexec_fn``: the signals the test sends back to their default action (a shell may
    start the test run with them ignored, and ignored signals stay ignored across exec)."""
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_during_the_model_call_exits_128_plus_n_and_says_what_was_written(tmp_path, sig):
    src = tmp_path / "s.jsonl"
    src.write_bytes(
        b'{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n'
    )
    original = src.read_bytes()
    report = tmp_path / "r.json"
    with FakeOpenAI(default=hang()) as fake:
        proc = subprocess.Popen(
            [
                *(COMPACT, "run", str(src), "--in-place", "--force", "--report", str(report)),
                *("--model", "openai:gpt-4o-mini"),
            ],
            env=_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_default_signals,
        )
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert fake.requests, "the model was never called"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    text = err.decode(errors="replace")
    assert proc.returncode == 128 + sig, text
    assert "Traceback" not in text
    name = signal.Signals(sig).name
    rep = json.loads(report.read_text())
    archived = rep["written"]["archive"]  # --in-place archived the original first
    assert text.strip().splitlines()[-1] == (
        f"compact: interrupted by {name}; written: archive {archived}"
    )
    assert rep["exit_code"] == 128 + sig and rep["error"] == f"interrupted by {name}"
    assert Path(archived).read_bytes() == original
    assert src.read_bytes() == original
    assert _temps(tmp_path) == []


def _signal_at_the_rename(
    tmp_path: Path, sig: int, side: str, in_place: bool
) -> tuple[subprocess.Popen[bytes], str, Path, bytes]:
    work = tmp_path / "work"
    work.mkdir()
    src = work / "session.jsonl"
    # long answers: a forced compaction must not grow the file (loop_guard.max_growth)
    lines = [
        {"role": role, "content": f"{role} {i} " * (20 if role == "user" else 200)}
        for i in range(20)
        for role in ("user", "assistant")
    ]
    src.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    original = src.read_bytes()
    out = src if in_place else work / "out.jsonl"
    target = ["--in-place"] if in_place else ["-o", str(out)]
    marker = tmp_path / "held"
    argv, env = _held(
        ["run", str(src), *target, "--force", "--model", "local", "-q"], side, out, marker
    )
    proc = subprocess.Popen(
        argv,
        env=_env(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    _wait_for(marker, proc)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    return proc, err.decode(errors="replace"), out, original


@pytest.mark.parametrize("side", ["before", "after"])
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_signal_at_the_rename_is_reported_truthfully(tmp_path, sig, side):
    # The case: Ctrl-C during the final write said "nothing was written" when the file
    # was in fact written. Held just before os.replace, the signal leaves the target as it was
    # and the temp file is removed; just after, the target is complete and the line says so.
    proc, err, out, _ = _signal_at_the_rename(tmp_path, sig, side, in_place=False)
    assert proc.returncode == 128 + sig, err
    last = err.strip().splitlines()[-1]
    name = signal.Signals(sig).name
    assert _temps(out.parent) == []
    if side == "before":
        assert not out.exists()
        assert last == f"compact: interrupted by {name}; nothing was written"
    else:
        assert _parses_fully(out)
        assert last == f"compact: interrupted by {name}; written: output {out}"


@pytest.mark.parametrize("side", ["before", "after"])
def test_sigterm_at_the_in_place_rename_is_reported_truthfully(tmp_path, side):
    proc, err, src, original = _signal_at_the_rename(tmp_path, signal.SIGTERM, side, True)
    assert proc.returncode == 143, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("compact: interrupted by SIGTERM; written: archive ")
    archived = Path(last.split("written: archive ", 1)[1].split(";")[0].split(", ")[0])
    assert archived.read_bytes() == original
    assert _temps(src.parent) == []
    if side == "before":
        assert src.read_bytes() == original
        assert last.endswith(f"; not written: output {src}")
    else:
        assert src.read_bytes() != original and _parses_fully(src)
        assert last.endswith(f", output {src}")
