"""Shared JSONL plumbing for the format modules.

* :func:`parse_lines` turns bytes into :class:`Line` objects (1-based line number, the original
  bytes, the parsed object). CRLF, a UTF-8 BOM, blank lines and a missing final newline are
  tolerated; invalid UTF-8, invalid JSON and lines that are not objects raise TranscriptError.
* :func:`match_messages` finds which messages of a compacted history are unchanged originals, so
  writers can copy their records byte for byte."""

from __future__ import annotations

import copy
import dataclasses
import operator
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.prompts import PREAMBLE
from compactor.schema import (
    CALL_ENDS_KEY,
    CONTENT_TYPE_KEY,
    MAX_JSON_DEPTH,
    REASONING_NOTES_KEY,
    SKILL_BODY_KEY,
    AgenticMessage,
    Message,
    assistant_text,
    json_deeper_than,
    user_text,
)

from ._kept import with_kept
from ._lines import Line, LineTable, Records
from .base import CompactionInfo, OneLineEach, Transcript, TranscriptMeta, WriteMode, newline_of

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = [
    "BOM",
    "INTERNAL_EXTRA_KEYS",
    "Line",
    "LineTable",
    "Records",
    "check_depth",
    "compaction_time",
    "dump",
    "file_of",
    "is_unchanged",
    "mark_earlier_summary",
    "match_messages",
    "message_text",
    "newline_of",
    "parse_line",
    "parse_lines",
    "public_extra",
    "same_message",
    "snapshot",
    "stable_uuid",
    "usage_dropped",
    "with_final_newline",
    "write_per_line",
]

BOM = b"\xef\xbb\xbf"

INTERNAL_EXTRA_KEYS = frozenset(
    {CONTENT_TYPE_KEY, SKILL_BODY_KEY, CALL_ENDS_KEY, "injected", "compact_summary", "attachment"}
    | {REASONING_NOTES_KEY}
)
"""``extra`` keys the readers set for the core; never written into a record."""


def _parse(path: str, number: int, buf: bytes, start: int, end: int) -> JsonObject | None:
    """The JSON object ``buf[start:end]`` holds (one line without ``\\r\\n``); None when it is
    blank."""
    view = memoryview(buf)[start:end]
    try:
        obj = orjson.loads(view)  # orjson rejects invalid UTF-8 too: check it only on failure
    except orjson.JSONDecodeError as err:
        text = bytes(view)
        if not text.strip():
            return None
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as uerr:
            raise TranscriptError(path, number, None, f"invalid UTF-8: {uerr.reason}") from uerr
        raise TranscriptError(path, number, None, f"invalid JSON: {err}") from err
    finally:
        view.release()
    if not isinstance(obj, dict):
        kind = type(obj).__name__
        raise TranscriptError(path, number, None, f"expected a JSON object, got {kind}")
    check_depth(path, number, buf, obj, start, end)
    return obj


def _line_end(buf: bytes, start: int, end: int) -> int:
    """``end`` without a ``\\r`` before it."""
    return end - 1 if end > start and buf[end - 1] == 0x0D else end


def parse_line(path: str, number: int, chunk: bytes) -> Line | None:
    """Parse one line (``chunk`` without its ``\\n``); None when it is blank."""
    end = _line_end(chunk, 0, len(chunk))
    obj = _parse(path, number, chunk, 0, end)
    return None if obj is None else Line(number, chunk, obj, 0, end)


_COUNT_BYTES = 64 * 1024
"""Lines longer than this are cleared by counting brackets before any walk."""


