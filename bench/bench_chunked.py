"""Chunked summarization overhead: the engine alone, with a model that answers at once.

    python bench/bench_chunked.py TRANSCRIPT [--window 32000] [--repeat 3] [--scale 1.3]

Reads TRANSCRIPT, then summarizes it in chunks of a ``--window``-token summarizer with a model
that replies instantly (reporting ``usage.prompt_tokens`` = ``--scale`` x compact's estimate, as a
real server's tokenizer would, so the learned scale and the re-planning are exercised). Prints
the chunk count and the best time of ``--repeat`` runs: what planning, masking off, events and the
retry engine cost per chunk, with no model time in it.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import compactor as c
from compactor.counting.tokens import estimate_message
from compactor.formats.registry import read_transcript


class Instant:
    name = "instant"

    def __init__(self, scale: float) -> None:
        self.scale = scale

    async def generate(self, messages: list[Any], **options: Any) -> c.Message:
        tokens = int(sum(estimate_message(m) for m in messages) * self.scale)
        return c.Message("assistant", "<summary>\nok\n</summary>", usage=c.Usage(tokens, 5, tokens))


async def once(messages: list[Any], window: int, scale: float) -> tuple[int, float]:
    config: c.Config[Any] = c.Config(
        model=Instant(scale),
        summarizer_context_tokens=window,
        reply_reserve_tokens=1024,
        mask_secrets=False,
    )
    start = time.perf_counter()
    outcome = await c.new(config).summarize_detailed(c.AgentState(messages))
    return len(outcome.chunks), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", type=Path)
    parser.add_argument("--window", type=int, default=32_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.3)
    args = parser.parse_args()
    messages = read_transcript(str(args.transcript), args.transcript.read_bytes()).messages
    runs = [asyncio.run(once(messages, args.window, args.scale)) for _ in range(args.repeat)]
    chunks = runs[0][0]
    best = min(t for _, t in runs)
    print(
        f"chunked: {len(messages):,} messages in {chunks} chunks of a {args.window:,}-token "
        f"window, {best:.2f} s best of {args.repeat} ({best / chunks * 1000:.1f} ms per chunk)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
