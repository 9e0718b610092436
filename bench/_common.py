"""Helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_TRANSCRIPT = BENCH / "data" / "transcript-60mb.jsonl"


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
