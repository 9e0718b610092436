"""What the hard exit and a GC switch are worth, measured directly (issue 31 point 3).

    python bench/bench_exit_gc.py [--repeat 15] [--mb 50]

* **Teardown**: ``compact check`` of small-chat.jsonl and ``compact run --model local`` of
  coding-session.jsonl, each with ``main()`` as shipped (atexit handlers, then ``os._exit``) and
  ending through ``sys.exit`` (the interpreter's teardown), taking turns. The child's last atexit
  handler writes ``time.monotonic()``; the parent notes the same clock when the process is gone:
  the difference is the teardown (plus the exit itself).
* **Collections**: one ``compact run --model local`` of the big bench transcript with
  ``gc.callbacks`` timing every collection: the time a run spends collecting is what a GC
  switch around it could save at most.

A wall-time A/B of the same tricks on whole commands is bench_ab_tricks.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from _common import BENCH, REPO, ensure_transcript, precompile

TEARDOWN = """
import atexit, os, sys, time
atexit.register(lambda: os.write(2, f"T{time.monotonic()}\\n".encode()))
if sys.argv[1] == "normal-exit":
    import compactor.cli.app as a
    a._hard_exit = sys.exit
from compactor.cli.app import main
sys.argv = ["compact", *sys.argv[2:]]
main()
"""

COLLECTIONS = """
import atexit, gc, os, sys, time
spent, began = [0.0, 0], [0.0]
def timer(phase, info):
    if phase == "start":
        began[0] = time.perf_counter()
    else:
        spent[0] += time.perf_counter() - began[0]
        spent[1] += 1
gc.callbacks.append(timer)
t0 = time.perf_counter()
def report():
    cpu = sum(os.times()[:2])
    wall = time.perf_counter() - t0
    os.write(2, f"R {spent[0]} {spent[1]} {wall} {cpu}\\n".encode())
atexit.register(report)
from compactor.cli.app import main
sys.argv = ["compact", *sys.argv[1:]]
main()
"""


def teardown(args: list[str], repeat: int) -> dict[str, list[float]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    seconds: dict[str, list[float]] = {"shipped": [], "normal-exit": []}
    for _ in range(repeat):
        for variant, bucket in seconds.items():
            cmd = [sys.executable, "-P", "-c", TEARDOWN, variant, *args]
            proc = subprocess.run(cmd, capture_output=True, env=env)
            gone = time.monotonic()
            marks = [x for x in proc.stderr.decode().splitlines() if x.startswith("T")]
            bucket.append(gone - float(marks[-1][1:]))
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    precompile()
    big = ensure_transcript(BENCH / "data" / f"transcript-{args.mb:g}mb.jsonl", mb=args.mb)
    samples = REPO / "sample_transcripts"
    out = str(BENCH / "data" / "bench-exit-gc.out.jsonl")
    load_before = os.getloadavg()[0]
    cases = {
        "check small-chat": ["check", str(samples / "small-chat.jsonl")],
        "run --model local coding-session": [
            *("run", "--model", "local", "--force", "-q", "-o", out),
            str(samples / "coding-session.jsonl"),
        ],
    }
    for name, cmd in cases.items():
        seconds = teardown(cmd, args.repeat)
        print(
            f"teardown after {name}: "
            + ", ".join(
                f"{v} median {statistics.median(s) * 1e3:.1f} ms (min {min(s) * 1e3:.1f})"
                for v, s in seconds.items()
            )
        )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = [sys.executable, "-P", "-c", COLLECTIONS, "run", "--model", "local", "--force", "-q"]
    proc = subprocess.run([*run, "-o", out, str(big)], capture_output=True, env=env)
    report = [x for x in proc.stderr.decode().splitlines() if x.startswith("R ")][-1].split()
    gc_s, count, wall, cpu = float(report[1]), int(report[2]), float(report[3]), float(report[4])
    print(
        f"collections during run --model local {big.name}: {gc_s * 1e3:.0f} ms in {count} "
        f"collections = {gc_s / wall * 100:.1f} % of its {wall:.2f} s (CPU {cpu:.2f} s)"
    )
    print(f"(load {load_before:.1f} before, {os.getloadavg()[0]:.1f} after; {os.cpu_count()} CPUs)")
    os.unlink(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
