"""Anthropic ``tool_result`` blocks in a chat-completions log (a mixed messages log).

Some agent SDKs log the assistant's calls the OpenAI way (``tool_calls``) while each result
comes back the Anthropic way, as a user message holding one ``tool_result`` block:
``{"role": "user", "content": [{"type": "tool_result", "tool_use_id": ID, "content": ...}]}``.
Read as a plain user message, the result had no text (uncounted), answered no call (every
call "in flight") and could not be cleared. Such a record is read as the ``tool`` message of
call ID; when a reduction changes it, it is written back in its own shape (the user message,
the block's keys in their order, a string content staying a string).
"""

from __future__ import annotations

from collections.abc import Callable

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import Message, Part

__all__ = ["RESULT_KEY", "result_block", "result_message", "result_record"]

RESULT_KEY = "_anthropic_result"
"""``Message.extra`` key of a result read from a ``tool_result`` block: the record's shape."""

PartsParser = Callable[[str, int, list[JsonValue], str], list[Part]]


def result_block(rec: JsonObject) -> JsonObject | None:
    """The ``tool_result`` block of a user record that holds exactly one (else None)."""
    if rec.get("role") != "user":
        return None
    content = rec.get("content")
    if type(content) is not list or len(content) != 1:
        return None
    item = content[0]
    if (
        not isinstance(item, dict)
        or item.get("type") != "tool_result"
        or not isinstance(item.get("tool_use_id"), str)
    ):
        return None
    return item


def result_message(
    path: str, line: int, rec: JsonObject, item: JsonObject, parse: PartsParser
) -> Message:
    """The ``tool`` message of the ``tool_result`` block ``item`` of record ``rec``."""
    body = item.get("content")
    parts: list[Part] = []
    if body is None or isinstance(body, str):
        text = body or ""
    elif isinstance(body, list):
        parts = parse(path, line, body, "content[0].content")
        text = "\n".join(p.text or "" for p in parts if p.type == "text")
    else:
        raise TranscriptError(
            path,
            line,
            "content[0].content",
            f"must be a string or a list, got {type(body).__name__}",
        )
    shape: JsonObject = {
        "record": {**rec, "content": None},
        "block": {**item, "content": None},
        "string": not isinstance(body, list),
    }
    extra: JsonObject = {RESULT_KEY: shape}
    if item.get("is_error") is True:
        extra["is_error"] = True  # what the facts read of a chat tool message
    return Message(
        role="tool",
        content=text,
        parts=parts,
        tool_call_id=str(item["tool_use_id"]),
        extra=extra,
    )


def result_record(msg: Message, render: Callable[[list[Part]], list[JsonObject]]) -> JsonObject:
    """The record of a result read by :func:`result_message`, in the shape it was read in,
    holding the message's (possibly changed) text or parts."""
    shape = msg.extra[RESULT_KEY]
    assert isinstance(shape, dict)
    record, block = shape["record"], shape["block"]
    assert isinstance(record, dict)
    assert isinstance(block, dict)
    body: JsonValue
    if msg.parts:
        body = list(render(msg.parts))
    elif shape.get("string") is True:
        body = msg.content
    else:
        body = [{"type": "text", "text": msg.content}]
    return {**record, "content": [{**block, "content": body}]}
