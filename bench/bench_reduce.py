"""``compact run --strategy reduce --force`` vs a bare orjson line loop over the same file.

    python bench/bench_reduce.py [TRANSCRIPT] [--repeat 5] [--mb 50]

Both run as fresh processes, taking turns: the whole command (read, count, truncate and clear
every tool round outside the last, offload each result to its own private file, write the
reduced transcript) and ``python -c "for line in open(f, 'rb'): orjson.loads(line)"``. The
offload folder and the output are moved aside between runs, so every run writes all its files,
and removed after the last run: on an ext4 without a journal (this VM's disk) the kernel skips
every inode deleted in the last minutes when it allocates one (``recently_deleted``), so removing
the 8,000 files of one run right before the next made that next run pay for the deletion
(``--remove-between``: the old way, to see it).
That removal still slows a bench started in the next ~6 minutes (sync or a wait of a minute or
two does not help: BENCHMARKS.md, offload18): the result line says when the last bench removed
its files less than 6 minutes before this one began.
``--inline``: no writer process (every file made by the run itself, as before); ``--writer``:
one whatever the load; by default the run chooses (a writer process when a CPU is free).
``--offload-dir DIR`` puts the offload folder elsewhere (a tmpfs: what creating 10,000 files
costs on the disk aside). Prints one result line: the median ratio run / loop of wall time,
target <= 3x, and of CPU time (user + system of the process, which other load on the machine
changes less).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import BENCH, REPO, ensure_transcript, precompile  # bench/ is on sys.path
from _common import JSONL_LOOP as LOOP


def _cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``cmd``."""
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr.strip()}")
    return elapsed, _cpu() - cpu


_REMOVED = Path(tempfile.gettempdir()) / "bench-reduce-removed"
"""Touched when a bench removes its offload files (the next bench, minutes later, pays for them)."""
_SKIPS_DELETED_FOR = 360.0
"""Seconds this VM's journal-less ext4 may still skip a deleted inode (``recently_deleted``)."""


def _after_removal() -> str:
    """``; N s after the last bench removed its files`` when that was less than 6 minutes ago."""
    try:
        age = time.time() - _REMOVED.stat().st_mtime
    except OSError:
        return ""
    return (
        f"; {age:.0f} s after the last bench removed its files" if age < _SKIPS_DELETED_FOR else ""
    )


def _note_removal() -> None:
    """Touch :data:`_REMOVED` (never through a link another user put there)."""
    try:
        fd = os.open(_REMOVED, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError:
        return
    try:
        os.utime(fd)
    finally:
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", type=Path, nargs="?", default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument(
        "--no-offload", action="store_true", help="reduction.offload: false (no files written)"
    )
    parser.add_argument("--offload-dir", type=Path, default=None, help="the offload folder")
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--inline",
        action="store_true",
        help="every offload file made by the run's own process (COMPACT_OFFLOAD_INLINE=1: no "
        "writer process, as before issue 30 point 5's writer)",
    )
    how.add_argument(
        "--writer",
        action="store_true",
        help="a writer process whatever the load (COMPACT_OFFLOAD_INLINE=0); default: the "
        "run's own choice (a writer process when the load average leaves a CPU free)",
    )
    parser.add_argument(
        "--remove-between",
        action="store_true",
        help="remove each run's offload files right before the next run (not after the last)",
    )
    args = parser.parse_args()
    precompile()
    path = args.transcript or BENCH / "data" / f"transcript-{args.mb:g}mb.jsonl"
    ensure_transcript(path, args.mb)
    compact = str(Path(sys.executable).with_name("compact"))
    if not Path(compact).exists():
        compact = str(REPO / ".venv" / "bin" / "compact")
    removal = _after_removal()
    work = Path(tempfile.mkdtemp(prefix="bench-reduce-"))
    ratios, loops, runs, cpu_ratios = [], [], [], []
    line = ""
    aside: list[Path] = []
    try:
        for n in range(args.repeat):
            loop_s, loop_cpu = timed([sys.executable, "-c", LOOP, str(path)])
            out, offload = work / "out.jsonl", args.offload_dir or work / "out.offload"
            cmd = [compact, "run", str(path), "--strategy", "reduce", "--force", "-q"]
            if args.no_offload:
                (work / "c.yaml").write_text("reduction:\n  offload: false\n")
                cmd += ["-c", str(work / "c.yaml")]
            elif args.offload_dir is not None:
                cmd += ["--offload-dir", str(args.offload_dir)]
            env = {k: v for k, v in os.environ.items() if k != "COMPACT_OFFLOAD_INLINE"}
            if args.inline or args.writer:
                env["COMPACT_OFFLOAD_INLINE"] = "1" if args.inline else "0"
            run_s, run_cpu = timed([*cmd, "-o", str(out), "--report", str(work / "r.json")], env)
            line = (work / "r.json").read_text()
            files = sum(1 for p in offload.rglob("*") if p.is_file())
            if args.remove_between:
                shutil.rmtree(offload, ignore_errors=True)
            elif offload.exists():  # a new folder next time; these files go after the last run
                aside.append(offload.with_name(f"{offload.name}.old-{os.getpid()}-{n}"))
                offload.rename(aside[-1])
            out.unlink()
            loops.append(loop_s)
            runs.append(run_s)
            ratios.append(run_s / loop_s)
            cpu_ratios.append(run_cpu / loop_cpu)
    finally:
        for old in aside:
            shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
        removed = bool(aside) or (args.remove_between and not args.no_offload)
        if removed and args.offload_dir is None:  # files on this disk, beside the output
            _note_removal()
    import json

    red = json.loads(line)["reduction"]
    ratio = statistics.median(ratios)
    mib = path.stat().st_size / 1024 / 1024
    what = "reduce (no offload)" if args.no_offload else "reduce"
    if args.offload_dir is not None:
        what += f" (offload in {args.offload_dir})"
    if args.inline and not args.no_offload:
        what += " (in line)"
    if args.writer and not args.no_offload:
        what += " (writer process)"
    if args.remove_between and not args.no_offload:
        what += " (files removed between runs)"
    path_of = os.environ.get("PYTHONPATH", "")
    print(
        f"{what}-vs-orjson: {mib:.0f} MiB: orjson loop {statistics.median(loops):.2f} s, "
        f"compact run --strategy reduce {statistics.median(runs):.2f} s "
        f"({red['cleared']:,} results cleared, {red['truncated']:,} truncated, {files:,} files; "
        f"{red['tokens_before']:,} -> {red['tokens_after']:,} tokens), ratio {ratio:.2f}x "
        f"median of {args.repeat} ({min(ratios):.2f}-{max(ratios):.2f}x); target <= 3x "
        f"{'OK' if ratio <= 3 else 'MISSED'}; CPU ratio {statistics.median(cpu_ratios):.2f}x "
        f"({min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}x); streamed: {red.get('streamed')}"
        f"{removal}; load average {os.getloadavg()[0]:.2f}"
        + (f"; PYTHONPATH={path_of}" if path_of else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