def check_depth(
    path: str, number: int, text: bytes, obj: JsonObject, start: int = 0, end: int = -1
) -> None:
    """Refuse a record nested deeper than :data:`~compactor.schema.MAX_JSON_DEPTH` (orjson
    parses 1,024 levels; copying or writing such a record back would not work). ``obj`` was
    parsed from ``text[start:end]`` (default: all of ``text``).

    Every level costs two bytes (its brackets) outside every string, so a line whose bytes
    outside its ``content`` string are few cannot be that deep: most lines cost a length test
    (a string's characters take at least as many bytes in the line). The others are walked,
    which costs less than scanning their bytes, except on a long line that has few brackets
    (a wide array of numbers, say): that one is cleared by counting them.
    """
    end = len(text) if end < 0 else end
    size = structure = end - start
    content = obj.get("content")
    if type(content) is str:
        structure -= len(content)
    if structure <= 2 * MAX_JSON_DEPTH:
        return
    if size > _COUNT_BYTES and (
        text.count(b"[", start, end) + text.count(b"{", start, end) <= MAX_JSON_DEPTH
    ):
        return
    where = json_deeper_than(obj)
    if where is not None:
        raise TranscriptError(
            path,
            number,
            where if not where.startswith("[") else None,
            f"JSON nested more than {MAX_JSON_DEPTH} levels deep; compact handles at most "
            f"{MAX_JSON_DEPTH}",
        )


def parse_lines(
    path: str,
    raw: bytes | FileSource,
    each: Callable[[int, JsonObject], None] | None = None,
) -> LineTable:
    """Parse every non-blank line of ``raw`` as a JSON object (the lines share ``raw``; a
    :class:`~compactor.io.FileSource` is read block by block as it is parsed). ``each``: given
    every record as it is parsed, which the table then does not keep (:class:`LineTable`)."""
    if not isinstance(raw, bytes):
        return _parse_source(path, raw, each)
    pos = len(BOM) if raw.startswith(BOM) else 0
    size = len(raw)
    find = raw.find
    lines = LineTable(raw, each)
    add = lines.add
    number = 0
    while pos <= size:
        number += 1
        nl = find(b"\n", pos)
        if nl < 0:
            nl = size
        end = _line_end(raw, pos, nl)
        obj = _parse(path, number, raw, pos, end)
        if obj is not None:
            add(number, obj, pos, end)
        pos = nl + 1
    lines.settle()
    return lines


def _parse_source(
    path: str, source: FileSource, each: Callable[[int, JsonObject], None] | None
) -> LineTable:
    """:func:`parse_lines` over a file read in blocks: each line keeps its span in the file and
    the hash of its bytes, not the bytes. Also notes the file's BOM and line terminator."""
    lines = LineTable(source, each)
    number = 0
    offset = 0  # file offset of block[0]
    pending: list[bytes] = []  # the start of a line that goes on in the next block
    pending_at = 0
    newline_seen = False
    source.bom = source.read_at(0, len(BOM)) == BOM
    skip = len(BOM) if source.bom else 0  # bytes at the start that are no line's
    fast = lines.appenders()
    if fast is not None:
        add_start, add_end, add_check, each_record = fast
    add_number: Callable[[int], None] | None = None  # the number column, once a line is skipped
    loads, most = orjson.loads, 2 * MAX_JSON_DEPTH
    for block in source.blocks():
        pos = min(skip, len(block))
        skip -= pos
        whole = memoryview(block)
        # a block of short lines (a chat of tiny messages) is split at once below
        short = fast is not None and block.count(b"\n", pos, pos + _SAMPLE) >= _SHORT_LINES
        while (nl := block.find(b"\n", pos)) >= 0:
            if not newline_seen:
                newline_seen = True
                before = block[nl - 1] if nl > 0 else pending[-1][-1] if pending else None
                if before == 0x0D and offset + nl > 0:
                    source.newline = b"\r\n"
            number += 1
            if pending:
                pending.append(block[pos:nl])
                buf = b"".join(pending)
                pending.clear()
                _add_line(path, number, buf, 0, len(buf), pending_at, lines)
                add_number = add_number or _numbered(lines, number)
            elif fast is None:
                _add_line(path, number, block, pos, nl, offset + pos, lines)
            else:  # _add_line inlined for the common line: an object, parsed once
                end = nl - 1 if nl > pos and block[nl - 1] == 0x0D else nl
                view = whole[pos:end]
                try:
                    obj = loads(view)
                except orjson.JSONDecodeError:
                    obj = None  # blank or bad: _add_line says which
                if type(obj) is not dict:
                    _add_line(path, number, block, pos, nl, offset + pos, lines)
                    add_number = add_number or _numbered(lines, number)
                else:
                    content = obj.get("content")
                    if end - pos - (len(content) if type(content) is str else 0) > most:
                        check_depth(path, number, block, obj, pos, end)  # parsed once, too
                    if add_number is not None:
                        add_number(number)
                    add_start(offset + pos)
                    add_end(offset + end)
                    add_check(hash(view))
                    each_record(number, obj)
            pos = nl + 1
            if short:
                break  # the block's other whole lines: split at once below
        if short and (last := block.rfind(b"\n")) >= pos:
            # the same for each line, over the lines split in C: no find, no view per line
            at = offset + pos  # file offset of the line
            parts = block.split(b"\n")  # the first was read above, the last goes on
            for line in islice(parts, 1, len(parts) - 1):
                number += 1
                size = len(line)
                text = line[:-1] if size and line[-1] == 0x0D else line
                try:
                    obj = loads(text)
                except orjson.JSONDecodeError:
                    obj = None
                if type(obj) is not dict:
                    _add_line(path, number, block, at - offset, at - offset + size, at, lines)
                    add_number = add_number or _numbered(lines, number)
                else:
                    content = obj.get("content")
                    if len(text) - (len(content) if type(content) is str else 0) > most:
                        check_depth(path, number, text, obj)
                    if add_number is not None:
                        add_number(number)
                    add_start(at)
                    add_end(at + len(text))
                    add_check(hash(text))  # the hash of the line's bytes, as a view's
                    each_record(number, obj)
                at += size + 1
            pos, parts = last + 1, []
        if pos < len(block):
            if not pending:
                pending_at = offset + pos
            pending.append(block[pos:])
        offset += len(block)
    if pending:
        buf = b"".join(pending)
        _add_line(path, number + 1, buf, 0, len(buf), pending_at, lines)
    lines.settle()
    return lines


