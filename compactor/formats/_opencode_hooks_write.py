"""Writing an OpenCode hook transcript (:mod:`.opencode_hooks`) back.

Shrink: each record of the new history whose messages are all kept is its own bytes; a changed
result keeps its record with ``tool_output`` replaced; any other message is rendered as the
format's ``user`` / ``assistant`` / ``tool_use`` / ``tool_result`` records (the summary as a
``user`` record). Append: the original bytes, then the whole new history rendered.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject, JsonValue
from compactor.jsontext import loads_json
from compactor.schema import AgenticMessage, Block, Message, content_type

from . import _jsonl
from ._convert import as_agentic
from ._opencode_hooks_records import CALL, RESULT
from .base import CompactionInfo, Transcript, WriteMode

__all__ = ["write_records"]


class _Originals:
    """The records the transcript's calls and results were read from, by call id."""

    def __init__(self, transcript: Transcript) -> None:
        self.calls: dict[str, JsonObject] = {}
        self.results: dict[str, JsonObject] = {}
        lines, origin = transcript.meta.lines, transcript.meta.origin
        originals = transcript.meta.snapshot or transcript.messages
        for msg, where in zip(originals, origin, strict=True):
            rec = lines[where[0]].obj
            for b in as_agentic(msg).blocks:
                if b.type == "function_tool_call" and rec.get("type") == CALL:
                    self.calls[b.call_id or ""] = rec
                elif b.type == "function_tool_result":
                    self.results[b.call_id or ""] = rec


def _arguments(text: str | None) -> JsonObject:
    try:
        value = loads_json(text or "{}")
    except ValueError:
        return {"input": text or ""}
    return value if isinstance(value, dict) else {"input": value}


def _output(old: JsonValue, text: str) -> JsonValue:
    """``tool_output`` holding ``text``, in the shape ``old`` had."""
    if isinstance(old, dict):
        return {**old, "output": text}
    return text if isinstance(old, str) else {"output": text}


def _records(msg: Message | AgenticMessage, when: str, orig: _Originals) -> list[JsonObject]:
    """The records of one new message."""
    if content_type(msg) == "summary":
        return [{"type": "user", "timestamp": when, "content": _jsonl.message_text(msg)}]
    turn = as_agentic(msg)
    out: list[JsonObject] = []
    texts = [
        b.text or "" for b in turn.blocks if b.type in ("user_input_text", "assistant_gen_text")
    ]
    if texts:
        role = "assistant" if turn.role == "assistant" else "user"
        out.append({"type": role, "timestamp": when, "content": "\n".join(texts)})
    for b in turn.blocks:
        if b.type == "function_tool_call":
            out.append(_call_record(b, when, orig))
        elif b.type == "function_tool_result":
            out.append(_result_record(b, when, orig))
    return out


def _call_record(b: Block, when: str, orig: _Originals) -> JsonObject:
    old = orig.calls.get(b.call_id or "")
    rec: JsonObject = {
        "type": CALL,
        "timestamp": when,
        "tool_name": b.name or "",
        "tool_input": _arguments(b.arguments),
    }
    return {**old, **rec, "timestamp": old.get("timestamp", when)} if old else rec


def _result_record(b: Block, when: str, orig: _Originals) -> JsonObject:
    text = "\n".join(c.text or "" for c in b.content)
    old = orig.results.get(b.call_id or "")
    if old is not None:
        return {**old, "tool_output": _output(old.get("tool_output"), text)}
    call = orig.calls.get(b.call_id or "")
    args = call.get("tool_input") if call else {}
    return {
        "type": RESULT,
        "timestamp": when,
        "tool_name": b.name or "",
        "tool_input": args if isinstance(args, dict) else {},
        "tool_output": {"output": text},
    }


def write_records(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    mode: WriteMode,
    info: CompactionInfo | None,
) -> bytes:
    """The file holding ``new_messages`` (see the module's docstring)."""
    matches = _jsonl.match_messages(transcript, new_messages)
    if _jsonl.is_unchanged(transcript, matches):
        return transcript.raw
    lines, origin = transcript.meta.lines, transcript.meta.origin
    when = _jsonl.compaction_time(info, lines)
    orig = _Originals(transcript)

    def render(msg: Message | AgenticMessage) -> list[bytes]:
        return [_jsonl.dump(r) for r in _records(msg, when, orig)]

    if mode == "append":
        return _jsonl.file_of(transcript, [line for m in new_messages for line in render(m)], mode)
    of_line: dict[int, list[int]] = {}
    for m, where in enumerate(origin):
        of_line.setdefault(where[0], []).append(m)
    out: list[bytes] = []
    i = 0
    while i < len(new_messages):
        msg, j = new_messages[i], matches[i]
        if j is not None and not _jsonl.usage_dropped(transcript, msg, j):
            group = of_line[origin[j][0]]
            if group[0] == j and matches[i : i + len(group)] == group:
                out.append(lines[origin[j][0]].text)  # every message of the record kept
                i += len(group)
                continue
            if len(group) > 1 and _result_follows(msg, new_messages[i + 1 : i + 2]):
                i += 1  # a result read as its own call: the result's record holds both
                continue
        out.extend(render(msg))
        i += 1
    return _jsonl.file_of(transcript, out)


def _result_follows(
    call: Message | AgenticMessage, after: Sequence[Message | AgenticMessage]
) -> bool:
    """``after`` starts with the result of ``call``'s one call."""
    ids = {b.call_id for b in as_agentic(call).blocks if b.type == "function_tool_call"}
    return bool(after) and any(
        b.type == "function_tool_result" and b.call_id in ids for b in as_agentic(after[0]).blocks
    )
