"""Tool results replaced inside a Claude Code session's own records (``--strategy reduce``).

A reduction changes no message but the results it clears or truncates, so a Claude Code
session is written back as itself (``shrink``): every line as it was, except the lines holding a
reduced ``tool_result`` (its ``content`` becomes the placeholder; ``toolUseResult``, the client's
display copy of the full output, is dropped) and the assistant lines of the loaded history,
whose ``message.usage`` measured the pre-reduction context: its counts are zeroed, as Claude
Code zeroes the usage of the messages a compaction preserves, so the client's own count (and its
auto-compact decision) sees the smaller history until its next model call reports fresh usage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message

from . import _jsonl
from .base import Transcript

__all__ = [
    "ZEROED_USAGE_KEYS",
    "patch_claude_code_results",
    "set_known_matches",
    "zero_appended_usage",
]

ZEROED_USAGE_KEYS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _patched_record(obj: JsonObject, texts: Mapping[str, str]) -> JsonObject | None:
    body = obj.get("message")
    if not isinstance(body, dict) or not isinstance(body.get("content"), list):
        return None
    changed = False
    content: list[JsonValue] = []
    for block in body["content"]:
        call = block.get("tool_use_id") if isinstance(block, dict) else None
        if block.get("type") == "tool_result" and isinstance(call, str) and call in texts:
            block = {**block, "content": [{"type": "text", "text": texts[call]}]}
            changed = True
        content.append(block)
    if not changed:
        return None
    rec = {k: v for k, v in obj.items() if k != "toolUseResult"}
    rec["message"] = {**body, "content": content}
    return rec


def _zeroed_usage(obj: JsonObject) -> JsonObject | None:
    body = obj.get("message")
    usage = body.get("usage") if isinstance(body, dict) else None
    if obj.get("type") != "assistant" or not isinstance(usage, dict):
        return None
    if not any(usage.get(k) for k in ZEROED_USAGE_KEYS):
        return None
    zeroed = {**usage, **{k: 0 for k in ZEROED_USAGE_KEYS if k in usage}}
    assert isinstance(body, dict)
    return {**obj, "message": {**body, "usage": zeroed}}


def patch_claude_code_results(
    transcript: Transcript, replaced: Mapping[int, Mapping[str, str]]
) -> bytes:
    """``transcript`` with the results ``replaced`` names (message index → call id → new
    text) rewritten in their own records; the other lines byte for byte (usage zeroed)."""
    lines = transcript.meta.lines
    origin = transcript.meta.origin
    new: dict[int, bytes] = {}
    for index, texts in replaced.items():
        for i in origin[index]:
            rec = _patched_record(lines[i].obj, texts)
            if rec is not None:
                new[i] = _jsonl.dump(rec)
    for where in origin:
        for i in where:
            if i not in new:
                rec = _zeroed_usage(lines[i].obj)
                if rec is not None:
                    new[i] = _jsonl.dump(rec)
    return _jsonl.file_of(transcript, [new.get(i, ln.text) for i, ln in enumerate(lines)])


def zero_appended_usage(data: bytes, transcript: Transcript) -> bytes:
    """``data`` (``transcript`` with records appended) with the usage of the appended assistant
    records (the copies an ``--append`` re-emitted after its boundary) zeroed: copies of the
    pre-reduction records would otherwise carry the old context size to the client."""
    start = len(_jsonl.with_final_newline(transcript.raw))
    head, tail = data[:start], data[start:]
    nl = b"\r\n" if b"\r\n" in tail[:4096] else b"\n"
    out: list[bytes] = []
    for line in tail.split(nl):
        if line.strip():
            obj = orjson.loads(line)
            rec = _zeroed_usage(obj) if isinstance(obj, dict) else None
            out.append(line if rec is None else _jsonl.dump(rec))
        else:
            out.append(line)
    return head + nl.join(out)


def set_known_matches(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    matches: Sequence[int | None],
) -> None:
    """Tell the writers which original each of ``new_messages`` (that list object) is, so
    writing it does not search for them (a reduction: message i is original i, or None when
    it was reduced)."""
    transcript.meta.matches = (new_messages, list(matches))
