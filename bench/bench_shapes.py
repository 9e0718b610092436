"""``compact run --force --model local`` on every bench shape: time vs an orjson loop, peak RSS.

    python bench/bench_shapes.py [IGNORED_TRANSCRIPT] [--shape agent paths tools tiny] [--repeat 3]

Issue 28 point 7. The shapes (gen_transcript.py, seed 1, made in ``bench/data/`` on first use):

* ``agent`` 50 MiB: the coding-agent transcript of bench_local.py (21,780 messages);
* ``paths`` 50 MiB: a chat log whose every sentence names file paths (``src/app.py``, ...);
* ``tools`` 50 MiB: long tool outputs (grep hits, diagnostics, listings, logs, test runs);
* ``tiny`` 46 MiB (48 MB): about 1.1 million messages of a few words each.

For each shape the bare loop (``orjson.loads`` of every line) and ``compact run FILE --force
--model local -q -o TMP`` run as fresh processes, taking turns ``repeat`` times; the ratio is
the median run time over the median loop time (and the same of their CPU times, user +
system, steadier when the machine is shared), the peak RSS the median ``ru_maxrss`` of the
run (``os.wait4``) over the file's size. Targets: ratio <= 15x on every shape; peak RSS <= 3x
the file where messages average >= 1 KB, <= 10x on the tiny shape. The load average before and
after is printed (the machine is shared). One line per shape, then a verdict.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import BENCH, JSONL_LOOP, compact_command, ensure_transcript, precompile, timed

SHAPES = {"agent": ("transcript", 50.0), "paths": ("paths", 50.0), "tools": ("tools", 50.0)}
SHAPES["tiny"] = ("tiny", 46.0)
MAX_RATIO = 15.0


def transcript(shape: str) -> Path:
    stem, mb = SHAPES[shape]
    path = BENCH / "data" / f"{stem}-{mb:.0f}mb.jsonl"
    return ensure_transcript(path, mb=mb, shape=shape)


def measure(compact: str, path: Path, repeat: int) -> dict[str, float]:
    loops: list[float] = []
    runs: list[float] = []
    loop_cpu: list[float] = []
    run_cpu: list[float] = []
    peaks: list[int] = []
    with tempfile.TemporaryDirectory(prefix="bench-shapes-") as tmp:
        out = str(Path(tmp) / "out.jsonl")
        for _ in range(repeat):
            seconds, cpu, _ = timed([sys.executable, "-c", JSONL_LOOP, str(path)])
            loops.append(seconds)
            loop_cpu.append(cpu)
            seconds, cpu, peak = timed(
                [compact, "run", str(path), "--force", "--model", "local", "-q", "-o", out]
            )
            runs.append(seconds)
            run_cpu.append(cpu)
            peaks.append(peak)
            if not Path(out).stat().st_size:
                raise SystemExit("compact run wrote an empty transcript")
    with path.open("rb") as fh:
        messages = sum(1 for line in fh if line.strip())
    size = path.stat().st_size
    return {
        "size": size,
        "messages": messages,
        "loop": statistics.median(loops),
        "run": statistics.median(runs),
        "ratio": statistics.median(runs) / statistics.median(loops),
        "cpu": statistics.median(run_cpu) / statistics.median(loop_cpu),
        "rss": statistics.median(peaks),
        "rss_factor": statistics.median(peaks) / size,
        "avg": size / messages,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--shape", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    precompile()
    compact = compact_command()
    paths = {shape: transcript(shape) for shape in args.shape}
    ok = True
    summary = []
    for shape, path in paths.items():
        load_before = os.getloadavg()[0]
        r = measure(compact, path, args.repeat)
        load_after = os.getloadavg()[0]
        max_rss = 3.0 if r["avg"] >= 1024 else 10.0
        met = r["ratio"] <= MAX_RATIO and r["rss_factor"] <= max_rss
        ok = ok and met
        print(
            f"shape {shape}: {r['size'] / 1e6:.1f} MB, {r['messages']:,.0f} messages "
            f"(avg {r['avg']:,.0f} B): orjson loop {r['loop']:.2f} s, "
            f"compact run {r['run']:.2f} s, "
            f"ratio {r['ratio']:.1f}x (CPU time {r['cpu']:.1f}x); "
            f"peak RSS {r['rss'] / 2**20:.0f} MiB = "
            f"{r['rss_factor']:.2f}x the file (median of {args.repeat}, taking turns; load "
            f"{load_before:.1f} before, {load_after:.1f} after); target <= {MAX_RATIO:.0f}x and "
            f"<= {max_rss:.0f}x RSS {'OK' if met else 'MISSED'}",
            flush=True,
        )
        summary.append(
            f"{shape} {r['ratio']:.1f}x, RSS {r['rss_factor']:.1f}x {'OK' if met else 'MISSED'}"
        )
    verdict = "all targets met" if ok else "some target MISSED"
    print(f"shapes: {'; '.join(summary)} (median of {args.repeat}); {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
