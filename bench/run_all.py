"""Run the available benchmarks in sequence; each prints one result line.

    python bench/run_all.py [--transcript PATH] [--only NAME ...]

The shared input is a generated 60 MiB OpenAI-chat transcript (bench/data/, seed 1), made once.
To add a benchmark, append ``(name, script, extra args)`` to BENCHMARKS.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from _common import BENCH, DEFAULT_TRANSCRIPT, ensure_transcript  # bench/ is on sys.path

BENCHMARKS: list[tuple[str, str, list[str]]] = [
    ("exact-count", "bench_count.py", ["--repeat", "3"]),
    ("exact-count-o200k", "bench_count.py", ["--repeat", "3", "--encoding", "o200k_base"]),
    ("langchain-anchor", "bench_langchain.py", ["--repeat", "5"]),
    ("check-vs-orjson", "bench_check.py", ["--repeat", "3"]),
    ("local-run", "bench_local.py", ["--repeat", "5"]),
    ("shapes", "bench_shapes.py", ["--repeat", "3"]),
    ("startup", "bench_startup.py", ["--repeat", "20"]),
    ("peak-rss", "bench_rss.py", []),
    ("batch", "bench_batch.py", ["--files", "200", "--jobs", "16"]),
    ("cache", "bench_cache.py", ["--repeat", "3"]),
    ("chunked", "bench_chunked.py", ["--repeat", "3", "--window", "128000"]),
    ("masking", "bench_masking.py", ["--repeat", "5"]),
    ("remote", "bench_remote.py", ["--repeat", "3"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transcript", type=Path, default=DEFAULT_TRANSCRIPT)
    parser.add_argument("--only", nargs="*", help="run only these benchmark names")
    args = parser.parse_args()

    path = ensure_transcript(args.transcript)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, transcript {path}")
    failures = 0
    for name, script, extra in BENCHMARKS:
        if args.only and name not in args.only:
            continue
        proc = subprocess.run(
            [sys.executable, str(BENCH / script), str(path), *extra],
            capture_output=True,
            text=True,
        )
        lines = proc.stdout.strip().splitlines()
        if proc.returncode != 0:
            failures += 1
            err = proc.stderr.strip().splitlines()
            print(f"{name}: FAILED (exit {proc.returncode}): {err[-1] if err else ''}")
        else:
            print(lines[-1] if lines else f"{name}: no output")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
