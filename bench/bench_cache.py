"""Summary cache: the same ``compact run`` twice against a slow server; the second is free.

    python bench/bench_cache.py [IGNORED_TRANSCRIPT] [--latency 2.0] [--repeat 3]

Starts ``python -m compactor.testing.fake_openai --latency L`` (a model that takes L seconds to
answer) and runs ``compact run sample_transcripts/coding-session-long.jsonl --force`` (1 MiB,
one request) twice per round in a fresh ``$XDG_CACHE_HOME``: the first run asks the server and
stores the summary, the second finds it. Also times the cache key of that input in-process
(the only cost the cache adds to a run that misses). Prints one result line: median wall time
of each run, the requests the server saw per round, whether both outputs are the same bytes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, FakeServer, compact_command, precompile  # bench/ is on sys.path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="ignored (run_all.py passes one)")
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    precompile()
    compact = compact_command()
    src = REPO / "sample_transcripts" / "coding-session-long.jsonl"
    key_ms = _key_ms(src)
    first: list[float] = []
    second: list[float] = []
    same = True
    with FakeServer("--latency", str(args.latency)) as base_url:
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(
                    os.environ,
                    OPENAI_BASE_URL=base_url,
                    OPENAI_API_KEY="sk-bench",
                    XDG_CACHE_HOME=str(Path(tmp) / "cache"),
                )
                outs = [Path(tmp) / "1.jsonl", Path(tmp) / "2.jsonl"]
                for out, times in zip(outs, (first, second), strict=True):
                    cmd = [compact, "run", str(src), "--force", "-q", "-o", str(out)]
                    start = time.perf_counter()
                    proc = subprocess.run(
                        [*cmd, "--model", "openai:fake"], env=env, capture_output=True, text=True
                    )
                    times.append(time.perf_counter() - start)
                    if proc.returncode != 0:
                        raise SystemExit(f"compact run failed: {proc.stderr[-500:]}")
                same = same and outs[0].read_bytes() == outs[1].read_bytes()
    a, b = statistics.median(first), statistics.median(second)
    print(
        f"cache: first run {a:.2f} s (server latency {args.latency} s), second run {b:.2f} s "
        f"(medians of {args.repeat}); second/first {b / a:.2f}; same bytes: {same}; "
        f"cache key of the 1 MiB input {key_ms:.1f} ms"
    )
    return 0


def _key_ms(src: Path) -> float:
    from compactor.formats.registry import read_transcript
    from compactor.pipeline.cache import cache_key

    messages = read_transcript(str(src), src.read_bytes()).messages
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        cache_key("openai:fake", {}, messages, "http://127.0.0.1:1/v1")
        runs.append((time.perf_counter() - start) * 1000)
    return statistics.median(runs)


if __name__ == "__main__":
    sys.exit(main())