_SAMPLE, _SHORT_LINES = 65_536, 128
"""A block whose first this many bytes hold this many line ends or more (lines of 512 bytes or
less: a bytes copy of each costs less than finding it and its view) is split in C."""


def _numbered(lines: LineTable, number: int) -> Callable[[int], None] | None:
    """The number column's append once a line up to ``number`` was skipped (blank), else None:
    while none is, line i is number i + 1 and the fast loop appends no number."""
    return lines.numbered() if len(lines) != number else None


def _add_line(
    path: str,
    number: int,
    buf: bytes,
    start: int,
    end: int,
    at: int,
    lines: LineTable,
) -> None:
    """Parse ``buf[start:end]``, found at file offset ``at``, onto ``lines`` when not blank."""
    end = _line_end(buf, start, end)
    obj = _parse(path, number, buf, start, end)
    if obj is None:
        return
    view = memoryview(buf)[start:end]
    check = hash(view)
    view.release()
    lines.add(number, obj, at, at + end - start, check)


def with_final_newline(raw: bytes) -> bytes:
    """``raw`` ending with its own line terminator (for appending records)."""
    if not raw or raw.endswith(b"\n"):
        return raw
    return raw + newline_of(raw)


def file_of(transcript: Transcript, records: Sequence[bytes], mode: WriteMode = "shrink") -> bytes:
    """The file a write returns, ``records`` being its lines without their terminator:
    ``shrink``, a new file with the input's byte-order mark and line terminator; ``append``,
    the input byte for byte, then ``records``."""
    nl = transcript.newline
    body = nl.join(records) + nl
    if mode == "append":
        return with_final_newline(transcript.raw) + body
    return (BOM if transcript.has_bom else b"") + body


def dump(obj: JsonValue) -> bytes:
    """Compact JSON, UTF-8, key order kept (what Claude Code and Codex write)."""
    return orjson.dumps(obj)


EPOCH = "1970-01-01T00:00:00.000Z"
"""The compaction time of an input that records no time at all."""


