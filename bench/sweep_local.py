"""Run the embedded summarizer on every transcript under the given folders and report the ones it
cannot summarize: a crash is a defect, whatever the session says.

    python bench/sweep_local.py ../shared/transcripts /path/to/held-out/sessions [--strategy hybrid]

Each file runs as ``compact run FILE --model local --force --no-cache`` in a child process (so a
crash of one never stops the sweep); the output goes to a temporary folder and is removed. The
summary line counts exit codes; every non-zero exit is listed with its last stderr line. Exit 4
(the loop guard refusing a summary larger than a tiny input) and exit 2 (input that is not a
transcript) are the tool working; exit 3 names a summarizer failure, the thing to look for.
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
from pathlib import Path


def sessions(folders: list[Path]) -> list[Path]:
    """Every ``*.jsonl`` under ``folders``, sorted, without compact's own outputs."""
    found = {p for folder in folders for p in folder.rglob("*.jsonl") if p.is_file()}
    return sorted(p for p in found if "reference-compactions" not in p.parts)


def run_one(path: Path, out: Path, strategy: str) -> tuple[int, str]:
    args = [sys.executable, "-m", "compactor", "run", str(path), "--model", "local", "--force"]
    args += ["--no-cache", "-q", "--strategy", strategy, "-o", str(out)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False)
    lines = done.stderr.strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--strategy", default="summarize", choices=["summarize", "hybrid"])
    ns = parser.parse_args()
    files = sessions(ns.folders)
    codes: collections.Counter[int] = collections.Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sweep-") as tmp:
        for n, path in enumerate(files):
            code, last = run_one(path, Path(tmp) / f"{n}.jsonl", ns.strategy)
            codes[code] += 1
            if code:
                failures.append(f"exit {code}  {path}\n         {last}")
    for line in failures:
        print(line)
    summary = ", ".join(f"exit {c}: {k}" for c, k in sorted(codes.items()))
    print(f"{len(files)} transcripts: {summary}")
    return 1 if codes.get(3) else 0


if __name__ == "__main__":
    raise SystemExit(main())
