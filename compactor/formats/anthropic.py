"""Anthropic Messages API turns, one ``{role, content}`` object per line (FORMATS.md §5).

Natural message type: :class:`~compactor.schema.AgenticMessage`. Block mapping: ``text`` →
``user_input_text`` / ``assistant_gen_text``, ``image`` → ``user_input_image``, ``thinking`` /
``redacted_thinking`` → ``reasoning``, ``tool_use`` → ``function_tool_call`` (``arguments`` =
JSON of ``input``), ``tool_result`` → ``function_tool_result``. Other block types stay in the
record only. An optional leading ``{"role": "system", ...}`` line is allowed. ``usage`` on an
assistant turn becomes ``Usage(prompt = input + cache_creation + cache_read, completion = output)``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import AgenticMessage, Block, Message, Usage, content_type, loads_json

from . import _jsonl
from ._convert import as_agentic
from ._family import check_records
from .base import CompactionInfo, FormatSpec, Transcript, WriteMode

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = [
    "AnthropicFormat",
    "blocks_from_content",
    "content_from_blocks",
    "other_text",
    "usage_from",
]

ANTHROPIC_BLOCK_TYPES = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "image",
        "document",
        "server_tool_use",
        "web_search_tool_result",
        "search_result",
    }
)


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from(usage: JsonValue) -> Usage | None:
    """Anthropic ``usage`` → Usage (context = input + cache creation + cache read)."""
    if not isinstance(usage, dict):
        return None
    prompt = (
        _int(usage.get("input_tokens"))
        + _int(usage.get("cache_creation_input_tokens"))
        + _int(usage.get("cache_read_input_tokens"))
    )
    completion = _int(usage.get("output_tokens"))
    if prompt == 0 and completion == 0:
        return None  # backends that report nothing (zeros) give no baseline
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def _image_url(block: JsonObject) -> str | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    if isinstance(source.get("url"), str):
        return str(source["url"])
    if isinstance(source.get("data"), str):
        return (
            f"data:{source.get('media_type', 'application/octet-stream')};base64,{source['data']}"
        )
    return None


_OPAQUE_KEYS = frozenset(
    {"type", "id", "tool_use_id", "signature", "encrypted_content", "cache_control", "citations"}
)
"""Keys of an unknown block that hold no text a reader could use (ids, signatures, ...)."""


def _strings(value: JsonValue, out: list[str]) -> None:
    """Every string in ``value`` (a block's JSON), in order, leaving out opaque keys and
    base64 ``data`` (a ``source`` of type ``text`` keeps its ``data``: it is the text)."""
    if isinstance(value, str):
        if value:
            out.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, dict):
        media = value.get("media_type")
        textual = value.get("type") == "text" or (
            isinstance(media, str) and media.startswith("text/")
        )
        for key, item in value.items():
            if key in _OPAQUE_KEYS or key == "media_type" or (key == "data" and not textual):
                continue
            if key == "input" and isinstance(item, dict | list):
                out.append(json.dumps(item, ensure_ascii=False))
            else:
                _strings(item, out)


def other_text(item: JsonObject) -> str:
    """The text of a block the reader does not model (``document``, ``search_result``,
    ``server_tool_use``, ``web_search_tool_result``, any new type): ``[type]`` and every string
    it holds, so a summarizer reads what the model read; ``[type]`` alone when it has none."""
    texts: list[str] = []
    _strings({k: v for k, v in item.items() if k != "type"}, texts)
    head = f"[{item.get('type')}]"
    return "\n".join([head, *texts]) if texts else head


def _result_content(content: JsonValue) -> list[Block]:
    if isinstance(content, str):
        return [Block("user_input_text", content)]
    blocks: list[Block] = []
    if isinstance(content, list):
        for item in content:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "text":
                text = str(item.get("text") or "")
                raw = None if item.keys() <= {"type", "text"} else item
                blocks.append(Block("user_input_text", text, raw=raw))
            elif item.get("type") == "image":
                blocks.append(Block("user_input_image", url=_image_url(item), raw=item))
            else:  # search_result, document, tool_reference, ...: their text, kept as read
                blocks.append(Block("user_input_text", other_text(item), raw=item))
    return blocks


def blocks_from_content(
    path: str,
    line: int,
    role: str,
    content: JsonValue,
    tool_names: dict[str, str],
    field: str = "content",
) -> list[Block]:
    """Anthropic ``content`` (string or block list) → blocks; records tool names by id."""
    text_type = "assistant_gen_text" if role == "assistant" else "user_input_text"
    if isinstance(content, str):
        return [Block(text_type, content)]
    if not isinstance(content, list):
        raise TranscriptError(
            path, line, field, f"must be a string or a list of blocks, got {type(content).__name__}"
        )
    blocks: list[Block] = []
    for item in content:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise TranscriptError(path, line, field, "each block must be an object with a type")
        kind = item["type"]
        if kind == "text":
            raw = None if item.keys() <= {"type", "text"} else item  # citations, cache_control
            blocks.append(Block(text_type, str(item.get("text") or ""), raw=raw))
        elif kind == "image":
            blocks.append(Block("user_input_image", url=_image_url(item), raw=item))
        elif kind == "thinking":  # raw: its signature, which the API checks when it comes back
            blocks.append(Block("reasoning", str(item.get("thinking") or ""), raw=item))
        elif kind == "redacted_thinking":
            blocks.append(Block("reasoning", raw=item))
        elif kind == "tool_use":
            call_id = str(item.get("id") or "")
            name = str(item.get("name") or "")
            tool_names[call_id] = name
            args = json.dumps(item.get("input", {}), ensure_ascii=False)
            blocks.append(Block("function_tool_call", call_id=call_id, name=name, arguments=args))
        elif kind == "tool_result":
            call_id = str(item.get("tool_use_id") or "")
            blocks.append(
                Block(
                    "function_tool_result",
                    call_id=call_id,
                    name=tool_names.get(call_id),
                    content=_result_content(item.get("content")),
                    is_error=item.get("is_error") is True,
                )
            )
        elif kind not in _MODELLED:  # document, server_tool_use, web_search_tool_result, ...
            blocks.append(Block(text_type, other_text(item), raw=item))
    return blocks


_MODELLED = frozenset({"text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result"})


def _read_text(raw: JsonObject) -> str | None:
    """The ``text`` a block read from ``raw`` has (None: an image, a redacted thinking)."""
    kind = raw.get("type")
    if kind == "text":
        return str(raw.get("text") or "")
    if kind == "thinking":
        return str(raw.get("thinking") or "")
    if kind in ("image", "redacted_thinking"):
        return None
    return other_text(raw)


def _raw_block(block: Block, raw: JsonObject) -> JsonObject:
    """A block read as ``raw``: ``raw`` itself while the block is as read; else the block
    rendered afresh from what it now holds (a changed text, a changed image URL)."""
    kind = raw.get("type")
    if block.text == _read_text(raw) and (kind != "image" or block.url == _image_url(raw)):
        return raw
    if kind == "image":
        return {"type": "image", "source": {"type": "url", "url": block.url or ""}}
    if kind in ("thinking", "redacted_thinking"):
        return {"type": "thinking", "thinking": block.text or ""}
    return {**raw, "text": block.text or ""} if kind == "text" else _text(block.text)


def _text(text: str | None) -> JsonObject:
    return {"type": "text", "text": text or ""}


def content_from_blocks(msg: Message | AgenticMessage) -> str | list[JsonObject]:
    """Render a message's content the Anthropic way (plain text → a string)."""
    if isinstance(msg, Message):
        return _jsonl.message_text(msg)
    out: list[JsonObject] = []
    for b in msg.blocks:
        if b.raw is not None:
            out.append(_raw_block(b, b.raw))
        elif b.type in ("user_input_text", "assistant_gen_text"):
            out.append({"type": "text", "text": b.text or ""})
        elif b.type == "reasoning" and b.text:
            out.append({"type": "thinking", "thinking": b.text})
        elif b.type == "function_tool_call":
            try:
                args = loads_json(b.arguments or "{}")
            except ValueError:
                args = {"input": b.arguments}
            out.append({"type": "tool_use", "id": b.call_id, "name": b.name, "input": args})
        elif b.type == "function_tool_result":
            texts = [
                _raw_block(c, c.raw) if c.raw is not None else _text(c.text)
                for c in b.content
                if c.text is not None or c.raw is not None
            ]
            result: JsonObject = {"type": "tool_result", "tool_use_id": b.call_id}
            result["content"] = texts
            if b.is_error:
                result["is_error"] = True
            out.append(result)
        elif b.type in ("user_input_image", "assistant_gen_image") and b.url:
            out.append({"type": "image", "source": {"type": "url", "url": b.url}})
    if len(out) == 1 and out[0]["type"] == "text":
        return str(out[0]["text"])
    return out


def _record(msg: Message | AgenticMessage) -> JsonObject:
    if content_type(msg) == "summary":
        return {"role": "user", "content": _jsonl.message_text(msg)}
    turn = as_agentic(msg)  # a tool result travels in a user turn
    return {"role": turn.role, "content": content_from_blocks(turn)}


TOOL_CALL_KEYS = {"tool_use": "id"}
"""Anthropic content blocks that are tool calls, and the key of their id."""
TOOL_RESULT_KEYS = {"tool_result": "tool_use_id"}
"""Anthropic content blocks that are tool results, and the key of their call's id."""

SPEC = FormatSpec(
    name="anthropic",
    help="Anthropic Messages API turns, one {role, content} object per line",
    detect_order=30,
    list_order=50,
    family="chat",
    roles=("system", "user", "assistant"),  # the Messages API's turns
    call_keys=TOOL_CALL_KEYS,
    result_keys=TOOL_RESULT_KEYS,
)


class AnthropicFormat:
    """``anthropic``: Messages API turns, one per line."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        found = False
        for r in records:
            if not isinstance(r, dict) or r.get("role") not in ("system", "user", "assistant"):
                return False
            if "tool_calls" in r or "tool_call_id" in r:
                return False
            content = r.get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict)
                and isinstance(b.get("type"), str)  # a list or dict type is not hashable
                and b["type"] in ANTHROPIC_BLOCK_TYPES
                for b in content
            ):
                found = True
            if r.get("type") == "message" and isinstance(r.get("usage"), dict):
                found = True
        return found

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        tool_names: dict[str, str] = {}
        messages: list[AgenticMessage] = []
        for ln in lines:
            role = ln.obj.get("role")
            if not isinstance(role, str):
                raise TranscriptError(path, ln.number, "role", f"must be a string, got {role!r}")
            if role not in ("system", "user", "assistant"):
                raise TranscriptError(path, ln.number, "role", f"unknown role {role!r}")
            content = ln.obj.get("content")
            if role == "system" and isinstance(content, list):
                # A system prompt given as text blocks.
                text = "\n".join(str(b.get("text") or "") for b in content if isinstance(b, dict))
                blocks = [Block("user_input_text", text)]
            else:
                blocks = blocks_from_content(path, ln.number, role, content, tool_names)
            msg = AgenticMessage(role=role, blocks=blocks)
            if role == "assistant":
                msg.usage = usage_from(ln.obj.get("usage"))
            _jsonl.mark_earlier_summary(msg)
            messages.append(msg)
        return _jsonl.make_transcript(self.name, path, raw, lines, messages)

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        return _jsonl.write_per_line(transcript, new_messages, mode, _record)


FORMAT = AnthropicFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