def _parse_time(value: JsonValue) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def compaction_time(info: CompactionInfo | None, lines: Sequence[Line]) -> str:
    """When the records a compaction adds happened: ``info.timestamp``, else the newest
    ``timestamp`` of the input's records (ISO-8601 UTC, milliseconds).

    Never the wall clock: the same input and config must give the same bytes. The newest time
    (not the last line's) keeps the added records the newest of the session, which is what a
    client that picks a session's leaf by time needs; a file without any time gets the epoch.
    """
    if info is not None and info.timestamp:
        return info.timestamp
    newest: datetime | None = None
    for ln in lines:
        when = _parse_time(ln.obj.get("timestamp"))
        if when is not None and (newest is None or when > newest):
            newest = when
    if newest is None:
        return EPOCH
    return newest.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def stable_uuid(*parts: str) -> str:
    """A uuid5 derived from ``parts``, so the same compaction writes the same ids."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "compactor:" + "\x1f".join(parts)))


def message_text(msg: Message | AgenticMessage) -> str:
    """Visible text of a message of either type (user text, else assistant text)."""
    if isinstance(msg, Message):
        texts = [p.text for p in msg.parts if p.type == "text" and p.text]
        return "\n".join(texts) if texts else msg.content
    return user_text(msg) or assistant_text(msg)


def mark_earlier_summary(msg: Message | AgenticMessage) -> None:
    """Mark ``msg`` as a summary (in place) when it is a user message that starts with our
    :data:`~compactor.prompts.PREAMBLE`: an earlier compaction's summary in a format that has no
    key for it (openai, anthropic: their APIs refuse unknown keys). The marker is internal (never
    written), so the record is written back as it was; the summary is then never quoted back as
    the user's own words by a later compaction."""
    if msg.role == "user" and message_text(msg).lstrip().startswith(PREAMBLE):
        msg.extra[CONTENT_TYPE_KEY] = "summary"


def public_extra(extra: JsonObject) -> JsonObject:
    """``extra`` without the keys the readers added for the core."""
    return {
        k: v for k, v in extra.items() if k not in INTERNAL_EXTRA_KEYS and not k.startswith("_")
    }


def snapshot(messages: Sequence[Message | AgenticMessage]) -> list[Message | AgenticMessage]:
    """A deep copy of the history as read, so in-place edits by callers are still noticed."""
    return copy.deepcopy(list(messages))


def same_message(original: Message | AgenticMessage, new: Message | AgenticMessage) -> bool:
    """``new`` is ``original``, possibly without its usage.

    A compaction drops the usage of the messages it keeps (it measured a history that no longer
    exists): such a message is still the original one, whose records a writer keeps.
    """
    if original.role != new.role:
        return False  # a quick no: a summary is compared with every message of the history
    if type(original) is Message and type(new) is Message and original.content != new.content:
        return False  # another quick no (equal, or equal but for the usage, needs the same text)
    if original == new:
        return True
    if new.usage is not None or original.usage is None or type(new) is not type(original):
        return False
    return dataclasses.replace(original, usage=None) == new


def match_messages(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
) -> list[int | None]:
    """For each new message, the index of the original message it is (in order), or None.

    Originals are compared as they were read (``meta.snapshot``), so a message a caller
    edited in place counts as changed and is rendered afresh; one that only lost its usage
    (:func:`same_message`) is still matched.
    """
    # A caller that knows which original each new message is (a reduction changes thousands
    # of messages of a history; a search for each costs changed × history comparisons).
    known = transcript.meta.matches
    if known is not None and known[0] is new_messages:
        return list(known[1])  # the caller knows them (a reduction: message i is original i)
    originals = _originals(transcript)
    contents: list[str] | None = None
    indexed = False  # contents read (None: a history without them)
    result: list[int | None] = []
    cursor = 0
    for msg in new_messages:
        found: int | None = None
        near = len(originals)  # compared in turn up to here; from there, by content
        if type(msg) is Message:
            near = min(near, cursor + _INDEXED_FROM)
        for j in range(cursor, near):
            if same_message(originals[j], msg):
                found = j
                break
        if found is None and near < len(originals) and type(msg) is Message:
            if not indexed:
                contents, indexed = _contents(originals), True
            found = _indexed(originals, contents, msg, near)
        if found is not None:
            cursor = found + 1
        result.append(found)
    return result


