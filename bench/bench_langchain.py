"""Peer anchor: LangChain's ``count_tokens_approximately`` + a threshold decision vs ours.

    python bench/bench_langchain.py [TRANSCRIPT] [--repeat 5] [--threshold 160000]

LangChain runs in its own venv (bench/.venv-langchain, created with ``langchain-core`` when
missing); ours (``default_token_counter`` + ``compactor.counting.trigger.decide``) runs in this
interpreter. Both get the same messages, already parsed (parsing is not timed): LangChain's
from ``convert_to_messages`` over the JSONL records, ours from ``read_transcript``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

BENCH = Path(__file__).resolve().parent
VENV = BENCH / ".venv-langchain"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> Path:
    python = venv_python()
    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    check = subprocess.run([str(python), "-c", "import langchain_core"], capture_output=True)
    if check.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "langchain-core"],
            check=True,
        )
    return python


def best_of(repeat: int, fn: object) -> tuple[float, object]:
    best = float("inf")
    result: object = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best, result


def langchain_worker(path: Path, repeat: int, threshold: int) -> None:
    """Runs inside bench/.venv-langchain: prints a JSON result line."""
    import langchain_core
    from langchain_core.messages import convert_to_messages
    from langchain_core.messages.utils import count_tokens_approximately

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    messages = convert_to_messages(records)

    def run() -> tuple[int, bool]:
        tokens = count_tokens_approximately(messages)
        return tokens, tokens > threshold

    seconds, (tokens, triggered) = best_of(repeat, run)  # type: ignore[misc]
    out = {
        "seconds": seconds,
        "tokens": tokens,
        "triggered": triggered,
        "messages": len(messages),
        "version": langchain_core.__version__,
    }
    print(json.dumps(out))


def ours(path: Path, repeat: int, threshold: int) -> tuple[float, int | None, bool]:
    sys.path.insert(0, str(BENCH.parent))
    from compactor.counting.config import TriggerCondition
    from compactor.counting.trigger import decide
    from compactor.formats.registry import read_transcript

    transcript = read_transcript(str(path), path.read_bytes())
    trigger = TriggerCondition(context_tokens=threshold)

    def run() -> object:
        return asyncio.run(
            decide(transcript.messages, transcript.tools, trigger, always_count=True)
        )

    seconds, decision = best_of(repeat, run)
    return seconds, decision.tokens, decision.triggered  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threshold", type=int, default=160_000)
    parser.add_argument("--langchain-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.langchain_worker:
        langchain_worker(args.transcript, args.repeat, args.threshold)
        return

    sys.path.insert(0, str(BENCH))
    from _common import DEFAULT_TRANSCRIPT, ensure_transcript

    path = ensure_transcript(args.transcript or DEFAULT_TRANSCRIPT)
    python = ensure_venv()
    proc = subprocess.run(
        [
            str(python),
            __file__,
            str(path),
            "--langchain-worker",
            "--repeat",
            str(args.repeat),
            "--threshold",
            str(args.threshold),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    lc = json.loads(proc.stdout.strip().splitlines()[-1])
    t_ours, tokens, triggered = ours(path, args.repeat, args.threshold)
    print(
        f"langchain-anchor on {path.stat().st_size / 2**20:.1f} MiB ({lc['messages']} messages): "
        f"langchain-core {lc['version']} count_tokens_approximately+decision "
        f"{lc['seconds'] * 1000:.1f} ms ({lc['tokens']:,} tok, triggered={lc['triggered']}), "
        f"ours default_token_counter+decide {t_ours * 1000:.1f} ms "
        f"({tokens:,} tok, triggered={triggered}), ratio {lc['seconds'] / t_ours:.2f}x"
    )


if __name__ == "__main__":
    main()
