"""Writing a compacted history back as Copilot CLI events (see :mod:`.copilot`).

Unchanged messages are their original event lines; housekeeping events stay in place
(:func:`._kept.with_kept`), except a ``tool.execution_start`` of a call the new history no
longer holds and the ``hook.*`` events of a call gone or whose result changed
(:mod:`._copilot_hooks`: they hold copies of its output); a changed tool result keeps its
event's envelope and other ``data`` keys (its ``detailedContent`` and ``contents``, the UI's
copies of the old output, go); anything else is rendered afresh:
the summary as a ``user.message``. An event whose ``parentId`` named an event left out is
linked to the event now before it, so the chain holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message, content_type, loads_json

from . import _jsonl
from ._convert import as_agentic
from ._copilot_events import ASSISTANT, RESULT, START, SYSTEM, USER
from ._copilot_hooks import hooks_of
from ._kept import with_kept
from .base import CompactionInfo, Transcript, WriteMode

__all__ = ["write_events"]


def _call_ids(messages: Sequence[Message | AgenticMessage]) -> set[str]:
    ids: set[str] = set()
    for msg in messages:
        if isinstance(msg, AgenticMessage):
            ids.update(
                b.call_id for b in msg.blocks if b.type == "function_tool_call" and b.call_id
            )
        else:
            ids.update(c.id for c in msg.tool_calls)
    return ids


def _call_of(rec: JsonObject) -> str | None:
    data = rec.get("data")
    call = data.get("toolCallId") if isinstance(data, dict) else None
    return call if isinstance(call, str) else None


def write_events(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    mode: WriteMode,
    info: CompactionInfo | None,
) -> bytes:
    """The events of the new history (``mode``: Copilot offers no ``--append``: shrink)."""
    del mode  # SPEC.can_append is False: the run never asks for an append
    matches = _jsonl.match_messages(transcript, new_messages)
    if _jsonl.is_unchanged(transcript, matches):
        return transcript.raw
    lines, origin = transcript.meta.lines, transcript.meta.origin
    originals = transcript.meta.snapshot or transcript.messages
    gone = _call_ids(originals) - _call_ids(new_messages)
    spoken = {where[0] for where in origin}
    changed = {
        call
        for msg, j in zip(new_messages, matches, strict=True)
        if (j is None or _jsonl.usage_dropped(transcript, msg, j))
        for call in _result_ids(msg)
    }
    hooks = hooks_of(lines, originals, gone | changed)
    keep = [
        i
        for i, ln in enumerate(lines)
        if i not in spoken
        and i not in hooks
        and not (
            ln.obj.get("type") == START and "agentId" not in ln.obj and _call_of(ln.obj) in gone
        )
    ]
    results: dict[str, tuple[int, JsonObject]] = {}  # call id → (message index, its event)
    for m, where in enumerate(origin):
        rec = lines[where[0]].obj
        if rec.get("type") == RESULT and (call := _call_of(rec)) is not None:
            results[call] = (m, rec)
    when = _jsonl.compaction_time(info, lines)
    nl = transcript.newline
    out: list[bytes] = []
    last = -1  # the line the previous message was written as (an event read as two messages)
    for n, (msg, j) in enumerate(zip(new_messages, matches, strict=True)):
        if j is not None and not _jsonl.usage_dropped(transcript, msg, j):
            line = origin[j][0]
            out.append(b"" if line == last else lines[line].text)  # b"": written already
            last = line
        else:
            last = -1
            out.append(nl.join(_jsonl.dump(e) for e in _events(msg, n, when, results)))
    # a changed result stays where its event was (after its call's housekeeping)
    placed = [
        j if j is not None else _result_of(msg, results)
        for msg, j in zip(new_messages, matches, strict=True)
    ]
    out = [text for text in with_kept(out, placed, origin, keep, lines) if text]
    written = nl.join(out).split(nl)
    kept_ids = {_id(line) for line in written}
    left_out = {i for ln in lines if isinstance(i := ln.obj.get("id"), str)} - kept_ids
    return _jsonl.file_of(transcript, _relinked(written, left_out))


def _result_ids(msg: Message | AgenticMessage) -> list[str]:
    """The calls whose results ``msg`` holds."""
    if isinstance(msg, AgenticMessage):
        return [b.call_id for b in msg.blocks if b.type == "function_tool_result" and b.call_id]
    return [msg.tool_call_id] if msg.tool_call_id else []


def _result_of(
    msg: Message | AgenticMessage, results: dict[str, tuple[int, JsonObject]]
) -> int | None:
    """The original message a changed tool result was (None: a new message)."""
    if isinstance(msg, AgenticMessage):
        for b in msg.blocks:
            if b.type == "function_tool_result" and (b.call_id or "") in results:
                return results[b.call_id or ""][0]
    elif msg.tool_call_id in results:
        return results[msg.tool_call_id][0]
    return None


_UI_COPIES = ("detailedContent", "contents")
"""A result's copies of its output besides ``content`` (the text the model reads): the UI's
full text and the tool's native blocks. A result changed by a reduction goes without them."""

