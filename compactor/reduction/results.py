"""Tool results in a history: where they are, what they hold, and how one is replaced.

Both message shapes (SPEC §1): a chat ``tool`` message is one result; an agentic user message
holds one ``function_tool_result`` block per result (parallel calls). A result is found by
position, so one whose call is missing (an orphan) or whose call id repeats is still a result;
its tool name comes from its own message, else from the nearest earlier call with its id.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass

from compactor.schema import MEDIA_BLOCK_TYPES, AgenticMessage, Block, M, Message

__all__ = [
    "CLEARED_TEXT",
    "PERSISTED_CLOSE",
    "PERSISTED_OPEN",
    "PROCESSED_KEY",
    "ResultRef",
    "find_results",
    "replace_result",
    "result_payload",
    "result_state",
    "result_text",
    "round_starts",
    "text_state",
]

_ATOMIC = (str, int, float, bool, type(None))

PROCESSED_KEY = "_reduction_mw_processed"
"""Eino's marker in ``extra``: the result was processed (value: ``trunc`` or ``clear``). Keys
starting with ``_`` are not written to files; a re-read placeholder is recognised by its text."""
CLEARED_TEXT = "[Old tool result content cleared]"
"""Eino's placeholder for a cleared result without an offload backend."""
PERSISTED_OPEN = "<persisted-output>"
PERSISTED_CLOSE = "</persisted-output>"


@dataclass(frozen=True, slots=True)
class ResultRef:
    """One tool result: message ``index``, ``block`` within it (None: a chat tool message)."""

    index: int
    block: int | None
    call_id: str
    name: str


def round_starts(messages: Sequence[Message | AgenticMessage]) -> list[int]:
    """Indexes of the assistant messages that make tool calls: one tool round starts at each
    (the calls plus the results that follow them, SPEC §10)."""
    starts: list[int] = []
    for i, msg in enumerate(messages):
        if msg.role != "assistant":
            continue
        if isinstance(msg, Message):
            if msg.tool_calls:
                starts.append(i)
        elif any(b.type == "function_tool_call" for b in msg.blocks):
            starts.append(i)
    return starts


def find_results(messages: Sequence[Message | AgenticMessage]) -> list[ResultRef]:
    """Every tool result, oldest first."""
    names: dict[str, str] = {}  # call id → tool name of its latest call
    found: list[ResultRef] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, Message):
            if msg.role == "assistant":
                for call in msg.tool_calls:
                    names[call.id] = call.name
            elif msg.role == "tool":
                cid = msg.tool_call_id or ""
                found.append(ResultRef(i, None, cid, msg.tool_name or names.get(cid, "")))
            continue
        for b, block in enumerate(msg.blocks):
            if block.type == "function_tool_call":
                names[block.call_id or ""] = block.name or ""
            elif block.type == "function_tool_result":
                cid = block.call_id or ""
                found.append(ResultRef(i, b, cid, block.name or names.get(cid, "")))
    return found


def _texts_and_media(msg: Message | AgenticMessage, ref: ResultRef) -> tuple[list[str], int]:
    if isinstance(msg, Message):
        if not msg.parts:
            return [msg.content], 0
        texts = [p.text or "" for p in msg.parts if p.type == "text"]
        media = sum(1 for p in msg.parts if p.type != "text")
        return texts, media
    assert ref.block is not None
    content = msg.blocks[ref.block].content
    texts = [b.text or "" for b in content if b.type in ("user_input_text", "assistant_gen_text")]
    media = sum(1 for b in content if b.type in MEDIA_BLOCK_TYPES or b.text is None)
    return texts, media


def result_text(msg: Message | AgenticMessage, ref: ResultRef) -> tuple[str, bool]:
    """(the result's text, whether it holds anything but text: images, files, ...)."""
    texts, media = _texts_and_media(msg, ref)
    return "\n".join(texts), media > 0


def result_payload(msg: Message | AgenticMessage, ref: ResultRef) -> str:
    """What an offload file holds: exactly the result's text when it is one text; else its
    parts as a JSON array (``type``, ``text``, ``url``), images and files included."""
    if isinstance(msg, Message):
        if not msg.parts:
            return msg.content
        items = [(p.type, p.text, p.url) for p in msg.parts]
    else:
        assert ref.block is not None
        items = [(b.type, b.text, b.url) for b in msg.blocks[ref.block].content]
    if len(items) == 1 and items[0][0] in ("text", "user_input_text") and items[0][2] is None:
        return items[0][1] or ""
    parts = [
        {k: v for k, v in (("type", t), ("text", x), ("url", u)) if v is not None}
        for t, x, u in items
    ]
    return json.dumps(parts, ensure_ascii=False, indent=1)


def result_state(msg: Message | AgenticMessage, ref: ResultRef) -> str | None:
    """``trunc`` / ``clear`` when the result was reduced already (marker, or a placeholder read
    back from a file), else None."""
    marker = msg.extra.get(PROCESSED_KEY)
    if isinstance(marker, dict) and isinstance(marker.get(ref.call_id), str):
        return str(marker[ref.call_id])
    return text_state(result_text(msg, ref)[0])


def text_state(text: str) -> str | None:
    """``trunc`` / ``clear`` when ``text`` is a placeholder this reduction wrote, else None."""
    head = text.lstrip()[:80]
    if head.startswith(CLEARED_TEXT):
        return "clear"
    if head.startswith(PERSISTED_OPEN):
        return "trunc" if "Output too large" in head else "clear"
    return None


def replace_result(msg: M, ref: ResultRef, text: str, kind: str) -> M:
    """A copy of ``msg`` whose result ``ref`` is ``text`` (marked ``kind``); the message's other
    results, its texts and reasoning are untouched. ``msg`` itself is never changed."""
    marker = msg.extra.get(PROCESSED_KEY)
    marked = {**(marker if isinstance(marker, dict) else {}), ref.call_id: kind}
    if isinstance(msg, Message) and type(msg) is Message:  # its own lists, the result new
        extra = {k: v if type(v) in _ATOMIC else copy.deepcopy(v) for k, v in msg.extra.items()}
        extra[PROCESSED_KEY] = marked
        return Message(
            role=msg.role,
            content=text,
            tool_calls=copy.deepcopy(msg.tool_calls) if msg.tool_calls else [],
            tool_call_id=msg.tool_call_id,
            tool_name=msg.tool_name,
            name=msg.name,
            reasoning_content=msg.reasoning_content,
            usage=copy.deepcopy(msg.usage),
            finish_reason=msg.finish_reason,
            extra=extra,
        )
    new = copy.deepcopy(msg)
    new.extra[PROCESSED_KEY] = marked
    if isinstance(new, Message):  # a subclass: copied whole
        new.content = text
        new.parts = []
        return new
    assert ref.block is not None
    new.blocks[ref.block].content = [Block("user_input_text", text)]
    return new
