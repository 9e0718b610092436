"""Bounded-memory ``compact check`` for the line-per-message formats that declare
``spec.streaming`` (openai, eino).

:func:`stream_check` reads a file line by line and keeps only running totals: the message count,
the default counter's tokens (the newest assistant with ``usage.total_tokens > 0`` resets the sum
to its total, later messages add their estimate) and the tool call/result ids for ``--json``. The
result equals the full read + :func:`compactor.counting.trigger.decide` with
:func:`compactor.counting.tokens.default_token_counter`, including which malformed line is reported.

Other formats, other counters and stdin return None: the caller does the full read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

import orjson

from compactor._json import JsonObject
from compactor._util import FrozenRecord
from compactor.counting.tokens import estimate_message, usage_measures_context, utf8_len
from compactor.counting.trigger import TriggerCondition, TriggerDecision, verdict
from compactor.errors import TranscriptError
from compactor.schema import MAX_JSON_DEPTH, Message
from compactor.sizes import InputLimits, LineGuard, check_size

from . import _jsonl, json_document
from ._family import fits, mismatch
from .base import Streaming
from .misread import SilentRecords
from .openai_chat import is_metadata
from .registry import FORMATS, SNIFF_RECORDS, detect_format

__all__ = ["STREAM_FORMATS", "StreamResult", "stream_check"]

STREAM_FORMATS: dict[str, Streaming] = {
    name: fmt.spec.streaming for name, fmt in FORMATS.items() if fmt.spec.streaming is not None
}
"""Formats :func:`stream_check` handles (their ``spec.streaming``), with their record reader."""

_EINO_PARTS_KEYS = ("user_input_multi_content", "assistant_output_multi_content", "multi_content")


class StreamResult(FrozenRecord):
    """What ``check`` prints for one transcript.
    (A frozen dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("format", "decision", "tool_calls", "tool_results")  # noqa: RUF023 - field order
    format: str
    decision: TriggerDecision
    tool_calls: int
    tool_results: int

    def __init__(
        self, format: str, decision: TriggerDecision, tool_calls: int, tool_results: int
    ) -> None:
        init = object.__setattr__
        init(self, "format", format)
        init(self, "decision", decision)
        init(self, "tool_calls", tool_calls)
        init(self, "tool_results", tool_results)


_Fast = tuple[str, int, int, list[str], str | None]
"""(role, estimated tokens, usage total or 0, tool-call ids, tool-result id)."""


def _fast_record(rec: JsonObject, eino: bool) -> _Fast | None:
    """What the counter needs from one record, read straight from the parsed dict.

    Equals reading the record into a Message (``message_from_record`` / Eino's reader) and
    measuring it with :func:`estimate_message`. Records this does not cover (content parts, odd
    tool calls, anything the reader would reject) return None: the caller uses the reader.
    """
    role = rec.get("role")
    if not isinstance(role, str):
        return None
    content = rec.get("content")
    if content is None:
        nbytes = 0
    elif isinstance(content, str):
        nbytes = utf8_len(content)
    else:
        return None  # content parts (or an error): the reader handles them
    usage_total = 0
    if eino:
        for key in _EINO_PARTS_KEYS:
            if rec.get(key) is not None:
                return None
        extra = rec.get("extra")
        if extra is not None and not isinstance(extra, dict):
            return None
        meta = rec.get("response_meta")
        if isinstance(meta, dict):
            usage = meta.get("usage")
            if isinstance(usage, dict):
                counts = [
                    usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                ]
                ints = [c if isinstance(c, int) and not isinstance(c, bool) else 0 for c in counts]
                if usage_measures_context(*ints):  # as the reader's Usage would (check 73 N1)
                    usage_total = ints[2]
    ids: list[str] = []
    value = rec.get("tool_calls")
    if value is not None:
        if not isinstance(value, list):
            return None
        for item in value:
            if not isinstance(item, dict):
                return None
            fn = item.get("function")
            if not isinstance(fn, dict):
                return None  # LangChain's {name, args} or no function: the reader reads it
            args = fn.get("arguments", "")
            if not isinstance(args, str):
                return None  # the reader re-serializes it
            ids.append(str(item.get("id") or ""))
            if role == "assistant":
                nbytes += utf8_len(str(fn.get("name") or "")) + utf8_len(args)
    if role == "assistant":
        reasoning = rec.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            nbytes += utf8_len(reasoning)
    result_id: str | None = None
    if role == "tool":
        call_id = rec.get("tool_call_id")
        call_ids = rec.get("tool_call_ids")
        if call_id is None and isinstance(call_ids, list) and call_ids:
            call_id = call_ids[0]
        result_id = call_id if isinstance(call_id, str) else None
    return role, nbytes // 4, usage_total, ids, result_id


def _from_message(msg: Message) -> _Fast:
    """The same facts from a Message the format's reader built."""
    usage = msg.usage
    total = 0
    if usage is not None and usage_measures_context(
        usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
    ):
        total = usage.total_tokens
    result_id = msg.tool_call_id if msg.role == "tool" else None
    return msg.role, estimate_message(msg), total, [c.id for c in msg.tool_calls], result_id


def _split_lines(fh: BinaryIO, guard: LineGuard, block_size: int = 1 << 20) -> Iterator[bytes]:
    """The lines of ``fh`` without their ``\\n``, as ``raw.split(b"\\n")`` gives them; each
    block is checked by ``guard`` (the input limits) before it is kept."""
    pending: list[bytes] = []
    while True:
        block = fh.read(block_size)
        if not block:
            break
        guard.feed(block)
        parts = block.split(b"\n")
        if len(parts) == 1:
            pending.append(block)
            continue
        if pending:
            pending.append(parts[0])
            parts[0] = b"".join(pending)
            pending = []
        last = parts.pop()
        yield from parts
        if last:
            pending.append(last)
    yield b"".join(pending)


_SHALLOW_BYTES = 2 * MAX_JSON_DEPTH
"""A line this short cannot nest deeper than MAX_JSON_DEPTH (each level takes two bytes)."""


def _maybe_document(lines: list[bytes], more: bool) -> bool:
    """Whether the file may be one JSON document, which the full read reads whole (or
    explains): its first record does not end on its line (pretty-printed), or it is a JSON
    array with nothing after it. JSON Lines whose first line is an array are streamed (and
    refused at that line, as the full read refuses them)."""
    nonblank = [ln for ln in lines if ln.strip()]
    if not nonblank:
        return False
    first = nonblank[0].strip().removeprefix(_jsonl.BOM).strip()
    if first[:1] not in (b"[", b"{"):
        return False
    if json_document.cut_short(first):
        return True  # the record goes on below
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    return first[:1] == b"[" and len(nonblank) == 1 and not more


def _explain_line(
    path: str, fh: BinaryIO, rest: Iterator[bytes], number: int, chunk: bytes, err: TranscriptError
) -> TranscriptError:
    """``err`` for line ``number``, unless that line is the file's last, has no newline after it
    and stops in the middle of a record: then the error says the file is incomplete."""
    if not err.message.startswith("invalid JSON") or next(rest, None) is not None:
        return err
    fh.seek(-1, os.SEEK_END)
    cut = chunk.strip()
    if fh.read(1) == b"\n" or cut[:1] != b"{" or not json_document.cut_short(cut):
        return err
    return json_document.incomplete_last_line(path, number)


def stream_check(
    path: str,
    trigger: TriggerCondition | None,
    format: str | None = None,
    limits: InputLimits | None = None,
) -> StreamResult | None:
    """Check ``path`` with the default counter in O(1) memory, or None when it cannot stream.
    A line or an input past ``limits`` is a TranscriptError, as in the full read."""
    if path == "-" or (format is not None and format not in STREAM_FORMATS):
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            # a FIFO or a device can be read once: the head read here would be gone when the
            # full read (a format that does not stream, records no format claims) opens it again
            return None
        fh = open(path, "rb")
    except OSError:
        return None  # the full read reports it
    with fh:
        limits = limits or InputLimits()
        check_size(path, os.fstat(fh.fileno()), limits)
        chunks = _split_lines(fh, LineGuard(path, limits))
        head_lines: list[bytes] = []
        more = False
        for chunk in chunks:
            if len(head_lines) == SNIFF_RECORDS:
                more = True
                head_lines.append(chunk)
                break
            head_lines.append(chunk)
        sniffed = head_lines[:SNIFF_RECORDS]
        head = b"\n".join(sniffed) + (b"\n" if more else b"")
        if _maybe_document(head_lines, more):
            return None  # one JSON document: read whole (or explained) by the full read
        if format is None:
            try:
                name = detect_format(path, head)
            except TranscriptError as err:
                if more and err.line is None:
                    return None  # the full read looks past the head's unclaimed records
                raise json_document.explain(path, head, err) from err
            if name not in STREAM_FORMATS:
                return None
        else:
            name = format
        reader = STREAM_FORMATS[name].reader
        eino = STREAM_FORMATS[name].eino_fields
        loads = orjson.loads
        decode_error = orjson.JSONDecodeError

        n = 0
        tokens = 0
        calls: set[str] = set()
        n_calls = 0
        results: list[str] = []
        record_error: TranscriptError | None = None
        fit_error: TranscriptError | None = None
        silent = SilentRecords()  # records read as empty that hold other keys (the full read's)
        if head_lines[0].startswith(_jsonl.BOM):
            head_lines[0] = head_lines[0][len(_jsonl.BOM) :]

        def lines() -> Iterator[bytes]:
            yield from head_lines
            yield from chunks

        for number, chunk in enumerate(lines(), start=1):
            # A line orjson parses to an object is what _jsonl.parse_line would return (JSON
            # whitespace, a trailing \r included, changes no value); blank lines and every
            # error go through parse_line itself, so they stay exactly the full read's.
            try:
                obj = loads(chunk)
            except decode_error:
                obj = None
            if type(obj) is not dict:
                try:
                    line = _jsonl.parse_line(path, number, chunk)  # raises this line's error
                except TranscriptError as err:
                    raise _explain_line(path, fh, chunks, number, chunk, err) from err
                if line is None:
                    continue  # blank
                obj = line.obj
            elif len(chunk) > _SHALLOW_BYTES:
                _jsonl.check_depth(path, number, chunk, obj)  # as parse_line does
            if name == "openai" and is_metadata(obj):
                return None  # kept as metadata, with a warning: the full read gives it
            if fit_error is None and not fits(name, obj):
                fit_error = mismatch(path, number, name, obj)
            if record_error is not None or fit_error is not None:
                continue  # after a bad record only JSON or fit errors can still come first
            fact = _fast_record(obj, eino)
            if fact is None:
                try:
                    fact = _from_message(reader(path, number, obj))
                except TranscriptError as err:
                    record_error = err
                    continue
            role, estimate, usage_total, ids, result_id = fact
            n += 1
            if not estimate and not ids and result_id is None and not obj.get("content"):
                silent.see(number, obj)  # (an int test first: a million short texts pass it)
            if usage_total > 0 and role == "assistant":
                tokens = usage_total
            else:
                tokens += estimate
            if ids:
                calls.update(ids)
                n_calls += len(ids)
            if result_id is not None:
                results.append(result_id)

    # Every non-blank line became a record, a record error or a raised JSON error.
    nonempty = n > 0 or record_error is not None or fit_error is not None
    if format is not None and not nonempty:
        raise TranscriptError(path, None, None, "empty transcript")
    if fit_error is not None:
        raise fit_error  # the full read checks every record's format before its fields
    if record_error is not None:
        raise record_error
    silent.check(path, name, n)

    paired = sum(1 for call_id in results if call_id in calls)
    return StreamResult(name, verdict(n, tokens, trigger), n_calls, paired)
