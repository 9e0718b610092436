"""Byte-compare ``compact run --model local --force --no-cache`` and ``compact show`` of two trees.

    python bench/same_output.py REF_TREE NEW_TREE FILE...

For a change that must alter no output byte (a speed-up): each tree's ``compact`` runs with
``PYTHONPATH=TREE`` on every FILE; its exit code, stdout, stderr (the temporary directory's name
replaced) and output file, then ``show --raw`` and ``show --no-pager`` of that output, are hashed
together. One line per file (``same`` or ``DIFF``, both exit codes and hashes), then a count.
Exits 1 when any file differs.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _compact(tree: str, args: list[str], tmp: str) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONPATH=tree)
    proc = subprocess.run(
        [sys.executable, "-m", "compactor", *args], cwd="/tmp", env=env, capture_output=True
    )
    mark = tmp.encode()
    return proc.returncode, proc.stdout.replace(mark, b"TMP"), proc.stderr.replace(mark, b"TMP")


def digest(tree: str, path: str) -> tuple[str, int]:
    """(hash of everything the run and the shows printed and wrote, the run's exit code)."""
    with tempfile.TemporaryDirectory(prefix="same-output-") as tmp:
        out = str(Path(tmp) / f"out{Path(path).suffix}")
        run = _compact(
            tree, ["run", path, "--model", "local", "--force", "--no-cache", "-o", out], tmp
        )
        parts: list[object] = [run]
        if Path(out).exists():
            parts.append(Path(out).read_bytes())
            parts.append(_compact(tree, ["show", "--raw", out], tmp))
            parts.append(_compact(tree, ["show", "--no-pager", out], tmp))
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16], run[0]


def main() -> int:
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    ref, new, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    differ = 0
    for path in files:
        (a, code_a), (b, code_b) = digest(ref, path), digest(new, path)
        differ += a != b
        print(f"{'same' if a == b else 'DIFF'} rc={code_a}/{code_b} {a} {b} {path}", flush=True)
    print(f"{len(files)} files, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
