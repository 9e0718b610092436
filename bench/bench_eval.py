"""What the embedded summary keeps (issue 28): ``compact run --force --model local`` on each
session, then ``compact eval`` of the original against the output.

    python bench/bench_eval.py OUT_DIR SESSION.jsonl...

Prints one line per session: the overall score and each category's kept/total, and writes the
compacted files and ``<name>.eval.json`` into OUT_DIR (keep it outside the checkout when the
sessions are not licensed for it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from compactor.runs.evaluate import evaluate_files

_SHORT = {
    "current request": "req",
    "last action": "act",
    "in flight": "fly",
    "running jobs": "jobs",
    "user requests": "users",
    "last-round facts": "facts",
    "ended": "ended",
}


def main(out_dir: str, sessions: list[str]) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name in sessions:
        src = Path(name)
        dst = out / (src.stem + ".compact.jsonl")
        run = subprocess.run(
            [sys.executable, "-m", "compactor", "run", "--force", "--model", "local", str(src),
             "-o", str(dst)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if run.returncode != 0:
            print(f"{src.name}: run failed ({run.returncode}): {run.stderr.strip()}")
            continue
        result = evaluate_files(str(src), str(dst))
        (out / (src.stem + ".eval.json")).write_text(json.dumps(result.as_dict(), indent=1))
        cats = " ".join(
            f"{_SHORT[c.name]} {c.kept}/{len(c.items)}" for c in result.categories if c.items
        )
        print(f"| {src.name} | {result.score:.1f} | {cats} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
