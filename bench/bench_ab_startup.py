"""Start-up before/after: a baseline tree's ``compact check`` against this checkout's, taking turns.

    git archive 2a711c5 compactor | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    python bench/bench_ab_startup.py /tmp/base [--repeat 30] [--small PATH] [--args=--help]

Three commands take turns, ``repeat`` fresh processes each: ``python -c "import typer, rich"``
(the target's baseline), then ``compact check SMALL`` with the baseline's ``compactor`` first on
``PYTHONPATH``, then with this checkout's. Prints each median and its ratio to the import.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from _common import REPO, precompile  # bench/ is on sys.path
from bench_startup import median_times


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
    print(
        f"startup: import typer, rich {base * 1e3:.1f} ms; compact {' '.join(check)} before "
        f"{old * 1e3:.1f} ms ({old / base:.2f}x), after {new * 1e3:.1f} ms ({new / base:.2f}x) "
        f"(medians of {args.repeat}, taking turns; {os.cpu_count()} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
