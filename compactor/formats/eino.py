"""Eino ``schema.Message`` JSON, one message per line (FORMATS.md §6).

Natural message type: :class:`~compactor.schema.Message`. ``response_meta.usage`` becomes
``Message.usage``; Eino's ``extra`` map becomes ``Message.extra`` and its summary marker
``_eino_summarization_content_type`` is mirrored as the compactor's content-type marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import (
    CONTENT_TYPE_KEY,
    PROCESS_KEY,
    AgenticMessage,
    Message,
    Usage,
    content_type,
)

from . import _jsonl
from ._convert import as_chat
from ._family import check_records
from .base import CompactionInfo, FormatSpec, Streaming, Transcript, WriteMode
from .misread import SilentRecords

if TYPE_CHECKING:
    from compactor.io import FileSource
from .openai_chat import message_from_record, parse_parts, record_from_message, render_parts

__all__ = ["EINO_MARKER_KEY", "EinoFormat", "eino_message"]

EINO_MARKER_KEY = "_eino_summarization_content_type"

_EINO_KEYS = frozenset(
    {
        "response_meta",
        "user_input_multi_content",
        "assistant_output_multi_content",
        "multi_content",
        "tool_name",
        "extra",
    }
)
_KNOWN = frozenset(
    {"role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content"} | _EINO_KEYS
)


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def eino_message(path: str, line: int, rec: JsonObject) -> Message:
    """The :class:`Message` of one Eino record (line ``line`` of ``path``, for errors)."""
    msg = message_from_record(path, line, rec, _KNOWN)
    msg.extra = {}  # unknown top-level keys are not part of Eino's schema
    for key in ("user_input_multi_content", "assistant_output_multi_content", "multi_content"):
        items = rec.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            raise TranscriptError(path, line, key, "must be a list")
        msg.parts = parse_parts(path, line, items, key)
        break
    tool_name = rec.get("tool_name")
    if isinstance(tool_name, str):
        msg.tool_name = tool_name
    meta = rec.get("response_meta")
    if isinstance(meta, dict):
        finish = meta.get("finish_reason")
        msg.finish_reason = finish if isinstance(finish, str) else None
        usage = meta.get("usage")
        if isinstance(usage, dict):
            msg.usage = Usage(
                prompt_tokens=_int(usage.get("prompt_tokens")),
                completion_tokens=_int(usage.get("completion_tokens")),
                total_tokens=_int(usage.get("total_tokens")),
            )
    extra = rec.get("extra")
    if extra is not None:
        if not isinstance(extra, dict):
            raise TranscriptError(path, line, "extra", "must be an object")
        msg.extra = dict(extra)
        marker = extra.get(EINO_MARKER_KEY)
        if isinstance(marker, str):
            msg.extra[CONTENT_TYPE_KEY] = marker
    return msg


def _records(msg: Message | AgenticMessage) -> list[JsonObject]:
    """An agentic message a finalizer added: each chat message it is, as Eino writes it."""
    if isinstance(msg, Message) or content_type(msg) == "summary":
        return [_record(msg)]
    return [_record(m) for m in as_chat(msg)]


def _record(msg: Message | AgenticMessage) -> JsonObject:
    kind = content_type(msg)
    if kind == "summary" or not isinstance(msg, Message):
        rec = record_from_message(msg)
        if kind == "summary":
            rec["extra"] = {EINO_MARKER_KEY: "summary"}
        return rec
    rec = {"role": msg.role, "content": msg.content}
    if msg.parts:
        key = (
            "assistant_output_multi_content"
            if msg.role == "assistant"
            else "user_input_multi_content"
        )
        rec[key] = render_parts(msg.parts, eino=True)
    base = record_from_message(Message(role=msg.role, tool_calls=msg.tool_calls))
    if "tool_calls" in base:
        rec["tool_calls"] = base["tool_calls"]
    if msg.name is not None:
        rec["name"] = msg.name
    if msg.tool_call_id is not None:
        rec["tool_call_id"] = msg.tool_call_id
    if msg.tool_name is not None:
        rec["tool_name"] = msg.tool_name
    if msg.usage is not None or msg.finish_reason is not None:
        meta: JsonObject = {}
        if msg.finish_reason is not None:
            meta["finish_reason"] = msg.finish_reason
        if msg.usage is not None:
            meta["usage"] = {
                "prompt_tokens": msg.usage.prompt_tokens,
                "completion_tokens": msg.usage.completion_tokens,
                "total_tokens": msg.usage.total_tokens,
            }
        rec["response_meta"] = meta
    if msg.reasoning_content is not None:
        rec["reasoning_content"] = msg.reasoning_content
    extra = {
        k: v
        for k, v in msg.extra.items()
        if k not in _jsonl.INTERNAL_EXTRA_KEYS and k != PROCESS_KEY  # a reader's mark of its own
    }
    if kind is not None:
        extra[EINO_MARKER_KEY] = kind
    if extra:
        rec["extra"] = extra
    return rec


SPEC = FormatSpec(
    name="eino",
    help="Eino schema.Message objects (Go), one per line",
    detect_order=40,
    list_order=20,
    family="chat",
    roles=("system", "user", "assistant", "tool"),  # Eino's schema.RoleType
    streaming=Streaming(eino_message, eino_fields=True),
    read_tool="read_file",
)


class EinoFormat:
    """``eino``: Eino ``schema.Message`` objects, one per line."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        return any(
            isinstance(r, dict) and isinstance(r.get("role"), str) and bool(_EINO_KEYS & r.keys())
            for r in records
        )

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        messages = [eino_message(path, ln.number, ln.obj) for ln in lines]
        silent = SilentRecords()
        for ln, msg in zip(lines, messages, strict=True):
            if not (msg.content or msg.parts or msg.tool_calls or msg.tool_call_id):
                silent.see(ln.number, ln.obj)
        silent.check(path, self.name, len(messages))
        return _jsonl.make_transcript(self.name, path, raw, lines, messages)

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        return _jsonl.write_per_line(transcript, new_messages, mode, _records)


FORMAT = EinoFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
