"""``compact run --force --model local`` vs a bare orjson line loop on the same file, and peak RSS.

    python bench/bench_local.py [IGNORED_TRANSCRIPT] [--mb 50 60] [--repeat 3]

For each size, ``bench/data/transcript-<N>mb.jsonl`` (gen_transcript.py, seed 1; the 60 MiB one
is the shared bench transcript) is made on first use. Both commands run as fresh processes, taking
turns ``repeat`` times: ``python -c "for line in open(f, 'rb'): orjson.loads(line)"`` and
``compact run FILE --force --model local -q -o TMP`` (the embedded summarizer, the whole command:
read, count, summarize, finalize, write). The ratio is the median run time over the median loop
time; the peak RSS is the largest ``ru_maxrss`` of the run's processes (``os.wait4``), compared
with the file's size. The load average before and after is printed, since the machine is shared.
Prints one result line; targets on the 50 MiB file: ratio <= 15x and peak RSS <= 3x the file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import (
    BENCH,
    DEFAULT_TRANSCRIPT,
    JSONL_LOOP,
    compact_command,
    ensure_transcript,
    precompile,
    timed,
)

MAX_RATIO = 15.0
MAX_RSS_FACTOR = 3.0
TARGET_MB = 50


def transcript_for(mb: int) -> Path:
    if mb == 60:
        return ensure_transcript(DEFAULT_TRANSCRIPT)
    return ensure_transcript(BENCH / "data" / f"transcript-{mb}mb.jsonl", mb=float(mb))


def measure(compact: str, path: Path, repeat: int) -> dict[str, float]:
    loops: list[float] = []
    runs: list[float] = []
    cpu: list[tuple[float, float]] = []
    rss = 0
    with tempfile.TemporaryDirectory(prefix="bench-local-") as tmp:
        out = str(Path(tmp) / "out.jsonl")
        for _ in range(repeat):
            loop_s, loop_cpu, _ = timed([sys.executable, "-c", JSONL_LOOP, str(path)])
            seconds, run_cpu, peak = timed(
                [compact, "run", str(path), "--force", "--model", "local", "-q", "-o", out]
            )
            loops.append(loop_s)
            runs.append(seconds)
            cpu.append((loop_cpu, run_cpu))
            rss = max(rss, peak)
            if not Path(out).stat().st_size:
                raise SystemExit("compact run wrote an empty transcript")
    ratios = sorted(r / lp for r, lp in zip(runs, loops, strict=True))
    return {
        "size": path.stat().st_size,
        "loop": statistics.median(loops),
        "run": statistics.median(runs),
        "ratio": statistics.median(runs) / statistics.median(loops),
        "cpu": statistics.median(c for _, c in cpu) / statistics.median(lc for lc, _ in cpu),
        "lo": ratios[0],
        "hi": ratios[-1],
        "rss": rss,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--mb", type=int, nargs="+", default=[50, 60], help="file sizes (MiB)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    precompile()
    compact = compact_command()
    paths = {mb: transcript_for(mb) for mb in args.mb}
    load_before = os.getloadavg()[0]
    results = {mb: measure(compact, path, args.repeat) for mb, path in paths.items()}
    load_after = os.getloadavg()[0]
    parts = []
    ok = True
    for mb, r in results.items():
        factor = r["rss"] / r["size"]
        parts.append(
            f"{mb} MiB: orjson loop {r['loop']:.2f} s, compact run {r['run']:.2f} s, "
            f"ratio {r['ratio']:.1f}x ({r['lo']:.1f}-{r['hi']:.1f}x; CPU time {r['cpu']:.1f}x), "
            f"peak RSS {r['rss'] / 2**20:.0f} MiB = {factor:.2f}x the file"
        )
        if mb == TARGET_MB:
            ok = r["ratio"] <= MAX_RATIO and factor <= MAX_RSS_FACTOR
    verdict = f"target on {TARGET_MB} MiB <= {MAX_RATIO:.0f}x and <= {MAX_RSS_FACTOR:.0f}x RSS"
    if TARGET_MB in results:
        verdict += " OK" if ok else " MISSED"
    print(
        f"local-run: {'; '.join(parts)} (median of {args.repeat}, taking turns; "
        f"load {load_before:.1f} before, {load_after:.1f} after); {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
