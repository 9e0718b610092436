"""Helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_TRANSCRIPT = BENCH / "data" / "transcript-60mb.jsonl"


def ensure_transcript(path: Path, mb: float = 60.0) -> Path:
    """Generate ``path`` with gen_transcript.py (seed 1) unless it already exists."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(BENCH / "gen_transcript.py"), str(path), "--mb", str(mb)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return path
