"""Issue 30 point 5 (speed of ``reduce``): what the faster offload and streaming pass must keep.

The offload backend answers a reused call id from the sizes it saved (no read back unless the
sizes match), begins ``syncfs`` on a thread while work goes on (``sync`` still returns only once
the files are durable, and raises what the thread met), and the streaming pass without offload
keeps only a plain result's length and state (its text is read again when it is truncated)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from compactor._util import run_without_loop
from compactor.formats.registry import FORMATS
from compactor.reduction import FileOffload, Reduction, ReductionConfig
from compactor.reduction.stream import scan
from compactor.reduction.stream_reduce import reduce_scanned

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_transcripts"


def test_a_reused_call_id_of_the_same_or_another_size_never_shares_a_file(tmp_path: Path) -> None:
    off = FileOffload(tmp_path / "off")
    first = off.save("clear", "call_1", "aaaa")
    same_size = off.save("clear", "call_1", "bbbb")  # compared with the file: other bytes
    again = off.save("clear", "call_1", "aaaa")  # the same bytes: the same file
    other_size = off.save("clear", "call_1", "cc")  # another size: other bytes, no read back
    other_again = off.save("clear", "call_1", "cc")
    off.sync()
    assert first == again == str(tmp_path / "off" / "clear" / "call_1")
    assert same_size.startswith(first + "-") and other_size.startswith(first + "-")
    assert len({first, same_size, other_size}) == 3 and other_again == other_size
    got = {p: Path(p).read_text() for p in (first, same_size, other_size)}
    assert got == {first: "aaaa", same_size: "bbbb", other_size: "cc"}
    assert off.written == [first, same_size, other_size]


def test_thousands_of_files_synced_on_threads_are_all_whole_and_private(tmp_path: Path) -> None:
    off = FileOffload(tmp_path / "off")
    paths = [off.save("clear", f"call_{i}", f"result {i} " + "x" * (i % 97)) for i in range(2_100)]
    off.start_sync()  # one begun by the backend at 2,048 files, then this one for the rest
    off.sync()
    assert not [t for t in threading.enumerate() if t.name == "offload-sync"]
    for i, path in enumerate(paths):
        assert Path(path).read_text() == f"result {i} " + "x" * (i % 97)
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "off" / "clear").st_mode) == 0o700


def test_what_the_sync_thread_met_is_raised_by_sync(tmp_path: Path) -> None:
    off = FileOffload(tmp_path / "off")
    off.save("clear", "call_1", "a result")
    shutil.rmtree(tmp_path / "off")  # the folder gone: syncfs cannot open it
    off.start_sync()
    with pytest.raises(FileNotFoundError):
        off.sync()


@pytest.mark.parametrize("limit", [None, 300, 50_000])
def test_without_offload_a_scan_that_keeps_no_text_writes_the_same_bytes(limit: int | None) -> None:
    src = SAMPLES / "coding-session-long.jsonl"
    raw = src.read_bytes()
    fmt = FORMATS["openai"]
    got = []
    for texts in (True, False):
        scanned = scan(str(src), raw, fmt, texts=texts)  # type: ignore[arg-type]
        assert scanned is not None
        cfg = ReductionConfig(
            force=True, max_length_for_trunc=limit, locate=lambda i, _c: ("/t/s.jsonl", i + 1)
        )
        outcome, data = run_without_loop(reduce_scanned(scanned, raw, Reduction(cfg), fmt))  # type: ignore[arg-type]
        got.append((data, json.dumps(outcome.to_dict(), sort_keys=True)))
        truncated = len(outcome.truncated)
    assert got[0] == got[1]
    assert got[0][0] is not None and b"[Old tool result content cleared]" in got[0][0]
    # limit 300: results long enough to truncate, read again from their lines
    assert (truncated > 0) == (limit == 300)
