"""``compact run --strategy reduce --force`` of two or more source trees, interleaved.

    python bench/bench_reduce_ab.py TREE[@INLINE],TREE[@INLINE]... [--rounds 11] [--no-offload]
        [--trash DIR] [--per-round] [TRANSCRIPT]

Each round runs, for every tree in turn (the order reversed every other round), the bare orjson
line loop and then the run (``PYTHONPATH=TREE``; ``@1``/``@0`` sets ``COMPACT_OFFLOAD_INLINE``:
in line / a writer process), and keeps the ratio run / loop of wall and of CPU time. The offload
folders are moved into ``--trash`` (default: a new folder under the temporary directory) and
never removed by this script: on this VM's journal-less ext4 a removal slows every file creation
of the next minutes (``bench_reduce.py``), which would charge one tree for the other's files.
Remove the trash folder yourself when no bench follows. ``--per-round`` prints each round with
the load average and the tasks runnable at its end (``/proc/loadavg``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import BENCH, ensure_transcript  # bench/ is on sys.path
from _common import JSONL_LOOP as LOOP


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
    return time.perf_counter() - start, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees")
    parser.add_argument("transcript", type=Path, nargs="?", default=None)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--no-offload", action="store_true")
    parser.add_argument("--trash", type=Path, default=None)
    parser.add_argument("--per-round", action="store_true")
    args = parser.parse_args()
    path = args.transcript or BENCH / "data" / "transcript-50mb.jsonl"
    ensure_transcript(path, 50.0)
    compact = str(Path(sys.executable).with_name("compact"))
    trees = args.trees.split(",")
    work = Path(tempfile.mkdtemp(prefix="bench-reduce-ab-"))
    trash = args.trash or Path(tempfile.mkdtemp(prefix="bench-reduce-ab-trash-"))
    (work / "c.yaml").write_text("reduction:\n  offload: false\n")
    walls: dict[str, list[float]] = {t: [] for t in trees}
    cpus: dict[str, list[float]] = {t: [] for t in trees}
    loads: list[float] = []
    for n in range(args.rounds):
        for spec in trees if n % 2 == 0 else trees[::-1]:
            loop_s, loop_cpu = _timed([sys.executable, "-c", LOOP, str(path)])
            tree, _, inline = spec.partition("@")
            env = {k: v for k, v in os.environ.items() if k != "COMPACT_OFFLOAD_INLINE"}
            env["PYTHONPATH"] = tree
            if inline:
                env["COMPACT_OFFLOAD_INLINE"] = inline
            out = work / "out.jsonl"
            cmd = [
                compact,
                "run",
                str(path),
                "--strategy",
                "reduce",
                "--force",
                "-q",
                "-o",
                str(out),
            ]
            if args.no_offload:
                cmd += ["-c", str(work / "c.yaml")]
            run_s, run_cpu = _timed(cmd, env)
            folder = work / "out.offload"
            if folder.exists():
                folder.rename(trash / f"{time.time_ns()}")
            out.unlink()
            walls[spec].append(run_s / loop_s)
            cpus[spec].append(run_cpu / loop_cpu)
        loads.append(os.getloadavg()[0])
        if args.per_round:
            running = Path("/proc/loadavg").read_text().split()[3]
            ratios = " ".join(f"{t}={walls[t][-1]:.2f}x" for t in trees)
            print(f"round {n}: load {loads[-1]:.2f}, running {running}: {ratios}", flush=True)
    mode = "no offload" if args.no_offload else "default offload"
    for spec in trees:
        w, c = walls[spec], cpus[spec]
        print(
            f"{mode} {spec}: median {statistics.median(w):.2f}x ({min(w):.2f}-{max(w):.2f}x), "
            f"CPU {statistics.median(c):.2f}x, {args.rounds} rounds"
        )
    print(f"load average {min(loads):.2f}-{max(loads):.2f}; offload folders left in {trash}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
