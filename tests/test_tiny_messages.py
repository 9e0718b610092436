"""Issue 28 point 7 on many tiny messages (BENCHMARKS.md "Many tiny messages"): the openai
reader's shared empty containers, the parser's inlined common line, and the walks that judge a
plain short text once. Each shortcut is compared with the general path it skips."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import pickle
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactor.errors import TranscriptError
from compactor.facts import entries_of, entry_of
from compactor.formats import _jsonl
from compactor.formats.base import OneLineEach, Transcript
from compactor.formats.records import dropped_records
from compactor.formats.registry import read_transcript
from compactor.io import FileSource, open_input
from compactor.models.local_views import first_times
from compactor.pipeline.finalize import select_user_messages
from compactor.prompts import PREAMBLE
from compactor.schema import (
    CONTENT_TYPE_KEY,
    SHARED_EMPTY_CALLS,
    SHARED_EMPTY_DICT,
    SHARED_EMPTY_LIST,
    AgenticMessage,
    Block,
    Message,
    Part,
    ToolCall,
)


def _read_streamed(path: Path) -> Transcript:
    info = open_input(str(path), stream=True)
    assert isinstance(info.source, FileSource)
    try:
        return read_transcript(str(path), info.source, "openai", snapshot=False)
    finally:
        info.close()


def _outcome(read: Callable[[], Transcript]) -> tuple[object, ...]:
    try:
        t = read()
    except TranscriptError as err:
        return ("error", err.path, err.line, err.field, str(err))
    return ("ok", t.messages, [ln.number for ln in t.meta.lines])


def test_a_plain_chat_message_shares_empty_containers_that_refuse_changes_in_place(
    tmp_path: Path,
) -> None:
    """A ``{role, content}`` record's message holds the shared empties (176 bytes a message
    less); they equal ``[]``/``{}``, refuse an in-place change with a message saying what to
    do, and a copy, deep copy or unpickled one is a plain mutable container. An earlier
    summary still gets its own marker; a record with more keys is read as before."""
    path = tmp_path / "chat.jsonl"
    lines = [
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": f"  {PREAMBLE} more"},
        {"role": "user", "content": "x", "name": "n"},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in lines) + b"\n")
    msgs = [m for m in _read_streamed(path).messages if isinstance(m, Message)]
    first, second, summary, named = msgs
    assert first == Message("user", "ok") and second == Message("assistant", "ok")
    assert first.parts is SHARED_EMPTY_LIST and first.tool_calls is SHARED_EMPTY_CALLS
    assert first.extra is SHARED_EMPTY_DICT and second.extra is SHARED_EMPTY_DICT
    assert first.content is second.content  # one "ok" for both
    assert summary.extra == {CONTENT_TYPE_KEY: "summary"}
    assert summary.extra is not SHARED_EMPTY_DICT
    assert named.name == "n" and type(named.extra) is dict and type(named.parts) is list
    for change in (
        lambda: first.extra.__setitem__("k", 1),
        lambda: first.extra.update(k=1),
        lambda: first.extra.setdefault("k", 1),
        lambda: first.parts.append(Part("text", "x")),
        lambda: first.tool_calls.extend([ToolCall("i", "n")]),
    ):
        with pytest.raises(TypeError, match="assign a new"):
            change()
    assert first.extra == {} and first.parts == []
    copied = copy.deepcopy(first)
    copied.extra["k"] = 1
    copied.parts.append(Part("text", "x"))
    assert type(copy.copy(first.extra)) is dict and type(copy.copy(first.parts)) is list
    again = pickle.loads(pickle.dumps(first))
    again.extra["k"] = 2
    again.tool_calls.append(ToolCall("i", "n"))
    assert first.extra == {} and first.tool_calls == [] and orjson.dumps(first.extra) == b"{}"


_LINES = st.sampled_from(
    [
        b'{"role": "user", "content": "ok"}',
        b'{"role": "assistant", "content": "Done."}',
        b'{"role": "user", "content": "ok"}\r',
        b"",
        b"   ",
        b'{"role": "tool", "content": "out", "tool_call_id": "c"}',
        b'{"role": "user", "content": "\xc3\xa9t\xc3\xa9", "x": [1, {"y": null}]}',
        b'{"role": "assistant", "content": null, "tool_calls": []}',
        b'{"role": "user", "content": [{"type": "text", "text": "hi"}]}',
        b'{"role": 5, "content": "x"}',
        b'{"role": "user", "content": 5}',
        b'{"type": "user", "message": {}}',
        b"[1]",
        b"null",
        b'{"role": "user"',
        b'{"role": "user", "content": "\xff"}',
        b'{"role": "user", "content": "x", "deep": ' + b"[" * 300 + b"]" * 300 + b"}",
        b'{"role": "user", "content": "' + b"a" * 3000 + b'"}',
    ]
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(_LINES, min_size=1, max_size=12), block=st.sampled_from([7, 64, 1 << 20]))
def test_property_a_streamed_file_reads_as_its_bytes_do(
    tmp_path: Path, lines: list[bytes], block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parser's inlined common line (a streamed file) gives the messages, lines and error
    of the general path (the same bytes read whole), whatever the lines and wherever the
    blocks end."""
    raw = b"\n".join(lines) + b"\n"
    path = tmp_path / "f.jsonl"
    path.write_bytes(raw)
    monkeypatch.setattr(FileSource, "BLOCK", block)
    info = open_input(str(path), stream=True)
    assert isinstance(info.source, FileSource)
    try:
        streamed = _outcome(lambda: read_transcript(str(path), info.source, "openai"))
        if streamed[0] == "ok":  # each line's bytes, read again from the file
            t = read_transcript(str(path), info.source, "openai", snapshot=False)
            assert [ln.text for ln in t.meta.lines] == [x.rstrip(b"\r") for x in lines if x.strip()]
    finally:
        info.close()
    assert streamed == _outcome(lambda: read_transcript(str(path), raw, "openai"))


