"""Reduction as one streaming pass over a one-message-per-line transcript (SPEC §10).

The general path (:meth:`Reduction.reduce` on a parsed transcript) builds a message for every
record, reduces the history and renders it back. This pass is what ``compact run --strategy
reduce`` takes when it can: :func:`scan` parses each line once and keeps only what reduction
needs (the role, an assistant record's calls, a tool record's result, the token estimate);
:func:`~.stream_reduce.reduce_scanned` makes the same decisions with the same placeholders and
files, and rebuilds only the records whose result it replaces: every other line is written back
as its original bytes. The output, the counts and the files are the general path's
(``tests/test_reduction_stream.py`` runs both). A line this pass does not read exactly as the
format's reader would cheaply (a BOM, ``\\r``, a blank line, bad JSON, a record nested too deep
or that does not fit the format, a call that is not plain) makes :func:`scan` return None: the
caller then takes the general path, which reads it (or reports it) as always.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.counting.tokens import estimate_message, utf8_len
from compactor.errors import TranscriptError
from compactor.formats.misread import silent_field
from compactor.schema import MAX_JSON_DEPTH, Message, json_deeper_than

from .jobs import may_start, reports_end, started_ids
from .results import (
    ResultRef,
    carries_user_words,
    result_text,
)
from .results import text_state as _text_state
from .speculate import Speculator

__all__ = ["LineFormat", "Scan", "StreamResult", "scan"]

_SIMPLE_RESULT_KEYS = frozenset({"role", "content", "tool_call_id", "name"})
_BOM = b"\xef\xbb\xbf"
_SHALLOW = 8
"""Records nested at most this deep need no walk (far under ``MAX_JSON_DEPTH``)."""
_PLAIN = 2 * MAX_JSON_DEPTH
"""A line with at most this many bytes outside its ``content`` string cannot be too deep
(every level costs two bytes): the readers' first test."""


class LineFormat(Protocol):
    """What a format offers a streaming pass (``streams_reduce = True`` on the format)."""

    name: str
    chat_roles: frozenset[str]
    """The roles of a record that fits without more checks (when it has no ``type``)."""

    def record_fits(self, rec: JsonObject) -> bool: ...

    def message_of(self, path: str, line: int, rec: JsonObject) -> Message: ...

    def record_of(self, msg: Message) -> JsonObject: ...


class _NotStreamable(Exception):
    """A line the streaming pass leaves to the general path."""


@dataclass(slots=True)
class StreamResult:
    """One tool result: its record (index = message index; line = index + 1)."""

    index: int
    call_id: str
    name: str
    tokens: int
    """The record's estimate (SPEC §3), as it is now."""
    text: str | None
    """The result of a plain record (``content`` a string, no other keys); None: ``message``,
    or a plain result the scan did not keep (``chars`` and ``was`` say what is needed of it;
    read again from its line when its text is needed)."""
    rec: JsonObject
    message: Message | None = None
    kind: str | None = None
    """``trunc`` / ``clear`` once replaced."""
    chars: int = 0
    """A plain result not kept: the length of its text."""
    was: str | None = None
    """A plain result not kept: ``trunc`` / ``clear`` when its text is a placeholder."""
    user: bool = False
    """A plain result not kept: whether its text carries the user's words (kept whole)."""
    job: tuple[str, ...] = ()
    """The ids of the background jobs its result started (:mod:`.jobs`): kept whole."""
    size: int = 0
    """A plain result not kept: the UTF-8 bytes of its text."""
    ends: bool = False
    """Its result reports that a background job ended (:func:`.jobs.reports_end`): never
    cleared."""


@dataclass(slots=True)
class Scan:
    """What :func:`scan` kept of a transcript."""

    path: str
    spans: list[tuple[int, int]] = field(default_factory=list)
    """Where each record's bytes are (no line terminator)."""
    results: list[StreamResult] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    """Indexes of the assistant records that make calls (:func:`.results.rounds_of`)."""
    others: list[int] = field(default_factory=list)
    """Indexes of the records that are neither the assistant's nor results."""
    tokens: int = 0
    """The history's estimate (the default counter: these records carry no provider usage)."""


