"""Exact token counting: the toktok engine vs tiktoken's single-thread ``encode_ordinary``.

    python bench/bench_count.py [TRANSCRIPT] [--encoding cl100k_base] [--repeat 3]

Both engines count the same texts (every string the exact counter counts: roles, contents, tool
calls, names) of the transcript (default: a generated 60 MiB OpenAI-chat transcript). Prints one
result line with tokens/s of each, the ratio, and asserts the counts are identical.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # the repo, if not installed

from _common import DEFAULT_TRANSCRIPT, ensure_transcript  # bench/ is on sys.path

from compactor.counting import tiktoken_counter as tc
from compactor.formats.registry import read_transcript


def timed(repeat: int, fn: object) -> tuple[float, float, int]:
    """(first-run seconds, best-of-``repeat`` seconds, result)."""
    times: list[float] = []
    result = 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return times[0], min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", type=Path, default=DEFAULT_TRANSCRIPT)
    parser.add_argument("--encoding", default="cl100k_base", choices=tc.ENCODINGS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    path = ensure_transcript(args.transcript)
    transcript = read_transcript(str(path), path.read_bytes())
    texts: list[str] = []
    for msg in transcript.messages:
        texts.extend(tc._message_texts(msg)[1])
    nbytes = sum(len(t.encode("utf-8")) for t in texts)

    slow = tc.load_engine(args.encoding, "tiktoken")
    fast = tc.load_fast_engine(args.encoding)
    if fast is None:
        print("exact-count: SKIPPED (toktok-rs not installed: pip install toktok-rs)")
        return

    first_slow, t_slow, n_slow = timed(args.repeat, lambda: slow.count_texts(texts))
    first_fast, t_fast, n_fast = timed(args.repeat, lambda: fast.count_texts(texts))
    assert n_fast == n_slow, f"counts differ: toktok {n_fast} != tiktoken {n_slow}"
    print(
        f"exact-count {args.encoding} on {nbytes / 2**20:.1f} MiB text ({n_slow:,} tokens, "
        f"identical), best of {args.repeat}: tiktoken {n_slow / t_slow / 1e6:.2f} Mtok/s "
        f"({t_slow:.2f} s), toktok {n_fast / t_fast / 1e6:.2f} Mtok/s ({t_fast:.2f} s), "
        f"ratio {t_slow / t_fast:.1f}x; first run {first_slow:.2f} s vs {first_fast:.2f} s, "
        f"ratio {first_slow / first_fast:.1f}x (target >= 3x)"
    )


if __name__ == "__main__":
    main()
