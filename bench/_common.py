"""Helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_TRANSCRIPT = BENCH / "data" / "transcript-60mb.jsonl"

JSONL_LOOP = (
    "import sys, orjson\n"
    "n = 0\n"
    "with open(sys.argv[1], 'rb') as fh:\n"
    "    for line in fh:\n"
    "        if line.strip():\n"
    "            orjson.loads(line)\n"
    "            n += 1\n"
    "print(n)\n"
)
"""The speed targets' baseline (``python -c JSONL_LOOP FILE``): read a JSONL file and parse
every line with orjson; prints the count of records."""


def compact_command() -> str:
    """The ``compact`` console script beside this interpreter, else the checkout's venv's."""
    compact = Path(sys.executable).with_name("compact")
    return str(compact if compact.exists() else REPO / ".venv" / "bin" / "compact")


class Timed(NamedTuple):
    """What one process took (:func:`timed`)."""

    wall: float
    """Seconds from its start to its end."""
    cpu: float
    """User + system CPU seconds (on a shared, busy machine it moves less than the wall)."""
    rss: int
    """Peak RSS in bytes."""


def _label(cmd: list[str]) -> str:
    return " ".join(arg if len(arg) <= 60 else "..." for arg in cmd)


def timed(cmd: list[str], env: dict[str, str] | None = None, ok: Collection[int] = (0,)) -> Timed:
    """Wall, CPU and peak RSS (``os.wait4``) of one fresh process, its stdout dropped; exits
    naming the command and the end of its stderr when its exit code is not in ``ok``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        raise SystemExit(f"{_label(cmd)} failed ({code}): {err.decode()[-800:]}")
    # ru_maxrss is in KiB on Linux
    return Timed(elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)


class FakeServer:
    """The loopback fake OpenAI-compatible server (``python -m compactor.testing.fake_openai``
    with ``args``, e.g. ``--latency 0.3``), a process of its own as a real server would be: the
    ``with`` block gets its base URL."""

    def __init__(self, *args: str) -> None:
        self.args = args

    def __enter__(self) -> str:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "compactor.testing.fake_openai", "--port", "0", *self.args],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait()


def precompile() -> None:
    """Byte-compile ``compactor/`` as ``pip install`` does for a regular install.

    The baselines import typer, rich and orjson from site-packages, which pip compiled at install
    time. The editable checkout is compiled only on import, and not at all under
    ``PYTHONDONTWRITEBYTECODE=1``: then every ``compact`` process would compile all its modules
    from source (about 0.1 s), which no installed copy pays.
    """
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "compactor")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def ensure_transcript(path: Path, mb: float = 60.0, shape: str = "agent") -> Path:
    """Generate ``path`` with gen_transcript.py (seed 1, ``shape``) unless it already exists."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                str(BENCH / "gen_transcript.py"),
                str(path),
                "--mb",
                str(mb),
                "--shape",
                shape,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path
