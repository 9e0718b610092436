"""Tokens after each strategy (summarize, reduce, hybrid) on every shared session, and the
project's quality measure (``compact eval ORIGINAL COMPACTED``, 0-100) of each result.

    python bench/bench_strategies.py [TRANSCRIPTS_DIR]

For each ``<agent>/<name>.jsonl`` under ``../shared/transcripts`` (the reference compactions
aside), ``compact run --force --model local`` once per strategy, with ``--threshold`` at half the
session's own tokens (so every strategy has work to do and hybrid summarizes only when reducing
did not bring it under half). Prints a Markdown table: tokens before, after each strategy
(as the run counted them, the report's ``tokens_after``), and the exit code when a run was
refused; then the ``compact eval`` score of each output against the session (a refused run
writes the session unchanged: "-"). Offload files go to a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO

STRATEGIES = ("summarize", "reduce", "hybrid")


def run(compact: str, src: Path, work: Path, *args: str) -> dict[str, object]:
    report = work / "r.json"
    subprocess.run(
        [compact, "run", str(src), "-q", "-o", str(work / "out.jsonl"), "--report", str(report),
         "--offload-dir", str(work / "offload"), *args],
        capture_output=True,
        check=False,
    )  # fmt: skip
    data: dict[str, object] = json.loads(report.read_text())
    return data


def score(compact: str, src: Path, out: Path) -> str:
    """``compact eval SRC OUT``'s score, or ``-`` when there is no output to score."""
    if not out.exists():
        return "-"
    proc = subprocess.run(
        [compact, "eval", "--json", str(src), str(out)], capture_output=True, check=False
    )
    if proc.returncode != 0:
        return f"eval exit {proc.returncode}"
    return f"{json.loads(proc.stdout)['score']:.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = REPO.parent / "shared" / "transcripts"
    parser.add_argument("transcripts", type=Path, nargs="?", default=default)
    args = parser.parse_args()
    compact = str(Path(sys.executable).with_name("compact"))
    files = sorted(
        p for p in args.transcripts.glob("*/*.jsonl") if p.parent.name != "reference-compactions"
    )
    print(
        "| session | format | tokens before | threshold | summarize | reduce | hybrid "
        "| eval summarize | eval reduce | eval hybrid |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for src in files:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            base = run(compact, src, work, "--strategy", "reduce", "--threshold", "100000000")
            before = int(str(base["tokens_before"]))
            threshold = max(before // 2, 1)
            cells, scores = [], []
            for strategy in STRATEGIES:
                (work / "out.jsonl").unlink(missing_ok=True)
                data = run(
                    compact, src, work, "--strategy", strategy, "--force", "--model", "local",
                    "--threshold", str(threshold),
                )  # fmt: skip
                after = data.get("tokens_after")
                code = data.get("exit_code")
                cell = f"{after:,}" if isinstance(after, int) else "?"
                if code:
                    cell = f"exit {code} ({cell})"
                elif isinstance(after, int) and before:
                    cell += f" ({after / before:.0%})"
                cells.append(cell)
                scores.append("-" if code else score(compact, src, work / "out.jsonl"))
            name = f"{src.parent.name}/{src.name}"
            print(
                f"| {name} | {base.get('format')} | {before:,} | {threshold:,} | "
                + " | ".join(cells + scores)
                + " |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