_INDEXED_FROM = 1_024
"""A chat message not among this many originals from where the search stands is looked up by
content (:func:`_indexed`): the summary, which is none of them, and the kept tail after it."""


def _contents(originals: Sequence[Message | AgenticMessage]) -> list[str] | None:
    """Each original's content (read in C), when every one has one; else None."""
    try:
        return list(map(_CONTENT, originals))
    except AttributeError:  # an AgenticMessage
        return None


_CONTENT = operator.attrgetter("content")


def _indexed(
    originals: Sequence[Message | AgenticMessage],
    contents: list[str] | None,
    msg: Message,
    cursor: int,
) -> int | None:
    """The first original from ``cursor`` on that :func:`same_message` finds ``msg`` is, as the
    walk of every original finds it, looked for among those of the same content only (the
    same message has it: a summary is not compared with each of a million messages, in
    Python, on its way to the kept tail after it)."""
    if contents is None:  # an agentic history: each original compared in turn
        return next(
            (j for j in range(cursor, len(originals)) if same_message(originals[j], msg)), None
        )
    at = cursor
    while True:
        try:
            at = contents.index(msg.content, at)
        except ValueError:
            return None
        if same_message(originals[at], msg):
            return at
        at += 1


def _originals(transcript: Transcript) -> Sequence[Message | AgenticMessage]:
    snapshot = transcript.meta.snapshot
    return transcript.messages if snapshot is None else snapshot


def is_unchanged(transcript: Transcript, matches: Sequence[int | None]) -> bool:
    """True when the new history is exactly the transcript's history."""
    return len(matches) == len(transcript.messages) and all(m == i for i, m in enumerate(matches))


def usage_dropped(transcript: Transcript, new: Message | AgenticMessage, match: int | None) -> bool:
    """``new`` is original ``match`` without the usage the original's record carries."""
    return (
        match is not None and new.usage is None and _originals(transcript)[match].usage is not None
    )


def write_per_line(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    mode: WriteMode,
    render: Callable[[Message | AgenticMessage], JsonObject | list[JsonObject]],
    keep: Sequence[int] = (),
) -> bytes:
    """Write a one-message-per-line file (openai, eino, anthropic). ``render`` may give several
    records for one message (an agentic message with several tool results, in a chat format).

    ``shrink``: unchanged messages keep their original line bytes, the others are rendered
    (a kept message whose stale usage was dropped too, so a re-read does not find it again).
    ``append``: the original file byte for byte, then the whole new history rendered.
    """
    matches = match_messages(transcript, new_messages)
    if is_unchanged(transcript, matches):
        return transcript.raw
    nl = transcript.newline
    if mode == "append":
        return file_of(transcript, [_dump_all(render(m), nl) for m in new_messages], mode)
    lines = transcript.meta.lines
    origin = transcript.meta.origin
    out = [
        lines[origin[j][0]].text
        if j is not None and not usage_dropped(transcript, msg, j)
        else _dump_all(render(msg), nl)
        for msg, j in zip(new_messages, matches, strict=True)
    ]
    if keep:
        out = with_kept(out, matches, origin, keep, lines)
    return file_of(transcript, out)


def _dump_all(records: JsonObject | list[JsonObject], nl: bytes) -> bytes:
    return nl.join(dump(r) for r in records) if isinstance(records, list) else dump(records)


def make_transcript(
    name: str,
    path: str,
    raw: bytes | FileSource,
    lines: Sequence[Line],
    messages: list[Message] | list[AgenticMessage],
    origin: Sequence[Sequence[int]] | None = None,
    start: int = 0,
) -> Transcript:
    """The Transcript every line-based reader returns: records, the parsed lines, each
    message's origin lines (default: message i came from line i) and where the history starts.
    :func:`compactor.formats.registry.read_transcript` adds the snapshot of the messages."""
    return Transcript(
        format=name,
        path=path,
        source=raw,
        messages=messages,
        records=lines.records if isinstance(lines, LineTable) else [ln.obj for ln in lines],
        meta=TranscriptMeta(
            lines=lines,
            origin=OneLineEach(len(lines)) if origin is None else origin,
            start=start,
        ),
    )
