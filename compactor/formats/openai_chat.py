"""OpenAI chat-completions messages, one JSON object per line (FORMATS.md §3).

Natural message type: :class:`~compactor.schema.Message`. Unknown keys (SWE-agent's
``message_type``, ``thought``, ``tool_call_ids``, ...) are kept in ``Message.extra`` and written
back; unchanged messages are written back as their original line bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.prompts import PREAMBLE
from compactor.schema import (
    CONTENT_TYPE_KEY,
    MEDIA_PART_TYPES,
    SHARED_EMPTY_CALLS,
    SHARED_EMPTY_DICT,
    SHARED_EMPTY_LIST,
    AgenticMessage,
    Message,
    Part,
    ToolCall,
    content_type,
)

from . import _jsonl, _mixed_results
from ._convert import as_chat
from ._family import fits, mismatch
from .base import CompactionInfo, FormatSpec, Streaming, Transcript, WriteMode
from .misread import SilentRecords

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = [
    "OpenAIChatFormat",
    "message_from_record",
    "parse_parts",
    "part_text",
    "record_from_message",
    "render_parts",
]

_KNOWN_KEYS = frozenset(
    {"role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content"}
)


def parse_parts(path: str, line: int, items: list[JsonValue], field: str) -> list[Part]:
    parts: list[Part] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            raise TranscriptError(
                path, line, field, "each content part must be an object with a type"
            )
        kind = item["type"]
        text = part_text(item)
        if kind == "text" and item.keys() <= {"type", "text"}:
            parts.append(Part("text", text or ""))
        elif kind == "reasoning":  # the model's own thinking: counted, never summarized
            parts.append(Part("reasoning", text, raw=item))
        elif text is not None:
            # input_text, output_text, refusal, a text part with more keys: text all the same
            parts.append(Part("text", text, raw=item))
        elif kind in MEDIA_PART_TYPES:
            value = item.get(kind, item.get(kind.removesuffix("_url")))  # Eino: "image"
            url = value.get("url") if isinstance(value, dict) else value
            parts.append(Part(kind, url=url if isinstance(url, str) else None))
        else:
            parts.append(Part(kind, raw=item))  # no text (input_audio, file): kept as it was
    return parts


def part_text(item: JsonObject) -> str | None:
    """The text of a content part: its ``text``, else the string under its type's own key
    (``{"type": "refusal", "refusal": "..."}``), else every ``text`` nested in it (a new part
    type that wraps its text); None when it has none."""
    text = item.get("text")
    if isinstance(text, str):
        return text
    kind = item.get("type")
    own = item.get(kind) if isinstance(kind, str) else None
    if isinstance(own, str):
        return own
    nested: list[str] = []
    _nested_texts(item, nested)
    return "\n".join(nested) if nested else None


def _nested_texts(value: JsonValue, out: list[str]) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if key == "text" and isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict | list):
            _nested_texts(item, out)


def _tool_calls(path: str, line: int, value: JsonValue) -> list[ToolCall]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranscriptError(path, line, "tool_calls", "must be a list")
    calls: list[ToolCall] = []
    for item in value:
        if not isinstance(item, dict):
            raise TranscriptError(path, line, "tool_calls", "each tool call must be an object")
        fn = item.get("function")
        if isinstance(fn, dict):
            name, args = fn.get("name"), fn.get("arguments", "")
        elif "args" in item or item.get("type") == "tool_call":
            # LangChain's own shape: {"name", "args": {...}, "id", "type": "tool_call"}
            name, args = item.get("name"), item.get("args", "")
        else:
            name, args = None, ""
        if not isinstance(args, str):
            args = json.dumps(args, ensure_ascii=False)
        calls.append(ToolCall(id=str(item.get("id") or ""), name=str(name or ""), arguments=args))
    return calls


METADATA_ROLE = "metadata"
"""The role some agents give a session-metadata record (the first line of their log)."""
_CONVERSATION_KEYS = ("content", "tool_calls", "tool_call_id", "function_call", "type")


def is_metadata(rec: JsonObject) -> bool:
    """A record of role ``metadata`` holding nothing of a conversation: kept as it is, counted
    nowhere (another role outside the format's, or a metadata record with content, is refused)."""
    return rec.get("role") == METADATA_ROLE and not any(k in rec for k in _CONVERSATION_KEYS)


_ROLE_NAMES = {r: r for r in ("system", "developer", "user", "assistant", "tool", "function")}


def message_from_record(
    path: str, line: int, rec: JsonObject, known: frozenset[str] = _KNOWN_KEYS
) -> Message:
    """Parse one chat-completions message object (shared with the Eino format)."""
    role = rec.get("role")
    if not isinstance(role, str):
        raise TranscriptError(path, line, "role", f"must be a string, got {role!r}")
    role = _ROLE_NAMES.get(role, role)  # one string for every message, not one per record
    content = rec.get("content")
    if role == "user" and type(content) is list and known is _KNOWN_KEYS:  # openai, not Eino
        item = _mixed_results.result_block(rec)
        if item is not None:  # an Anthropic tool_result answering a tool_calls entry
            return _mixed_results.result_message(path, line, rec, item, parse_parts)
    parts: list[Part] = []
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = parse_parts(path, line, content, "content")
        text = "\n".join(p.text or "" for p in parts if p.type == "text")
    else:
        raise TranscriptError(
            path, line, "content", f"must be a string, null or a list, got {type(content).__name__}"
        )
    tool_call_id = rec.get("tool_call_id")
    ids = rec.get("tool_call_ids")
    if tool_call_id is None and isinstance(ids, list) and ids and isinstance(ids[0], str):
        tool_call_id = ids[0]
    name = rec.get("name")
    reasoning = rec.get("reasoning_content")
    calls = rec.get("tool_calls")
    msg = Message(
        role=role,
        content=text,
        parts=parts,
        tool_calls=[] if calls is None else _tool_calls(path, line, calls),
        tool_call_id=tool_call_id if isinstance(tool_call_id, str) else None,
        name=name if isinstance(name, str) else None,
        reasoning_content=reasoning if isinstance(reasoning, str) else None,
        # most records hold no other key: the set test runs in C, the comprehension does not
        extra={} if known.issuperset(rec) else {k: v for k, v in rec.items() if k not in known},
    )
    if role == "tool" and msg.name:
        msg.tool_name = msg.name
    return msg


def _as_message(msg: Message | AgenticMessage) -> Message:
    if isinstance(msg, Message):
        return msg
    out = Message(role=msg.role, content=_jsonl.message_text(msg), extra=dict(msg.extra))
    for block in msg.blocks:
        if block.type == "function_tool_call":
            out.tool_calls.append(
                ToolCall(block.call_id or "", block.name or "", block.arguments or "")
            )
        elif block.type == "function_tool_result":
            out.role = "tool"
            out.tool_call_id = block.call_id
            out.content = "\n".join(b.text or "" for b in block.content)
    return out


def _raw_part(part: Part, raw: JsonObject) -> JsonObject:
    """A part read as ``raw``: ``raw`` itself, or a copy holding the part's changed text."""
    text = part_text(raw)
    if text is None or part.text is None or part.text == text:
        return raw
    for key in ("text", raw.get("type")):
        if isinstance(key, str) and isinstance(raw.get(key), str):
            return {**raw, key: part.text}
    return {"type": "text", "text": part.text}


def render_parts(parts: list[Part], *, eino: bool = False) -> list[JsonObject]:
    rendered: list[JsonObject] = []
    for p in parts:
        if p.raw is not None:
            rendered.append(_raw_part(p, p.raw))
        elif p.type == "text":
            rendered.append({"type": "text", "text": p.text or ""})
        else:
            key = p.type.removesuffix("_url") if eino else p.type
            rendered.append({"type": p.type, key: {"url": p.url or ""}})
    return rendered


def record_from_message(msg: Message | AgenticMessage) -> JsonObject:
    """Render a message as a chat-completions object (the summary becomes a user message)."""
    m = _as_message(msg)
    if content_type(m) == "summary":
        return {"role": "user", "content": _jsonl.message_text(m)}
    if _mixed_results.RESULT_KEY in m.extra:
        return _mixed_results.result_record(m, render_parts)
    rec: JsonObject = {"role": m.role}
    if m.parts:
        rec["content"] = render_parts(m.parts)
    elif m.role == "assistant" and m.tool_calls and not m.content:
        rec["content"] = None
    else:
        rec["content"] = m.content
    if m.tool_calls:
        rec["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in m.tool_calls
        ]
    if m.tool_call_id is not None and "tool_call_ids" not in m.extra:
        rec["tool_call_id"] = m.tool_call_id
    if m.name is not None:
        rec["name"] = m.name
    if m.reasoning_content is not None:
        rec["reasoning_content"] = m.reasoning_content
    for key, value in _jsonl.public_extra(m.extra).items():
        rec.setdefault(key, value)
    return rec


def records_from_message(msg: Message | AgenticMessage) -> list[JsonObject]:
    """:func:`record_from_message` for each chat message ``msg`` is (an agentic message a
    finalizer added: its text and tool calls, then one ``tool`` record per tool result)."""
    if isinstance(msg, Message) or content_type(msg) == "summary":
        return [record_from_message(msg)]
    return [record_from_message(m) for m in as_chat(msg)]


SPEC = FormatSpec(
    name="openai",
    help="OpenAI chat-completions messages, one {role, content} object per line",
    detect_order=50,  # last: any line with a role looks like a chat message
    list_order=10,
    family="chat",
    roles=("system", "developer", "user", "assistant", "tool", "function"),
    streaming=Streaming(message_from_record),
)
_ROLES = frozenset(SPEC.roles)
_SHORT = 40
"""Texts this long or shorter are shared between the messages that hold the same one."""
_MAX_SHORT = 100_000
"""At most this many distinct short texts are remembered per file read."""


class _Reader:
    """Each line's message, built as the line is parsed: the parsed records are never all held
    at once (a million tiny messages held a million records until the last line was read; the
    messages hold what the writer needs, and a line's record is parsed again when asked for).

    The error is the one a read that parsed every line, then checked every record, then built
    the messages would raise: a line that is not JSON as it is met, then the first record that
    does not fit the format, then the first record that is not a message.
    """

    __slots__ = (
        "failure",
        "first_meta",
        "meta",
        "misfit",
        "name",
        "out",
        "path",
        "roles",
        "silent",
        "texts",
    )

    def __init__(self, path: str, spec: FormatSpec) -> None:
        self.path = path
        self.name = spec.name
        chat = spec.family == "chat" and spec.typed is None  # fits(): a record of these roles
        self.roles = frozenset(spec.roles if chat else ())
        self.out: list[Message] = []
        self.misfit: TranscriptError | None = None
        self.failure: Exception | None = None
        self.texts: dict[str, str] = {}
        self.meta: list[int] = []  # the indexes of the metadata records among the records
        self.first_meta = 0  # the line of the first one
        self.silent = SilentRecords()  # records read as empty messages that hold other keys

    def add(self, number: int, rec: JsonObject) -> None:
        if self.misfit is not None:
            return
        if len(rec) == 2 and self.failure is None:
            # message_from_record of a {role, content: str} record (most records), inlined:
            # it fits (no type, a role of the format's); its text is shared with the earlier
            # messages that hold the same short text (one "ok" for a million of them), its
            # empty containers with every such message (SHARED_EMPTY_LIST)
            role, content = rec.get("role"), rec.get("content")
            if type(content) is str and type(role) is str and role in self.roles:
                if len(content) <= _SHORT:
                    known = self.texts.get(content)
                    if known is not None:
                        content = known
                    elif len(self.texts) < _MAX_SHORT:
                        self.texts[content] = content
                extra = SHARED_EMPTY_DICT
                if role == "user" and content.lstrip().startswith(PREAMBLE):
                    extra = {CONTENT_TYPE_KEY: "summary"}  # mark_earlier_summary
                self.out.append(Message(_ROLE_NAMES[role], content, SHARED_EMPTY_LIST,
                                        SHARED_EMPTY_CALLS, None, None, None, None, None, None,
                                        extra))  # fmt: skip
                return
        if self.name == SPEC.name and is_metadata(rec):
            if not self.meta:
                self.first_meta = number
            self.meta.append(len(self.out) + len(self.meta))
            return
        if not fits(self.name, rec):
            self.misfit = mismatch(self.path, number, self.name, rec)
            return
        if self.failure is not None:
            return
        try:
            msg = message_from_record(self.path, number, rec)
        except Exception as err:  # noqa: BLE001 - raised once every line is parsed and checked
            self.failure = err
            return
        _jsonl.mark_earlier_summary(msg)
        if msg.extra and not (msg.content or msg.parts or msg.tool_calls or msg.tool_call_id):
            self.silent.see(number, rec)  # nothing read, other keys: another format's record?
        self.out.append(msg)

    def messages(self) -> list[Message]:
        if self.misfit is not None:
            raise self.misfit
        if self.failure is not None:
            raise self.failure
        self.silent.check(self.path, self.name, len(self.out))
        return self.out

    def origin(self) -> list[list[int]] | None:
        """Each message's record index when metadata records sit between them (None: none)."""
        if not self.meta:
            return None
        skip = set(self.meta)
        return [[i] for i in range(len(self.out) + len(self.meta)) if i not in skip]


class OpenAIChatFormat:
    """``openai``: chat-completions messages, one per line."""

    spec = SPEC
    name = SPEC.name

    streams_reduce = True
    """One message per line, each record rendered alone, blank lines and unchanged records
    kept byte for byte: ``run --strategy reduce`` may read it as a stream
    (:mod:`compactor.reduction.stream`) and rebuild only the records it changes."""

    chat_roles = _ROLES
    """A record with one of these roles and no ``type`` fits (:meth:`record_fits`)."""

    def record_fits(self, rec: JsonObject) -> bool:
        """Whether ``rec`` may be a record of this format (what :meth:`read` checks)."""
        if "type" not in rec and rec.get("role") in _ROLES:
            return True  # a chat message of one of the format's roles: the common case
        return fits(self.name, rec)

    def message_of(self, path: str, line: int, rec: JsonObject) -> Message:
        """The message of one record, as :meth:`read` builds it."""
        msg = message_from_record(path, line, rec)
        _jsonl.mark_earlier_summary(msg)
        return msg

    def record_of(self, msg: Message | AgenticMessage) -> JsonObject:
        """The record :meth:`write` renders for a changed message."""
        return record_from_message(msg)

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        return any(isinstance(r, dict) and isinstance(r.get("role"), str) for r in records)

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        reader = _Reader(path, self.spec)
        lines = _jsonl.parse_lines(path, raw, reader.add)  # the records are not kept
        messages = reader.messages()
        transcript = _jsonl.make_transcript(
            self.name, path, raw, lines, messages, origin=reader.origin()
        )
        if reader.meta:  # one warning (registry.unknown_notes), the records kept in place
            transcript.meta.unknown = [(METADATA_ROLE, reader.first_meta, len(reader.meta))]
        return transcript

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        keep: list[int] = []
        if transcript.meta.unknown:
            keep = [i for i, ln in enumerate(transcript.meta.lines) if is_metadata(ln.obj)]
        return _jsonl.write_per_line(transcript, new_messages, mode, records_from_message, keep)


FORMAT = OpenAIChatFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
