"""Start-up: ``compact check small.jsonl`` and ``compact --help`` wall time vs
``python -c "import typer, rich"``.

    python bench/bench_startup.py [IGNORED_TRANSCRIPT] [--repeat 20] [--small PATH]

Median of ``repeat`` fresh processes each, the three commands taking turns. Prints one result
line; ratio = compact / import, target <= 1.3x for each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import REPO, compact_command, precompile  # bench/ is on sys.path


def run_once(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr.decode().strip()}")
    return elapsed


def median_times(cmds: list[list[str]], repeat: int) -> list[float]:
    """The median wall time of each command, runs interleaved (a, b, a, b, …) so that a busy
    moment of the machine slows both sides alike."""
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeat):
        for cmd, bucket in zip(cmds, times, strict=True):
            bucket.append(run_once(cmd))
    return [statistics.median(bucket) for bucket in times]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--small", type=Path, default=REPO / "sample_transcripts" / "small-chat.jsonl"
    )
    args = parser.parse_args()
    precompile()
    compact = compact_command()
    base, ours, helped = median_times(
        [
            [sys.executable, "-c", "import typer, rich"],
            [compact, "check", str(args.small)],
            [compact, "--help"],
        ],
        args.repeat,
    )
    ratio, help_ratio = ours / base, helped / base
    worst = max(ratio, help_ratio)
    print(
        f"startup: import typer, rich {base * 1000:.0f} ms, compact check {args.small.name} "
        f"{ours * 1000:.0f} ms, ratio {ratio:.2f}x; compact --help {helped * 1000:.0f} ms, "
        f"ratio {help_ratio:.2f}x (median of {args.repeat}); "
        f"target <= 1.3x {'OK' if worst <= 1.3 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
