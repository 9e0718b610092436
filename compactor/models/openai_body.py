"""The chat-completions request body, with no import of the openai client.

:func:`to_wire` turns a history (:class:`~compactor.schema.Message` or
:class:`~compactor.schema.AgenticMessage`) into chat-completions messages: text parts are joined,
media become ``[image]`` placeholders, tool calls and results keep their ids (a result without
one becomes a user message). :class:`RequestBody` is the whole request, serialised (orjson) a
message at a time whenever it is read: the bytes sent, and the bytes the summary cache keys on.
Here, apart from the client, so that ``check --explain`` computes the cache key a run uses
without importing openai (:func:`request_params` picks the options a request carries).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message, blocks_text, parts_text

__all__ = ["REQUEST_OPTIONS", "RequestBody", "request_body", "request_params", "to_wire"]

REQUEST_OPTIONS = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "reasoning_effort",
        "extra_body",
        "extra_headers",
    }
)
"""The model options an OpenAI-compatible request carries (others are ignored)."""


def request_params(options: Mapping[str, JsonValue]) -> JsonObject:
    """The options a request carries (``temperature``, ``extra_body``, ...), without Nones."""
    return {k: v for k, v in options.items() if k in REQUEST_OPTIONS and v is not None}


def _wire_call(call_id: str, name: str, arguments: str) -> JsonObject:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments or "{}"},
    }


def _message_to_wire(msg: Message) -> list[JsonObject]:
    if msg.role == "tool":
        text = parts_text(msg)
        if msg.tool_call_id:
            return [{"role": "tool", "tool_call_id": msg.tool_call_id, "content": text}]
        label = msg.tool_name or msg.name or "tool"
        return [{"role": "user", "content": f"[{label} result]\n{text}"}]
    if msg.role == "assistant":
        out: JsonObject = {"role": "assistant"}
        text = parts_text(msg)
        out["content"] = text if text or not msg.tool_calls else None
        if msg.tool_calls:
            out["tool_calls"] = [_wire_call(c.id, c.name, c.arguments) for c in msg.tool_calls]
        return [out]
    role = msg.role if msg.role in ("system", "user", "developer") else "user"
    out = {"role": role, "content": parts_text(msg)}
    if msg.name and role == "user":
        out["name"] = msg.name
    return [out]


def _agentic_to_wire(msg: AgenticMessage) -> list[JsonObject]:
    if msg.role == "assistant":
        text = blocks_text([b for b in msg.blocks if b.type != "function_tool_call"])
        calls = [
            _wire_call(b.call_id or "", b.name or "", b.arguments or "")
            for b in msg.blocks
            if b.type == "function_tool_call"
        ]
        out: JsonObject = {"role": "assistant", "content": text if text or not calls else None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    if msg.role == "system":
        return [{"role": "system", "content": blocks_text(msg.blocks)}]
    wire: list[JsonObject] = []
    for block in msg.blocks:
        if block.type == "function_tool_result":
            text = blocks_text(block.content)
            if block.call_id:
                wire.append({"role": "tool", "tool_call_id": block.call_id, "content": text})
            else:
                wire.append({"role": "user", "content": f"[{block.name or 'tool'} result]\n{text}"})
    rest = [b for b in msg.blocks if b.type != "function_tool_result"]
    if rest or not wire:
        wire.append({"role": "user", "content": blocks_text(rest)})
    return wire


def _wire_of(msg: Message | AgenticMessage) -> list[JsonObject]:
    return _agentic_to_wire(msg) if isinstance(msg, AgenticMessage) else _message_to_wire(msg)


def to_wire(messages: list[Message] | list[AgenticMessage]) -> list[JsonObject]:
    """Chat-completions wire messages for a history (media become ``[image]`` placeholders)."""
    return [wire for msg in messages for wire in _wire_of(msg)]


def _dumps(value: JsonValue) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: not UTF-8 (a lone surrogate), or an odd value
        return json.dumps(value, separators=(",", ":"), default=str).encode("ascii")


class RequestBody:
    """A chat-completions request body, serialised piece by piece whenever it is read.

    :meth:`pieces` writes the body in pieces of about :data:`PIECE` bytes (64 KiB: larger ones
    left ~3 MiB more behind in the heap), a message at a time
    (orjson): a 50 MB history is never held a second time as one bytes object, by the request
    nor by the event loop's write buffer. Built once per input and model, it is read once when
    built (:attr:`length`, :attr:`sha256`: what the Content-Length header and the summary
    cache's key are made of) and once per attempt that sends it.

    ``params`` are the request's options: each goes into the body as ``create()`` puts it,
    ``extra_body``'s keys are merged in at the top level (as the SDK merges them, last wins),
    ``extra_headers`` are not part of the body. A text orjson refuses (a lone surrogate) is
    written as JSON's ``\\ud800`` escape instead of failing the request.
    """

    __slots__ = ("_head", "_messages", "length", "sha256")

    PIECE = 1 << 16

    def __init__(
        self,
        model: str,
        messages: list[Message] | list[AgenticMessage],
        params: Mapping[str, JsonValue],
    ) -> None:
        body: JsonObject = {"model": model, "messages": messages}
        body.update((k, v) for k, v in params.items() if k not in ("extra_body", "extra_headers"))
        extra = params.get("extra_body")
        if isinstance(extra, Mapping):
            body.update(extra)
        own = body.pop("messages") is messages
        # the history's wire form is made a message at a time as it is written (no list of
        # 20,000 wire dicts kept beside the history); extra_body's own "messages": as given
        self._messages = messages if own else []
        if not own:
            body["messages"] = extra["messages"]  # type: ignore[index]
        self._head = _dumps(body)[:-1] + (b',"messages":[' if own else b"")
        digest = hashlib.sha256()
        self.length = 0
        for piece in self.pieces():
            digest.update(piece)
            self.length += len(piece)
        self.sha256 = digest.hexdigest()
        """SHA-256 (hex) of the body's bytes."""

    def pieces(self) -> Iterator[bytes]:
        """The body's bytes, in pieces (the same bytes every time)."""
        buffer = [self._head]
        size = len(self._head)
        first = True
        for msg in self._messages:
            for wire in _wire_of(msg):
                data = _dumps(wire)
                if not first:
                    buffer.append(b",")
                first = False
                buffer.append(data)
                size += len(data) + 1
            if size >= self.PIECE:
                yield b"".join(buffer)
                buffer, size = [], 0
        buffer.append(b"]}" if self._head.endswith(b"[") else b"}")
        yield b"".join(buffer)

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces())


def request_body(
    model: str, messages: list[Message] | list[AgenticMessage], params: Mapping[str, JsonValue]
) -> RequestBody:
    """The chat-completions request body for ``messages`` (see :class:`RequestBody`)."""
    return RequestBody(model, messages, params)
