"""The CLI's speed tricks, each switched off in turn, on user-visible times (issue 31 point 3).

    python bench/bench_ab_tricks.py [--repeat 5] [--mb 50] [--cases check-small,run-big,...]

Every case runs as fresh ``compact`` processes (``python -P -c "...main()" ARGS``, this checkout
first on ``PYTHONPATH``), all variants of a case taking turns ``repeat`` times, so a busy moment
of the shared machine slows every variant alike:

* ``shipped``: as ``compact`` runs today: ``main()`` ends with the atexit handlers and
  ``os._exit`` (no interpreter teardown), and the typer hook (``cli/_typer_fast.py``) keeps
  pydantic out;
* ``normal-exit``: ``main()`` ends through ``sys.exit``: the interpreter tears down as usual;
* ``gc-off``: the cyclic GC off during a file's run, as ``cli/run.py`` did until issue 31 (the
  figures in BENCHMARKS.md were taken the other way round, with the switch shipped and a
  ``gc-on`` variant);
* ``no-typer-hook``: typer coerces every value through pydantic, as it does unpatched.

Cases: ``compact check`` of small-chat.jsonl and of the 50 MiB bench transcript (gen_transcript.py,
seed 1), and ``compact run --model local --force -q -o TMP`` of coding-session.jsonl (6 KB) and
of the 50 MiB one; ``run-remote``: the 6 KB one with ``--model openai:bench`` against the
loopback fake server (the OpenAI SDK and pydantic loaded: the case the hard exit was made for).
``import typer, rich`` runs too (the start-up target's baseline). Prints, per case, each
variant's median wall and CPU times and their difference from ``shipped``, and the load average
before and after. A trick is worth keeping when switching it off costs >= 10 % of a case's time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import BENCH, REPO, FakeServer, ensure_transcript, precompile, timed

PRELUDES = {
    "shipped": "",
    "normal-exit": "import compactor.cli.app as a\na._hard_exit = sys.exit\n",
    # "gc-off": the GC switch cli/run.py had until issue 31 (retired: < 10 %), for comparison
    "gc-off": (
        "import gc, compactor.cli.run as r\n"
        "_run_one = r.run_one\n"
        "def run_one(*a, **k):\n"
        "    gc.disable()\n"
        "    try:\n"
        "        return _run_one(*a, **k)\n"
        "    finally:\n"
        "        gc.enable()\n"
        "r.run_one = run_one\n"
    ),
    "no-typer-hook": (
        "from compactor.cli import _typer_fast\n_typer_fast.install = lambda: False\n"
    ),
}
MAIN = "import sys\n{prelude}from compactor.cli.app import main\nsys.argv[0] = 'compact'\nmain()\n"
SMALL = REPO / "sample_transcripts" / "small-chat.jsonl"
"""``check``'s start-up sample (as bench_startup.py)."""
SMALL_RUN = REPO / "sample_transcripts" / "coding-session.jsonl"
"""The smallest sample a run compacts (small-chat would grow: loop guard, exit 4)."""


def timed_case(cmd: list[str], base_url: str = "") -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one fresh process (:func:`_common.timed`); with
    ``base_url``, the remote case: the SDK and pydantic loaded, one request to the fake."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if base_url:
        env.update(OPENAI_BASE_URL=base_url, OPENAI_API_KEY="sk-bench")
    wall, cpu, _ = timed(cmd, env, ok=(0, 1))
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mb", type=float, default=50.0, help="size of the big transcript")
    parser.add_argument("--cases", default="check-small,check-big,run-small,run-big,run-remote")
    parser.add_argument("--variants", default=",".join(PRELUDES))
    args = parser.parse_args()
    precompile()
    big = ensure_transcript(BENCH / "data" / f"transcript-{args.mb:g}mb.jsonl", mb=args.mb)
    variants = args.variants.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-tricks-") as tmp, FakeServer() as base_url:
        out = str(Path(tmp) / "out.jsonl")
        run = ["run", "--force", "-q", "-o", out]
        cases = {
            "check-small": ["check", str(SMALL)],
            "check-big": ["check", str(big)],
            "run-small": [*run, "--model", "local", str(SMALL_RUN)],
            "run-big": [*run, "--model", "local", str(big)],
            "run-remote": [*run, "--model", "openai:bench", str(SMALL_RUN)],
        }
        load_before = os.getloadavg()[0]
        base = [
            timed_case([sys.executable, "-c", "import typer, rich"]) for _ in range(args.repeat)
        ]
        lines = [
            f"import typer, rich: wall {statistics.median(w for w, _ in base) * 1e3:.1f} ms, "
            f"CPU {statistics.median(c for _, c in base) * 1e3:.1f} ms"
        ]
        for case in args.cases.split(","):
            times: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
            for _ in range(args.repeat):
                for variant in variants:
                    code = MAIN.format(prelude=PRELUDES[variant])
                    cmd = [sys.executable, "-P", "-c", code, *cases[case]]
                    times[variant].append(timed_case(cmd, base_url if case == "run-remote" else ""))
            walls = {v: statistics.median(w for w, _ in t) for v, t in times.items()}
            cpus = {v: statistics.median(c for _, c in t) for v, t in times.items()}
            parts = [
                f"shipped wall {walls['shipped'] * 1e3:.0f} ms CPU {cpus['shipped'] * 1e3:.0f} ms"
            ]
            for variant in variants[1:]:
                wall_change = (walls[variant] - walls["shipped"]) / walls["shipped"] * 100
                cpu_change = (cpus[variant] - cpus["shipped"]) / cpus["shipped"] * 100
                parts.append(
                    f"{variant} wall {walls[variant] * 1e3:.0f} ms ({wall_change:+.1f} %) "
                    f"CPU {cpus[variant] * 1e3:.0f} ms ({cpu_change:+.1f} %)"
                )
            lines.append(f"{case}: " + "; ".join(parts))
        load_after = os.getloadavg()[0]
    print("\n".join(lines))
    print(
        f"(medians of {args.repeat}, variants taking turns; big = {big.name}; "
        f"load {load_before:.1f} before, {load_after:.1f} after; {os.cpu_count()} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
