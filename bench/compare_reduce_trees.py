"""Byte-for-byte comparison of ``compact run --strategy reduce`` between two source trees.

    python bench/compare_reduce_trees.py BASE_TREE NEW_TREE FILE... [--modes inline,writer,none]

For each FILE and mode, runs ``compact run FILE --strategy reduce --force`` once with
``PYTHONPATH=BASE_TREE`` and once with ``PYTHONPATH=NEW_TREE``, both writing to the same output
path (the placeholders name the offload files by absolute path), and compares the exit code,
stderr, the output's bytes and the offload folder (every file's relative name, bytes and mode).
Modes: ``inline`` (default offload, ``COMPACT_OFFLOAD_INLINE=1``: the run makes every file),
``writer`` (``COMPACT_OFFLOAD_INLINE=0``: a writer process when the tree has one), ``none``
(``reduction.offload: false``). The base tree always runs its own default. Prints one line per
difference and a summary; exit 1 when anything differs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

INLINE_ENV = "COMPACT_OFFLOAD_INLINE"


def _tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): (p.read_bytes(), stat.S_IMODE(p.lstat().st_mode))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _run(tree: str, src: Path, work: Path, mode: str, base: bool) -> tuple[object, ...]:
    out = work / "out.jsonl"
    env = {k: v for k, v in os.environ.items() if k != INLINE_ENV}
    env["PYTHONPATH"] = tree
    if not base and mode != "none":
        env[INLINE_ENV] = "1" if mode == "inline" else "0"
    cmd = [sys.executable, "-m", "compactor", "run", str(src), "--strategy", "reduce"]
    cmd += ["--force", "-q", "-o", str(out)]
    if mode == "none":
        cmd += ["-c", str(work / "none.yaml")]
    proc = subprocess.run(cmd, capture_output=True, env=env, cwd=work)
    data = out.read_bytes() if out.exists() else None
    files = _tree(work / "out.offload")
    for made in (out, work / "out.offload"):
        if made.is_dir():
            shutil.rmtree(made)
        elif made.exists():
            made.unlink()
    return proc.returncode, proc.stderr, data, files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--modes", default="inline,writer,none")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="compare-reduce-"))
    (work / "none.yaml").write_text("reduction:\n  offload: false\n")
    differ = same = 0
    try:
        for src in args.files:
            for mode in args.modes.split(","):
                a = _run(args.base, src.resolve(), work, mode, True)
                b = _run(args.new, src.resolve(), work, mode, False)
                names = ("exit code", "stderr", "output", "offload files")
                bad = [n for n, x, y in zip(names, a, b, strict=True) if x != y]
                if bad:
                    differ += 1
                    print(f"DIFFERS {src} [{mode}]: {', '.join(bad)} (exit {a[0]} / {b[0]})")
                else:
                    same += 1
                    files = b[3]
                    size = len(b[2]) if isinstance(b[2], bytes) else 0
                    print(f"same {src} [{mode}]: exit {a[0]}, {size:,} bytes, {len(files)} files")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{same} identical, {differ} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