def _deep(raw: bytes, start: int, end: int, rec: JsonObject) -> bool:
    """Whether ``rec`` (``raw[start:end]``), with more than :data:`_PLAIN` bytes outside its
    content, nests deeper than the readers accept: their own first test (no more brackets in
    the line than levels allowed: a C count), then a bounded walk, then their walk."""
    if raw.count(b"[", start, end) + raw.count(b"{", start, end) <= MAX_JSON_DEPTH:
        return False  # fewer brackets than levels (a C count: cheaper than any walk)
    if _within(rec, _SHALLOW):
        return False
    return json_deeper_than(rec) is not None


def _within(value: JsonValue, depth: int) -> bool:
    """Whether ``value`` (a dict or list) nests at most ``depth`` containers deep, itself
    counted: a cheap bounded walk that clears a chat record (depth 4 with its calls) at once."""
    if depth <= 0:
        return False
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if (kind is dict or kind is list) and not _within(item, depth - 1):
            return False
    return True


def _calls_bytes(calls: JsonValue, names: dict[str, str]) -> int:
    """UTF-8 bytes of plain calls (str id, name and arguments), each noted in ``names``."""
    if type(calls) is not list:
        raise _NotStreamable
    nbytes = 0
    for call in calls:
        fn = call.get("function") if type(call) is dict else None
        if type(fn) is not dict:
            raise _NotStreamable
        cid, name, args = call.get("id"), fn.get("name"), fn.get("arguments", "")
        if type(cid) is not str or type(name) is not str or type(args) is not str or not cid:
            raise _NotStreamable
        names[cid] = name
        nbytes += len(name) if name.isascii() else len(name.encode("utf-8"))  # utf8_len inline
        nbytes += len(args) if args.isascii() else len(args.encode("utf-8"))
    return nbytes


def scan(
    path: str, raw: bytes, fmt: LineFormat, *, texts: bool = True, ahead: Speculator | None = None
) -> Scan | None:
    """Read ``raw`` line by line as ``fmt`` (None: leave it to the general path).
    ``texts=False`` (no offload: a result's text is written nowhere): a plain result keeps only
    its length and whether it is a placeholder, not its text (40 MB of strings on the bench
    file: page faults cost more than reading the few long ones again). ``ahead``: told of each
    finished round (:mod:`.writer`: the files of results certain to be cleared are made while
    the scan goes on, by a process that reads each result from its line itself); its files are
    removed again when the scan returns None. With ``ahead`` and ``texts=False``, a result whose
    call id an earlier result had keeps its text (its file's name needs a hash of it)."""
    if not raw or raw.startswith(_BOM) or b"\r" in raw:
        return None
    out = Scan(path)
    try:
        _scan_into(out, raw, fmt, texts, ahead)
    except (_NotStreamable, orjson.JSONDecodeError, TranscriptError):
        if ahead is not None:
            ahead.backend.discard()
        return None
    if not out.spans and ahead is not None:
        ahead.backend.discard()
    return out if out.spans else None


