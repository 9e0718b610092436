"""Start-up before/after: a baseline tree's ``compact check`` against this checkout's, taking turns.

    git archive 2a711c5 compactor | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python bench/bench_ab_startup.py /tmp/base [--repeat 30] [--small PATH] [--args=--help]

Three commands take turns, ``repeat`` fresh processes each: ``python -c "import typer, rich"``
(the target's baseline), then ``compact check SMALL`` with the baseline's ``compactor`` first on
``PYTHONPATH``, then with this checkout's. Prints each median and its ratio to the import: of
the wall time, and of the CPU time (user + system of the process, ``os.wait4``), which a busy
machine disturbs less.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import REPO, precompile  # bench/ is on sys.path


def _once(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({proc.returncode})")
    return wall, usage.ru_utime + usage.ru_stime


def median_times(cmds: list[list[str]], repeat: int) -> list[tuple[float, float]]:
    """(median wall, median CPU) of each command, the commands taking turns."""
    runs: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for _ in range(repeat):
        for cmd, bucket in zip(cmds, runs, strict=True):
            bucket.append(_once(cmd))
    return [(statistics.median(w for w, _ in r), statistics.median(c for _, c in r)) for r in runs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path, help="a folder holding the baseline compactor/")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument(
        "--small", type=Path, default=REPO / "sample_transcripts" / "small-chat.jsonl"
    )
    parser.add_argument(
        "--args", default=None, help="the compact arguments instead of 'check SMALL' ('--help')"
    )
    args = parser.parse_args()
    precompile()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.baseline)], check=True)
    check = args.args.split() if args.args else ["check", str(args.small)]
    main_call = "import sys; from compactor.cli.app import main; sys.argv[0] = 'compact'; main()"
    before = ["env", f"PYTHONPATH={args.baseline}", sys.executable, "-P", "-c", main_call, *check]
    after = ["env", f"PYTHONPATH={REPO}", sys.executable, "-P", "-c", main_call, *check]
    base, old, new = median_times(
        [[sys.executable, "-c", "import typer, rich"], before, after], args.repeat
    )
    for i, what in enumerate(("wall", "CPU")):
        print(
            f"startup ({what}): import typer, rich {base[i] * 1e3:.1f} ms; compact "
            f"{' '.join(check)} before {old[i] * 1e3:.1f} ms ({old[i] / base[i]:.2f}x), after "
            f"{new[i] * 1e3:.1f} ms ({new[i] / base[i]:.2f}x) (medians of {args.repeat}, "
            f"taking turns; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