def _chat() -> list[Message]:
    return [
        Message("system", "S"),
        Message("assistant", "<turn_aborted>"),  # the same text as a user notice below
        Message("user", "<turn_aborted>"),
        Message("user", "ok"),
        Message("assistant", "ok"),
        Message("user", "null"),
        Message("assistant", " None "),
        Message("user", "ok", extra={"injected": True}),
        Message("user", f"{PREAMBLE} x", extra={CONTENT_TYPE_KEY: "summary"}),
        Message("user", "ok", parts=[Part("text", "ok"), Part("image_url", url="u")]),
        Message("assistant", "", tool_calls=[ToolCall("c", "Bash", '{"command": "ls"}')]),
        Message("tool", "out", tool_call_id="c", tool_name="Bash"),
        Message("user", "[Request interrupted by user]"),
        Message("user", "<user_shell_command>ls</user_shell_command>"),
        Message("user", "ok"),
        Message("user", "x" * 300),
        Message("user", "x" * 300),
    ]


def test_entries_of_is_entry_of_for_every_message() -> None:
    """:func:`entries_of` (a plain short text judged once) gives each message's
    :func:`entry_of`, a text seen under another role or with a marker included."""
    agentic = AgenticMessage("user", [Block("user_input_text", "ok")])
    messages: list[Message | AgenticMessage] = [*_chat(), agentic] * 2
    assert entries_of(messages) == [entry_of(i, m) for i, m in enumerate(messages)]


def test_a_repeated_user_text_is_judged_for_the_finalizer_as_it_was_alone() -> None:
    """The finalizer's candidates (a plain user text judged once) are those it chose message
    by message: a notice by shape is never one, a text an assistant said first still is."""
    messages = _chat()[1:] * 3
    kept, _ = asyncio.run(select_user_messages(messages, 10_000, None))
    alone = [asyncio.run(select_user_messages([m], 10_000, None))[0] for m in messages]
    assert kept == [text for one in alone for text in one]
    assert "ok" in kept and "<turn_aborted>" not in kept


def test_first_times_drops_only_repeats_of_remembered_short_texts() -> None:
    texts = ["a", "b", "a", "y" * 300, "y" * 300, "c", "b", "d", "c"]
    assert list(first_times(texts)) == ["a", "b", "y" * 300, "y" * 300, "c", "d"]
    assert list(first_times(texts, most=2)) == ["a", "b", "y" * 300, "y" * 300, "c", "d", "c"]


def test_dropped_records_of_a_one_line_each_file_are_those_of_the_walk(tmp_path: Path) -> None:
    """The dropped-record count of a file whose message i is its line i (marked without a walk
    of every line) is the count the per-message walk gives."""
    lines = [b'{"role": "system", "content": "S"}'] + [
        orjson.dumps({"role": "user" if i % 2 else "assistant", "content": f"m{i}"})
        for i in range(40)
    ]
    raw = b"\n".join(lines) + b"\n"
    t = read_transcript("t.jsonl", raw, "openai")
    assert isinstance(t.meta.origin, OneLineEach)
    new = [t.messages[0], Message("user", "summary"), *t.messages[-3:]]
    out = b"\n".join([lines[0], b'{"role": "user", "content": "summary"}', *lines[-3:]]) + b"\n"
    walked = dataclasses.replace(t, meta=dataclasses.replace(t.meta, origin=list(t.meta.origin)))
    assert dropped_records(t, new, out, "shrink") == dropped_records(walked, new, out, "shrink")
    gone = out.replace(lines[-1] + b"\n", b"")
    partial = new[:-1]
    assert dropped_records(t, partial, gone, "shrink") == dropped_records(
        walked, partial, gone, "shrink"
    )
    assert _jsonl.same_message(Message("user", "a"), Message("user", "b")) is False


def test_a_tiny_message_costs_less_than_250_traced_bytes(tmp_path: Path) -> None:
    """Reading 20,000 tiny chat messages (streamed) holds less than 250 bytes a message: the
    message (120), its line's columns (32) and list slots; fresh empty containers per message
    (176 more) or a record kept per line would break it."""
    texts = [b"ok", b"Done.", b"run the tests", b"thanks"]
    path = tmp_path / "tiny.jsonl"
    path.write_bytes(
        b"".join(
            b'{"role": "%s", "content": "%s"}\n'
            % (b"user" if i % 2 else b"assistant", texts[i % 4])
            for i in range(20_000)
        )
    )
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        t = _read_streamed(path)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(t.messages) == 20_000
    assert held / 20_000 < 250, held / 20_000
