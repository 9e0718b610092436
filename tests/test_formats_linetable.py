"""A streamed file parsed for a reader that takes each record (the fast loop of
``_jsonl._parse_source``: the lines of a block split at once, no line number kept while no line
was skipped) gives the lines, records and errors of the plain parse of its bytes."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.errors import TranscriptError
from compactor.formats import _jsonl
from compactor.io import FileSource, open_input

_LINES = st.sampled_from(
    [
        b'{"role":"user","content":"hi"}',
        b'{"role": "assistant", "content": "ok \\u00e9", "x": [1]}',
        b"",
        b"   ",
        b"\r",
        b"[1, 2]",
        b'{"role": "user", "content": ',
        b'{"role":"user","content":"\xff"}',
        b'{"role":"user","content":"deep","x":' + b"[" * 130 + b"]" * 130 + b"}",
        b'{"role":"user","content":"ok","x":' + b"[" * 100 + b"]" * 100 + b"}",
    ]
)


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except TranscriptError as err:
        return ("error", str(err).replace("<src>", ""), err.line)


def _parsed_streamed(raw: bytes, block: int) -> tuple[list[tuple[int, bytes]], list[Any]]:
    fd, name = tempfile.mkstemp(suffix=".jsonl")
    try:
        os.write(fd, raw)
        os.close(fd)
        info = open_input(name, stream=True)
        assert isinstance(info.source, FileSource)
        info.source.BLOCK = block
        try:
            seen: list[Any] = []
            table = _jsonl.parse_lines("<src>", info.source, lambda n, r: seen.append((n, r)))
            return [(ln.number, ln.text) for ln in table], seen
        finally:
            info.close()
    finally:
        os.unlink(name)


@settings(max_examples=300, deadline=None, database=None)
@given(
    lines=st.lists(_LINES, max_size=10),
    newline=st.sampled_from([b"\n", b"\r\n"]),
    final=st.booleans(),
    block=st.integers(1, 700),
)
def test_the_fast_loop_numbers_lines_as_the_plain_parse(
    lines: list[bytes], newline: bytes, final: bool, block: int
) -> None:
    raw = newline.join(lines) + (newline if final else b"")

    def plain() -> Any:
        table = _jsonl.parse_lines("<src>", raw)
        return [(ln.number, ln.text) for ln in table], [(ln.number, ln.obj) for ln in table]

    expected = _outcome(plain)
    for short_lines in (1, 10**9):  # every block split at once; every line found in turn
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_jsonl, "_SHORT_LINES", short_lines)
            assert _outcome(lambda: _parsed_streamed(raw, block)) == expected


@pytest.mark.parametrize("short_lines", [1, 10**9])
def test_a_blank_line_after_dense_lines_numbers_the_rest(
    monkeypatch: pytest.MonkeyPatch, short_lines: int
) -> None:
    monkeypatch.setattr(_jsonl, "_SHORT_LINES", short_lines)
    raw = b'{"role":"user","content":"a"}\n\n{"role":"user","content":"b"}\n'
    got, seen = _parsed_streamed(raw, 1 << 16)  # one block: every line in the fast loop
    assert [n for n, _ in got] == [1, 3] == [n for n, _ in seen]


def test_a_chat_of_short_lines_is_split_as_it_is_found() -> None:
    lines = [b'{"role":"user","content":"m%d"}' % i for i in range(5_000)]
    raw = b"\n".join([*lines[:2_000], b"", *lines[2_000:]]) + b"\n"
    got, seen = _parsed_streamed(raw, 50_000)  # blocks of ~1,600 lines: split
    plain = _jsonl.parse_lines("<src>", raw)
    assert got == [(ln.number, ln.text) for ln in plain]
    assert seen == [(ln.number, ln.obj) for ln in plain]
