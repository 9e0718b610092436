"""The client's own cost of one ``OpenAIModel.generate``: an in-process fake that answers at once.

    python bench/bench_openai_call.py [--messages 4 32 300] [--calls 100] [--rounds 5]
    PYTHONPATH=/tmp/base python bench/bench_openai_call.py     # another tree's compactor

Inside ``shared_clients()`` (one client and its kept-alive connection, as a batch runs), times
``--calls`` calls of a ``--messages``-message input, ``--rounds`` times; prints the fastest and
the median round's time per call, and the first call of the process (the SDK's first use). No
model time is in it: what building, sending and parsing a request costs the event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

from compactor.models.openai import OpenAIModel
from compactor.models.pool import shared_clients
from compactor.schema import Message
from compactor.testing.fake_openai import FakeOpenAI


def history(n: int) -> list[Message]:
    turns = [Message("user" if i % 2 == 0 else "assistant", "hello world " * 40) for i in range(n)]
    return [Message("system", "sys"), *turns, Message("user", "summarize")]


async def measure(n: int, calls: int, rounds: int) -> str:
    with FakeOpenAI() as fake:
        model = OpenAIModel("gpt-4o-mini", base_url=fake.base_url, api_key="sk-bench-0000")
        messages = history(n)
        start = time.perf_counter()
        await model.generate(messages)
        first = time.perf_counter() - start
        per_call = []
        async with shared_clients():
            await model.generate(messages)
            for _ in range(rounds):
                start = time.perf_counter()
                for _ in range(calls):
                    await model.generate(messages)
                per_call.append((time.perf_counter() - start) / calls)
    return (
        f"openai-call: {n + 2} messages: {min(per_call) * 1e3:.2f} ms per call (fastest of "
        f"{rounds} rounds of {calls}; median {statistics.median(per_call) * 1e3:.2f} ms), "
        f"first call of the process {first * 1e3:.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--messages", type=int, nargs="+", default=[4, 32, 300])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for n in args.messages:
        print(asyncio.run(measure(n, args.calls, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
