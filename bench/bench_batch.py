"""Batch: 200 small transcripts, ``compact run DIR --force --jobs 16`` against the fake server.

    python bench/bench_batch.py [IGNORED_TRANSCRIPT] [--files 200] [--jobs 16] [--latency 0.3]
                                [--repeat 3]

Starts ``python -m compactor.testing.fake_openai --latency 0.3`` (every answer comes 0.3 s after
its request arrived), copies ``sample_transcripts/small-chat.jsonl`` 200 times into a temporary
directory and times ``compact run DIR --force --jobs 16 --model openai:fake`` ``repeat`` times
(fresh outputs each time). Ideal: files / jobs * latency (3.75 s). Prints one result line with
the median and the range; ratio = median / ideal, target <= 1.3x. The config turns off the
summary cache (200 identical files would make one request) and the loop guard (a forced
compaction grows a 62-token chat past loop_guard.max_growth), so every file sends a request.
"""

from __future__ import annotations

import argparse
import json
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
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    precompile()
    compact = compact_command()
    with (
        FakeServer("--latency", str(args.latency)) as base_url,
        tempfile.TemporaryDirectory() as tmp,
    ):
        src = REPO / "sample_transcripts" / "small-chat.jsonl"
        for i in range(args.files):
            shutil.copy(src, Path(tmp) / f"t{i:03d}.jsonl")
        env = dict(os.environ, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench")
        times = [_time_batch(compact, Path(tmp), args.jobs, env) for _ in range(args.repeat)]
        files = json.loads((Path(tmp) / "report.json").read_text())["files"]
        ok = sum(1 for f in files if f["exit_code"] == 0 and f["triggered"])
    ideal = args.files / args.jobs * args.latency
    elapsed = statistics.median(times)
    ratio = elapsed / ideal
    print(
        f"batch: {ok}/{args.files} compacted at --jobs {args.jobs}, latency {args.latency} s: "
        f"ideal {ideal:.2f} s, measured {elapsed:.2f} s (median of {len(times)}, "
        f"{min(times):.2f}-{max(times):.2f} s), ratio {ratio:.2f}x; "
        f"target <= 1.3x {'OK' if ratio <= 1.3 else 'MISSED'}"
    )
    return 0


def _time_batch(compact: str, folder: Path, jobs: int, env: dict[str, str]) -> float:
    """Wall time of one ``compact run FOLDER``; earlier outputs are removed first."""
    for old in folder.glob("*.compact.jsonl"):
        old.unlink()
    report = folder / "report.json"
    cfg = folder / "bench.yaml"
    cfg.write_text("cache: false\nloop_guard: false\n", encoding="utf-8")
    cmd = [compact, "run", str(folder), "--force", "--jobs", str(jobs), "-q", "-c", str(cfg)]
    cmd += ["--model", "openai:fake", "--report", str(report)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        files = json.loads(report.read_text())["files"] if report.exists() else []
        errors = sorted({f["error"] for f in files if f.get("error")})
        raise SystemExit(
            f"compact run failed ({proc.returncode}): {proc.stderr[-500:]} {errors[:3]}"
        )
    return elapsed


if __name__ == "__main__":
    sys.exit(main())
