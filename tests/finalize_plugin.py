"""A custom ``finalize`` that adds messages of every kind (``finalize: tests.finalize_plugin:
add_after`` in a config file), and the format-neutral view the write-back tests compare.

Each added message is described once (:data:`ADDED`) and built in either message type: a
finalizer hands back the type the transcript holds, but may build the other one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from compactor.pipeline.finalize import default_finalizer
from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall

__all__ = ["ADDED", "Added", "add_after", "add_before", "build", "entries"]


@dataclass(frozen=True)
class Added:
    """One message a finalizer adds: ``role`` user/assistant/tool."""

    role: str
    texts: tuple[str, ...] = ()
    images: tuple[str, ...] = ()
    calls: tuple[tuple[str, str, str], ...] = ()
    """(id, name, JSON arguments)"""
    result: tuple[str, str] | None = None
    """(call id, text) of a tool result"""
    extra: dict[str, Any] = field(default_factory=dict)


ADDED = [
    Added("user", ("a question the finalizer adds",)),
    Added("assistant", ("plain assistant text",)),
    Added(
        "assistant",
        ("part one", "part two"),
        calls=(
            ("call_fin1", "grep", json.dumps({"q": "x"})),
            ("call_fin2", "ls", json.dumps({"path": "/tmp"})),
        ),
    ),
    Added("tool", result=("call_fin1", "found x")),
    Added("tool", result=("call_fin2", "a b c")),
    Added("assistant", calls=(("call_fin3", "read", json.dumps({"file": "a.py"})),)),
    Added("tool", result=("call_fin3", "print('hi')")),
    Added("user", ("look at this", "and this"), images=("https://example.com/a.png",)),
]
"""User text, assistant text, multi-part text with two tool calls, their results, a call with
no text, a multi-part user message with an image."""


def build(spec: Added, kind: type[Any]) -> Message | AgenticMessage:
    """``spec`` as a message of type ``kind``."""
    if kind is AgenticMessage:
        if spec.result is not None:
            call_id, text = spec.result
            content = [Block("assistant_gen_text", text=text)]
            block = Block("function_tool_result", call_id=call_id, content=content)
            return AgenticMessage(role="tool", blocks=[block])
        text_type = "assistant_gen_text" if spec.role == "assistant" else "user_input_text"
        blocks = [Block(text_type, text=t) for t in spec.texts]
        blocks += [Block("user_input_image", url=u) for u in spec.images]
        blocks += [
            Block("function_tool_call", call_id=i, name=n, arguments=a) for i, n, a in spec.calls
        ]
        return AgenticMessage(role=spec.role, blocks=blocks)
    if spec.result is not None:
        return Message(role="tool", content=spec.result[1], tool_call_id=spec.result[0])
    msg = Message(role=spec.role, tool_calls=[ToolCall(*c) for c in spec.calls])
    if len(spec.texts) > 1 or spec.images:
        msg.parts = [Part("text", t) for t in spec.texts]
        msg.parts += [Part("image_url", url=u) for u in spec.images]
    else:
        msg.content = "".join(spec.texts)
    return msg


def entries(messages: Sequence[Any]) -> list[tuple[Any, ...]]:
    """What a model is sent, whatever the message type or the format's shape: per message its
    role and text (text parts joined) and images, then each tool call (id, name, arguments), then
    each tool result (call id, text). A format that splits a message (Codex writes each tool
    call as its own item; Anthropic carries a tool result in a user turn) gives the same list."""
    out: list[tuple[Any, ...]] = []
    for m in messages:
        if isinstance(m, Message):
            if m.role == "tool":
                out.append(("result", m.tool_call_id, m.content))
                continue
            texts = [p.text or "" for p in m.parts if p.type == "text"]
            text = "\n".join(texts) if texts else m.content
            images = [p.url for p in m.parts if p.type == "image_url"]
            if text or images or not m.tool_calls:
                out.append(("text", m.role, text, images))
            out += [("call", c.id, c.name, c.arguments) for c in m.tool_calls]
            continue
        assert isinstance(m, AgenticMessage)
        text_blocks = ("user_input_text", "assistant_gen_text")
        text = "\n".join(b.text or "" for b in m.blocks if b.type in text_blocks)
        images = [b.url for b in m.blocks if b.type.endswith("_image")]
        calls = [
            ("call", b.call_id, b.name, b.arguments)
            for b in m.blocks
            if b.type == "function_tool_call"
        ]
        results = [
            ("result", b.call_id, "\n".join(c.text or "" for c in b.content))
            for b in m.blocks
            if b.type == "function_tool_result"
        ]
        if text or images or not (calls or results):
            out.append(("text", m.role, text, images))
        out += calls + results
    return out


def _kind(messages: Sequence[Any]) -> type[Any]:
    return type(messages[-1]) if messages else Message


async def add_after(original: list[Any], summary: Any) -> list[Any]:
    """The default finalizer's output, then every :data:`ADDED` message."""
    out: list[Any] = await default_finalizer()(original, summary)
    return [*out, *(build(spec, _kind(out)) for spec in ADDED)]


async def add_before(original: list[Any], summary: Any) -> list[Any]:
    """The default finalizer's output with every :data:`ADDED` message just before the
    summary (its last message)."""
    out: list[Any] = await default_finalizer()(original, summary)
    return [*out[:-1], *(build(spec, _kind(out)) for spec in ADDED), out[-1]]
