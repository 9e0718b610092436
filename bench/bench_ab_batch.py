"""Batch before/after: the code of a baseline tree against this checkout, taking turns.

    git archive 2a711c5 compactor | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python bench/bench_ab_batch.py /tmp/base [--rounds 5] [--files 200] [--jobs 16]

Both sides run the same ``compact`` script against one fake server (latency 0.3 s); the
baseline's ``compactor`` package is imported through ``PYTHONPATH``. Both get a config without
the summary cache and the loop guard, so every file sends its request (see bench_batch.py).
Prints each side's median wall time and the ratio after / before.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, FakeServer, compact_command, precompile  # bench/ is on sys.path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path, help="a folder holding the baseline compactor/")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=16)
    args = parser.parse_args()
    precompile()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.baseline)], check=True)
    compact = compact_command()
    times: dict[str, list[float]] = {"before": [], "after": []}
    with FakeServer("--latency", "0.3") as base_url:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.files):
                src = REPO / "sample_transcripts" / "small-chat.jsonl"
                shutil.copy(src, Path(tmp) / f"t{i:03d}.jsonl")
            cfg = Path(tmp) / "bench.yaml"
            cfg.write_text("cache: false\nloop_guard: false\n", encoding="utf-8")
            for _ in range(args.rounds):
                for side in times:
                    for old in Path(tmp).glob("*.compact.jsonl"):
                        old.unlink()
                    env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench")
                    if side == "before":
                        env["PYTHONPATH"] = str(args.baseline)
                    cmd = [compact, "run", tmp, "--force", "--jobs", str(args.jobs), "-q"]
                    cmd += ["-c", str(cfg)]
                    start = time.perf_counter()
                    proc = subprocess.run(
                        [*cmd, "--model", "openai:fake"], env=env, capture_output=True, text=True
                    )
                    times[side].append(time.perf_counter() - start)
                    if proc.returncode != 0:
                        raise SystemExit(f"{side} failed: {proc.stderr[-500:]}")
    before, after = (statistics.median(times[k]) for k in ("before", "after"))
    print(
        f"batch before {before:.2f} s, after {after:.2f} s (medians of {args.rounds}); "
        f"ratio after/before {after / before:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