_LINK = ""
"""The ``parentId`` of an event this writer adds until :func:`_relinked` links it."""


def _id(line: bytes) -> str | None:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    value = obj.get("id") if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def _relinked(lines: list[bytes], left_out: set[str]) -> list[bytes]:
    """``lines`` with each ``parentId`` that names an event left out set to the event before."""
    out: list[bytes] = []
    before: str | None = None
    for line in lines:
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            out.append(line)
            continue
        if isinstance(obj, dict):
            parent = obj.get("parentId")
            if isinstance(parent, str) and (parent == _LINK or parent in left_out):
                obj["parentId"] = before
                line = _jsonl.dump(obj)
            if isinstance(obj.get("id"), str):
                before = obj["id"]
        out.append(line)
    return out


def _envelope(kind: str, data: JsonObject, n: int, when: str) -> JsonObject:
    import hashlib  # here only: a run that writes no Copilot event need not load OpenSSL

    digest = hashlib.sha256(_jsonl.dump(data)).hexdigest()[:16]
    return {
        "type": kind,
        "data": data,
        "id": _jsonl.stable_uuid("copilot", kind, str(n), digest),
        "timestamp": when,
        "parentId": _LINK,  # linked to the event before it by _relinked
    }


def _arguments(text: str | None) -> JsonValue:
    try:
        return loads_json(text or "{}")
    except ValueError:
        return text


def _events(
    msg: Message | AgenticMessage, n: int, when: str, results: dict[str, tuple[int, JsonObject]]
) -> list[JsonObject]:
    """The events of one new message (a tool result keeps its own event's envelope)."""
    if content_type(msg) == "summary":
        return [_envelope(USER, {"content": _jsonl.message_text(msg)}, n, when)]
    turn = as_agentic(msg)
    texts = [
        b.text or "" for b in turn.blocks if b.type in ("user_input_text", "assistant_gen_text")
    ]
    if turn.role == "assistant":
        data: JsonObject = {
            "messageId": _jsonl.stable_uuid("copilot-message", str(n), "\n".join(texts)),
            "content": "\n".join(texts),
        }
        reasoning = [b.text for b in turn.blocks if b.type == "reasoning" and b.text]
        if reasoning:
            data["reasoningText"] = "\n".join(reasoning)
        requests: list[JsonValue] = [
            {"toolCallId": b.call_id, "name": b.name, "arguments": _arguments(b.arguments)}
            for b in turn.blocks
            if b.type == "function_tool_call"
        ]
        if requests:
            data["toolRequests"] = requests
        return [_envelope(ASSISTANT, data, n, when)]
    events: list[JsonObject] = []
    if texts:
        kind = SYSTEM if turn.role == "system" else USER
        events.append(_envelope(kind, {"content": "\n".join(texts)}, n, when))
    for b in turn.blocks:
        if b.type != "function_tool_result":
            continue
        text = "\n".join(c.text or "" for c in b.content)
        found = results.get(b.call_id or "")
        if found is None:
            data = {"toolCallId": b.call_id, "success": not b.is_error, "result": {"content": text}}
            events.append(_envelope(RESULT, data, n, when))
            continue
        original = found[1]
        old = original.get("data")
        data = dict(old) if isinstance(old, dict) else {}
        result = data.get("result")
        kept = (
            {k: v for k, v in result.items() if k not in _UI_COPIES}
            if isinstance(result, dict)
            else {}
        )
        data["result"] = {**kept, "content": text}
        events.append({**original, "data": data})
    return events
