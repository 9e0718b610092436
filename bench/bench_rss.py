"""Peak RSS of ``compact check`` (default counter, streaming) on a 1 GiB generated transcript.

    python bench/bench_rss.py [IGNORED_TRANSCRIPT] [--mb 1024] [--keep]

Generates ``bench/data/transcript-1gb.jsonl`` (gen_transcript.py, seed 1) unless present, runs
``compact check`` on it, reads the child's peak RSS from ``os.wait4``, and deletes the file
afterwards unless ``--keep``. Baseline: the file size (what a full read holds at least). Prints
one result line; target <= 200 MB.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

from _common import BENCH, compact_command, ensure_transcript  # bench/ is on sys.path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--mb", type=float, default=1024.0)
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    args = parser.parse_args()
    path = BENCH / "data" / "transcript-1gb.jsonl"
    ensure_transcript(path, mb=args.mb)
    compact = compact_command()
    try:
        start = time.perf_counter()
        proc = subprocess.Popen([compact, "check", str(path)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        out = proc.stdout.read().decode().strip()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            raise SystemExit(f"compact check failed ({code})")
        size_mb = path.stat().st_size / 1e6
    finally:
        if not args.keep:
            path.unlink(missing_ok=True)
    rss_mb = usage.ru_maxrss / 1024  # KiB on Linux
    found = re.search(r"([\d,]+ messages)", out)
    messages = found.group(1) if found else "?"
    print(
        f"peak-rss: compact check on {size_mb:,.0f} MB ({messages}) in {elapsed:.1f} s: "
        f"peak RSS {rss_mb:.0f} MiB vs file size {size_mb:,.0f} MB; "
        f"target <= 200 MB {'OK' if rss_mb * 1.048576 <= 200 else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
