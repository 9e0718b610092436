"""Start-up: ``compact check small.jsonl`` wall time vs ``python -c "import typer, rich"``.

    python bench/bench_startup.py [IGNORED_TRANSCRIPT] [--repeat 10] [--small PATH]

Median of ``repeat`` fresh processes each. Prints one result line; ratio = check / import,
target <= 1.3x.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import REPO, precompile  # bench/ is on sys.path


def median_time(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode().strip()}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument(
        "--small", type=Path, default=REPO / "sample_transcripts" / "small-chat.jsonl"
    )
    args = parser.parse_args()
    precompile()
    compact = str(Path(sys.executable).with_name("compact"))
    if not Path(compact).exists():
        compact = str(REPO / ".venv" / "bin" / "compact")
    base = median_time([sys.executable, "-c", "import typer, rich"], args.repeat)
    ours = median_time([compact, "check", str(args.small)], args.repeat)
    ratio = ours / base
    print(
        f"startup: import typer, rich {base * 1000:.0f} ms, compact check {args.small.name} "
        f"{ours * 1000:.0f} ms, ratio {ratio:.2f}x (median of {args.repeat}); "
        f"target <= 1.3x {'OK' if ratio <= 1.3 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