def _scan_into(
    out: Scan, raw: bytes, fmt: LineFormat, texts: bool, ahead: Speculator | None
) -> None:
    loads, find, view = orjson.loads, raw.find, memoryview(raw)
    fits, message_of, roles = fmt.record_fits, fmt.message_of, fmt.chat_roles
    spans, results, starts, others = out.spans, out.results, out.starts, out.others
    names: dict[str, str] = {}  # call id → tool name of its latest call
    size, pos, tokens = len(raw), 0, 0
    events: list[int] = []  # where each finished round's first result is in ``results``
    called = False  # a call since the last result
    seen: set[str] | None = None  # call ids of the results so far (texts=False, ahead)
    if ahead is not None:
        ahead.spans = spans
        if not texts:
            seen = set()
    while pos < size:
        nl = find(b"\n", pos)
        if nl < 0:
            nl = size
        rec = loads(view[pos:nl])  # a blank line is a JSONDecodeError: the general path's
        if type(rec) is not dict:
            raise _NotStreamable
        role = rec.get("role")
        if type(role) is not str or ((role not in roles or "type" in rec) and not fits(rec)):
            raise _NotStreamable  # the reader names what is wrong
        content = rec.get("content")
        start, index = pos, len(spans)
        spans.append((pos, nl))
        pos = nl + 1
        if role == "tool":
            cid, name = rec.get("tool_call_id"), rec.get("name")
            if (
                type(content) is str
                and type(cid) is str
                and (name is None or type(name) is str)
                and rec.keys() <= _SIMPLE_RESULT_KEYS
            ):  # strings only: one level deep, no depth to test
                nb = len(content) if content.isascii() else len(content.encode())
                e = nb // 4
                tool = name or names.get(cid, "")
                job = tuple(started_ids(content)) if may_start(content) else ()
                ends = reports_end(content)
                if texts or (seen is not None and cid in seen):
                    results.append(
                        StreamResult(index, cid, tool, e, content, rec, job=job, ends=ends)
                    )
                else:
                    was = _text_state(content)
                    results.append(
                        StreamResult(
                            index,
                            cid,
                            tool,
                            e,
                            None,
                            rec,
                            None,
                            None,
                            len(content),
                            was,
                            carries_user_words(content),
                            job,
                            nb,
                            ends,
                        )
                    )
                    del rec["content"]  # freed now: the next line's strings reuse its memory
                if seen is not None:
                    seen.add(cid)
            else:
                _check_depth(raw, start, nl, rec, content)
                msg = message_of(out.path, index + 1, rec)
                e = estimate_message(msg)
                cid = msg.tool_call_id or ""
                tool = msg.tool_name or names.get(cid, "")
                text, media = result_text(msg, ResultRef(index, None, cid, tool))
                job = () if media else tuple(started_ids(text))
                ends = not media and reports_end(text)
                results.append(
                    StreamResult(index, cid, tool, e, None, rec, msg, job=job, ends=ends)
                )
            tokens += e
            if called:
                called = False
                events.append(len(results) - 1)
                if ahead is not None and not len(events) % _ROUNDS_TOLD:
                    ahead.round_done(results, events, tokens)
            continue
        if role != "assistant":
            if rec.get("tool_calls") is not None:
                raise _NotStreamable  # the reader checks them on any record
            others.append(index)
        if type(content) is str or content is None:
            if not content and not rec.get("tool_calls") and silent_field(rec) is not None:
                raise _NotStreamable  # the general path refuses a file of such records
            nbytes = 0
            if content:
                nbytes = len(content) if content.isascii() else len(content.encode())
            if role == "assistant":
                reasoning = rec.get("reasoning_content")
                if reasoning is not None:
                    if type(reasoning) is not str:
                        raise _NotStreamable
                    nbytes += utf8_len(reasoning)
                calls = rec.get("tool_calls")
                if calls is not None:
                    nbytes += _calls_bytes(calls, names)
                    if calls:
                        starts.append(index)
                        called = True
            # nbytes: the UTF-8 bytes of strings of the line, each no longer than it is written
            if nl - start - nbytes > _PLAIN and _deep(raw, start, nl, rec):
                raise _NotStreamable
            tokens += nbytes // 4
            continue
        _check_depth(raw, start, nl, rec, content)
        msg = message_of(out.path, index + 1, rec)  # parts: counted as the reader counts them
        if msg.tool_calls or msg.role != role:  # a result in a user record: the general path
            raise _NotStreamable
        tokens += estimate_message(msg)
    out.tokens = tokens
    _check_jobs(results, spans, raw)
    if ahead is not None:
        ahead.round_done(results, events, tokens)


def _check_jobs(results: list[StreamResult], spans: list[tuple[int, int]], raw: bytes) -> None:
    """Leave to the general path a transcript where a later line names a job a result started
    (whether it ended is read from that line's texts there, :mod:`.jobs`); a job no later byte
    names is running: its start stays whole (``job`` set)."""
    for r in results:
        for key in r.job:
            if raw.find(key.encode(), spans[r.index][1]) >= 0:
                raise _NotStreamable


_ROUNDS_TOLD = 16
"""The scan tells ``ahead`` of finished rounds 16 at a time (and at its end)."""


def _check_depth(raw: bytes, start: int, end: int, rec: JsonObject, content: JsonValue) -> None:
    """Leave a record nested deeper than the readers accept to the general path."""
    structure = end - start - (len(content) if type(content) is str else 0)
    if structure > _PLAIN and _deep(raw, start, end, rec):
        raise _NotStreamable
