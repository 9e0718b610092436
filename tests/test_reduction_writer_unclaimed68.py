"""The writer process removes on ``u NAME`` only a file it made (reduce68, RELIABILITY row 3212).

A name the scan gave the child in advance that the clearing did not use is removed by the child
(``u NAME``, a safety net). After the child stopped at another process's file it skipped the names
that followed, and a ``u`` for one of them removed whatever held that name: another process's
file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compactor.errors import StreamError
from compactor.reduction.writer import ProcessOffload

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the writer process needs fork")

_N = 40


def _content(i: int) -> str:
    return f"result {i} " + ("é" if i % 3 == 0 else "x") * 300


def _named(tmp_path: Path, unclaimed: int) -> ProcessOffload:
    """A backend whose child is forked with ``_N`` files named in advance, each claimed by the
    clearing but ``unclaimed``."""
    lines = [
        json.dumps({"role": "tool", "tool_call_id": f"call_{i}", "content": _content(i)})
        for i in range(_N)
    ]
    raw = "".join(line + "\n" for line in lines).encode()
    off = ProcessOffload(tmp_path / "off", raw)
    pos = 0
    for i, line in enumerate(lines):
        span = (pos, pos + len(line.encode()))
        pos = span[1] + 1
        off.claim_ahead(i, f"call_{i}", None, span, len(_content(i).encode()))
    off.send()  # the child begins
    for i in range(_N):
        if i != unclaimed:
            assert off.use_ahead(i) == f"{tmp_path / 'off' / 'clear'}/call_{i}"
    return off


def test_the_writer_removes_no_unclaimed_name_it_did_not_make(
    tmp_path: Path,
) -> None:
    """The child stops at another process's file (call_7) before reaching call_20, which another
    process made too and the clearing did not use: both stay as they were."""
    folder = tmp_path / "off" / "clear"
    folder.mkdir(mode=0o700, parents=True)
    for at in (7, 20):  # made before the child begins: it meets call_7 and stops there
        (folder / f"call_{at}").write_bytes(b"another process's")
    off = _named(tmp_path, unclaimed=20)
    with pytest.raises(StreamError, match="another process created this file during the run"):
        off.sync()
    off.discard()
    assert sorted(p.name for p in folder.iterdir()) == ["call_20", "call_7"]
    assert {p.read_bytes() for p in folder.iterdir()} == {b"another process's"}
