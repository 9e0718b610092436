"""``compact run --model openai:NAME`` vs LangChain's SummarizationMiddleware, same fake, same file.

    python bench/bench_remote.py [TRANSCRIPT] [--mb 50] [--repeat 3] [--langchain-python PY]

Issue 34's side-by-side. Both sides run as fresh processes against their own fresh zero-latency
loopback fake (``python -m compactor.testing.fake_openai``), on the same generated transcript
(``bench/data/transcript-<N>mb.jsonl``, gen_transcript.py seed 1), doing the same work: read
the JSONL, trigger at 100,000 tokens, keep a 6-message tail, summarize the rest through the
openai SDK, write the new history as JSONL.

* **whole**: the whole history in one request. compact with ``model.context_tokens`` large,
  LangChain with ``trim_tokens_to_summarize=None`` (its whole history, rendered as one message).
* **window**: a 200,000-token summarizer window. compact plans chunks (every message is
  summarized, in about 60 requests); LangChain's way to fit a window is to trim what it sends
  (``trim_tokens_to_summarize=195,904``: it summarizes only the newest messages, one request).
  Not the same work: the figures say what each costs.

The runs take turns (compact, LangChain, per mode) ``--repeat`` times; each figure is a median,
each ratio compact / LangChain; peak RSS is the largest ``ru_maxrss`` of a side's runs
(``os.wait4``), also as a multiple of the file. LangChain runs in its own interpreter
(``--langchain-python``, default ``$LANGCHAIN_PYTHON`` or ``/work/lcvenv/bin/python``; install
``langchain`` and ``langchain-openai`` there, never into compact's environment); when it cannot
import them, its side is skipped with a message. The load average before and after is printed:
the machine is shared. Target (issue 34), on the 50 MiB file: whole <= 1.0x LangChain's time,
compact's peak RSS <= 3x the file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import (  # bench/ is on sys.path
    BENCH,
    REPO,
    FakeServer,
    compact_command,
    ensure_transcript,
    precompile,
    timed,
)

KEY = "sk-bench-0123456789abcdef"
TRIGGER = 100_000
KEEP = 6
WINDOW = 200_000
WINDOW_TRIM = WINDOW - 4_096  # what fits beside a reply, as compact reserves it
WHOLE_WINDOW = 1_000_000_000

LANGCHAIN = """
import json, sys
try:
    import orjson
    loads, dumps = orjson.loads, orjson.dumps
except ImportError:
    loads, dumps = json.loads, lambda v: json.dumps(v, ensure_ascii=False).encode()
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import convert_to_messages, convert_to_openai_messages
from langchain_openai import ChatOpenAI

path, base_url, key, out, trim = sys.argv[1:6]
with open(path, "rb") as fh:
    messages = convert_to_messages([loads(line) for line in fh if line.strip()])
model = ChatOpenAI(model="bench-model", base_url=base_url, api_key=key)
middleware = SummarizationMiddleware(
    model, trigger=("tokens", TRIGGER), keep=("messages", KEEP),
    trim_tokens_to_summarize=None if trim == "none" else int(trim),
)
update = middleware.before_model({"messages": messages}, None)
assert update is not None, "LangChain did not summarize"
kept = [m for m in update["messages"] if type(m).__name__ != "RemoveMessage"]
with open(out, "wb") as fh:
    for record in convert_to_openai_messages(kept):
        fh.write(dumps(record) + b"\\n")
""".replace("TRIGGER", str(TRIGGER)).replace("KEEP", str(KEEP))


def compact_run(compact: str, path: Path, tmp: Path, window: int) -> tuple[float, int]:
    out = tmp / "compact.jsonl"
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout's compactor
    with FakeServer() as base_url:
        config = tmp / "bench.yaml"
        config.write_text(
            "model:\n  provider: openai\n  name: bench-model\n"
            f"  base_url: {base_url}\n  api_key: {KEY}\n  context_tokens: {window}\n"
            f"trigger:\n  context_tokens: {TRIGGER}\nkeep:\n  messages: {KEEP}\ncache: false\n"
        )
        result = timed([compact, "run", str(path), "-c", str(config), "-o", str(out), "-q"], env)
    if out.stat().st_size == 0 or out.stat().st_size > path.stat().st_size // 10:
        raise SystemExit("compact run did not compact")
    return result.wall, result.rss


def langchain_run(python: str, path: Path, tmp: Path, trim: str) -> tuple[float, int]:
    out = tmp / "langchain.jsonl"
    with FakeServer() as base_url:
        result = timed([python, "-c", LANGCHAIN, str(path), base_url, KEY, str(out), trim])
    if out.stat().st_size == 0:
        raise SystemExit("LangChain wrote nothing")
    return result.wall, result.rss


def langchain_python(choice: str | None) -> str | None:
    python = choice or os.environ.get("LANGCHAIN_PYTHON") or "/work/lcvenv/bin/python"
    probe = "import langchain, langchain_openai; print(langchain.__version__)"
    try:
        proc = subprocess.run([python, "-c", probe], capture_output=True, text=True)
    except OSError:
        return None
    return python if proc.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", type=Path, help="default: the --mb file")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--langchain-python", help="an interpreter with langchain-openai")
    parser.add_argument("--modes", nargs="+", default=["whole", "window"])
    args = parser.parse_args()
    precompile()
    path = args.transcript or ensure_transcript(
        BENCH / "data" / f"transcript-{args.mb}mb.jsonl", mb=float(args.mb)
    )
    compact = compact_command()
    python = langchain_python(args.langchain_python)
    if python is None:
        print(
            "remote: LangChain not importable (install langchain + langchain-openai into a "
            "separate venv, pass --langchain-python): compact's side only"
        )
    settings = {"whole": (WHOLE_WINDOW, "none"), "window": (WINDOW, str(WINDOW_TRIM))}
    size = path.stat().st_size
    load_before = os.getloadavg()[0]
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-remote-") as name:
        tmp = Path(name)
        for mode in args.modes:
            window, trim = settings[mode]
            ours: list[tuple[float, int]] = []
            theirs: list[tuple[float, int]] = []
            for _ in range(args.repeat):
                ours.append(compact_run(compact, path, tmp, window))
                if python is not None:
                    theirs.append(langchain_run(python, path, tmp, trim))
            t_ours = statistics.median(t for t, _ in ours)
            rss_ours = max(r for _, r in ours)
            line = (
                f"{mode}: compact {t_ours:.2f} s ({min(t for t, _ in ours):.2f}-"
                f"{max(t for t, _ in ours):.2f}), peak RSS {rss_ours / 2**20:.0f} MiB = "
                f"{rss_ours / size:.2f}x the file"
            )
            if theirs:
                t_lc = statistics.median(t for t, _ in theirs)
                rss_lc = max(r for _, r in theirs)
                line += (
                    f"; LangChain {t_lc:.2f} s ({min(t for t, _ in theirs):.2f}-"
                    f"{max(t for t, _ in theirs):.2f}), peak RSS {rss_lc / 2**20:.0f} MiB; "
                    f"ratio {t_ours / t_lc:.2f}x time, {rss_ours / rss_lc:.2f}x RSS"
                )
            lines.append(line)
    load_after = os.getloadavg()[0]
    print(
        f"remote on {size / 2**20:.0f} MiB (median of {args.repeat}, taking turns; load "
        f"{load_before:.1f} before, {load_after:.1f} after): " + " | ".join(lines)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
