"""Crash safety of the writes (SPEC §9.5): ``kill -9`` while the output, the archive copy or an
``--in-place`` replacement is being written leaves the old file or the complete new one, and
the original is in the archive before the input is replaced.

Every test runs a real process. Where the kill must land at a given point of a write (half the
bytes written, just before or just after the rename), the process is ``tests/crash_child.py``:
the real ``main()``, held at that point until the test kills it, so the kill lands there however
busy the machine is. Kills at an arbitrary moment use the installed console script. Signals
(SIGINT, SIGTERM, SIGHUP) are in ``test_interrupts.py``.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from compactor.testing.fake_openai import FakeOpenAI

from .crash_child import COMPACT, child_env, held, parses_fully, temps, wait_for

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


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _kill_after(proc: subprocess.Popen[bytes], delay: float) -> int:
    """SIGKILL ``proc`` after ``delay`` seconds, wherever it is then (unless it ended)."""
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    return proc.wait(timeout=30)


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
        argv, env = held(args, "write", out, marker)
        proc = subprocess.Popen(
            argv, env=child_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(marker, proc)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
        [temp] = temps(out_dir)  # killed mid-write: the partial temp file is left behind
        assert 0 < temp.stat().st_size < big.stat().st_size
    else:
        proc = subprocess.Popen(
            [COMPACT, *args], env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
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
            argv, hold = held(args, "write", archive, marker)
            proc = subprocess.Popen(
                argv,
                env=child_env({**env, **hold}),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait_for(marker, proc)
            proc.send_signal(signal.SIGKILL)
            assert proc.wait(timeout=30) == -signal.SIGKILL
        else:
            proc = subprocess.Popen(
                [COMPACT, *args],
                env=child_env(env),
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
    assert parses_fully(copy)
    archived = [p for p in archive.glob("[0-9a-f]*.jsonl") if _sha(p) == original]
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
    argv, env = held(
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
            argv, env=child_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(marker, proc)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL, "the process ended on its own"
    archived = [p.read_bytes() for p in archive.glob("[0-9a-f]*.jsonl")]
    assert archived == [original], "the original is not in the archive"
    left = [p for p in work.iterdir() if p.name.endswith(".tmp")]
    if side == "before":
        assert src.read_bytes() == original
        assert len(left) == 1, "killed before the rename: the temp file holds the new file"
        assert parses_fully(left[0])
    else:
        assert src.read_bytes() != original
        assert parses_fully(src)
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
            env=child_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() != original
    assert parses_fully(src)
    assert [p.read_bytes() for p in archive.glob("[0-9a-f]*.jsonl")] == [original]
