"""Secret masking of a whole history vs the bare orjson line loop over the same file (issue 34).

    python bench/bench_masking.py [TRANSCRIPT] [--mb 50] [--repeat 5]

In one process, taking turns ``--repeat`` times: ``for line in open(f, 'rb'): orjson.loads(line)``
and ``SecretMasker().mask_messages(messages)`` over the file's messages (parsed once beforehand,
as a run has them), each timed in CPU seconds (the machine is shared). Prints the medians and
the ratio masking / loop; target <= 1.0x on the 50 MiB file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import orjson
from _common import BENCH, REPO, ensure_transcript  # bench/ is on sys.path

sys.path.insert(0, str(REPO))

from compactor.formats.registry import read_transcript
from compactor.secrets.masking import SecretMasker


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("transcript", nargs="?", type=Path)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = args.transcript or ensure_transcript(
        BENCH / "data" / f"transcript-{args.mb}mb.jsonl", mb=float(args.mb)
    )
    messages = read_transcript(str(path), path.read_bytes()).messages
    SecretMasker().mask_messages(messages[:10])  # the scan's first use (pydantic-core import)
    load_before = os.getloadavg()[0]
    loops: list[float] = []
    masks: list[float] = []
    counts: dict[str, int] = {}
    for _ in range(args.repeat):
        start = time.process_time()
        with open(path, "rb") as fh:
            for line in fh:
                if line.strip():
                    orjson.loads(line)
        loops.append(time.process_time() - start)
        masker = SecretMasker()
        start = time.process_time()
        masker.mask_messages(messages)
        masks.append(time.process_time() - start)
        counts = masker.counts
    loop, mask = statistics.median(loops), statistics.median(masks)
    print(
        f"masking: {path.stat().st_size / 2**20:.0f} MiB, {len(messages):,} messages: orjson loop "
        f"{loop:.3f} s, mask_messages {mask:.3f} s ({min(masks):.3f}-{max(masks):.3f}), ratio "
        f"{mask / loop:.2f}x (CPU seconds, median of {args.repeat}, taking turns; load "
        f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after; masked {counts or 'nothing'}); "
        f"target <= 1.0x {'OK' if mask <= loop else 'MISSED'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
