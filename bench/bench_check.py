"""``compact check`` (default counter, streaming) vs a bare orjson line loop over the same file.

    python bench/bench_check.py [TRANSCRIPT] [--repeat 3]

Both run as fresh processes over the same file: ``compact check TRANSCRIPT`` and
``python -c "for line in open(f, 'rb'): orjson.loads(line)"``. Prints one result line; the ratio
is orjson-loop time / check time (best of ``repeat``), target >= 0.5x.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from _common import (  # bench/ is on sys.path
    DEFAULT_TRANSCRIPT,
    JSONL_LOOP,
    compact_command,
    ensure_transcript,
    precompile,
)


def best(cmd: list[str], repeat: int) -> tuple[float, str]:
    times = []
    out = ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
        out = proc.stdout.strip()
    return min(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", type=Path, nargs="?", default=DEFAULT_TRANSCRIPT)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    precompile()
    path = ensure_transcript(args.transcript)
    compact = compact_command()
    loop_s, n = best([sys.executable, "-c", JSONL_LOOP, str(path)], args.repeat)
    check_s, line = best([compact, "check", str(path)], args.repeat)
    if f"{int(n):,} messages" not in line:
        raise SystemExit(f"message counts differ: loop {n}, check: {line}")
    mib = path.stat().st_size / 1024 / 1024
    ratio = loop_s / check_s
    print(
        f"check-vs-orjson: {mib:.0f} MiB, {int(n):,} messages: orjson loop {loop_s:.2f} s, "
        f"compact check {check_s:.2f} s, ratio {ratio:.2f}x (loop/check, best of {args.repeat}); "
        f"target >= 0.5x {'OK' if ratio >= 0.5 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
