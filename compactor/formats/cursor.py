"""Cursor agent transcripts: one ``{"role", "message": {"content": [blocks]}}`` object per line.

Cursor's agent writes each turn as a top-level ``role`` (``user`` | ``assistant``) with the
Anthropic-style content under ``message.content``: ``text`` blocks, and ``tool_use`` /
``tool_result`` blocks when the agent used tools (read as :mod:`.anthropic` reads them). Other
keys of a record, and of its ``message``, are kept: an unchanged record is written back as its
own bytes, a changed one (rendered afresh) keeps them.

A user turn's text wraps what the user typed in ``<user_query>…</user_query>`` and puts the
context Cursor attached in other tags (``<attached_files>``, ``<documentation_context>``,
``<open_and_recently_viewed_files>`` …). Such a turn is read as one message per part, in order:
the query's text (unwrapped) as the user's request, each run of other text as a user message
marked ``extra["injected"]`` (context, never quoted as the user's words). Written back, a query
is wrapped in ``<user_query>`` again; the parts of an unchanged turn are its original line.

Cursor keeps no usage: the token count is estimated. A summary is written as a user turn whose
text is the summary (no ``<user_query>``: it is not something the user typed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.errors import TranscriptError
from compactor.schema import AgenticMessage, Block, Message, content_type

from . import _jsonl
from ._convert import as_agentic
from ._family import check_records
from .anthropic import TOOL_CALL_KEYS, TOOL_RESULT_KEYS, blocks_from_content, content_from_blocks
from .base import CompactionInfo, FormatSpec, Transcript, WriteMode

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = ["CursorFormat", "split_user_text"]

_ROLES = ("user", "assistant")
QUERY_TAG = "user_query"
"""The tag Cursor wraps what the user typed in."""
TAG_KEY = "_compactor_cursor_tag"
"""``extra`` of a message read from inside ``<user_query>``: written back wrapped in it."""
KEYS_KEY = "_compactor_cursor_keys"
"""``extra``: the record's other keys and its ``message``'s, for a record rendered afresh."""
_BLOCK_RE = lazy_pattern(r"<([a-z][a-z0-9]*(?:[_-][a-z0-9]+)*)>(.*?)</\1>", re.DOTALL)
"""A top-level ``<tag>…</tag>`` block of a user turn's text."""


QUERY, CONTEXT, LOOSE = "query", "context", "loose"


def split_user_text(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` parts of a user turn's text, in order: the inside of each
    ``<user_query>`` (:data:`QUERY`, the user's), each run of other tagged blocks
    (:data:`CONTEXT`, tags kept) and text outside any tag (:data:`LOOSE`, the user's). A text
    with no ``<user_query>`` is one loose part: Cursor's wrappers are told by the query they
    come with."""
    if f"<{QUERY_TAG}>" not in text:
        return [(LOOSE, text)]
    parts: list[tuple[str, str]] = []
    context: list[str] = []

    def flush() -> None:
        if context:
            parts.append((CONTEXT, "\n".join(context)))
            context.clear()

    pos = 0
    for match in _BLOCK_RE.finditer(text):
        loose = text[pos : match.start()].strip()
        pos = match.end()
        if loose:
            flush()
            parts.append((LOOSE, loose))
        if match.group(1) == QUERY_TAG:
            flush()
            parts.append((QUERY, match.group(2).strip("\n")))
        else:
            context.append(match.group(0))
    loose = text[pos:].strip()
    flush()
    if loose:
        parts.append((LOOSE, loose))
    return parts


def _content(path: str, line: int, rec: JsonObject) -> JsonValue:
    message = rec.get("message")
    if not isinstance(message, dict):
        raise TranscriptError(
            path, line, "message", "must be an object holding the turn's content (Cursor)"
        )
    if "content" not in message:
        raise TranscriptError(path, line, "message.content", "missing")
    return message["content"]


def _messages(
    path: str, line: int, rec: JsonObject, tool_names: dict[str, str]
) -> list[AgenticMessage]:
    """The messages of one record (a user turn of query and context: several)."""
    role = str(rec["role"])
    content = _content(path, line, rec)
    message = rec["message"]
    assert isinstance(message, dict)  # _content checked it
    outer = {k: v for k, v in rec.items() if k not in ("role", "message")}
    inner = {k: v for k, v in message.items() if k != "content"}
    keys: JsonValue = [outer, inner] if outer or inner else None
    if role == "user" and isinstance(content, list | str):
        items = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts = [b.get("text") for b in items if isinstance(b, dict) and b.get("type") == "text"]
        if len(texts) == len(items) and all(isinstance(t, str) for t in texts):
            joined = "\n".join(str(t) for t in texts)
            out: list[AgenticMessage] = []
            for kind, text in split_user_text(joined):
                msg = AgenticMessage("user", [Block("user_input_text", text)])
                if kind == CONTEXT:
                    msg.extra["injected"] = True
                elif kind == QUERY:
                    msg.extra[TAG_KEY] = QUERY_TAG
                if keys is not None:
                    msg.extra[KEYS_KEY] = keys
                _jsonl.mark_earlier_summary(msg)
                out.append(msg)
            return out
    blocks = blocks_from_content(path, line, role, content, tool_names, "message.content")
    msg = AgenticMessage(role, blocks)
    if keys is not None:
        msg.extra[KEYS_KEY] = keys
    _jsonl.mark_earlier_summary(msg)
    return [msg]


def _with_keys(msg: Message | AgenticMessage, rec: JsonObject) -> JsonObject:
    """``rec`` with the other keys ``msg``'s record had (none for a summary)."""
    keys = msg.extra.get(KEYS_KEY)
    if content_type(msg) == "summary" or not isinstance(keys, list) or len(keys) != 2:
        return rec
    outer, inner = keys
    message = rec["message"]
    if isinstance(inner, dict) and isinstance(message, dict):
        rec["message"] = {**inner, **message}
    return {**outer, **rec} if isinstance(outer, dict) else rec


def _record(msg: Message | AgenticMessage) -> JsonObject:
    """A message as a Cursor record (a summary, or any other role, as a user turn)."""
    text_only = isinstance(msg, AgenticMessage) and all(
        b.type == "user_input_text" for b in msg.blocks
    )
    if content_type(msg) == "summary" or (msg.role != "assistant" and text_only):
        text = _jsonl.message_text(msg)
        if msg.extra.get(TAG_KEY) == QUERY_TAG and content_type(msg) != "summary":
            text = f"<{QUERY_TAG}>\n{text}\n</{QUERY_TAG}>"
        turn_rec: JsonObject = {"role": "user", "message": {"content": [_text(text)]}}
        return _with_keys(msg, turn_rec)
    turn = as_agentic(msg)  # a tool result travels in a user turn
    rendered = content_from_blocks(turn)
    blocks = [_text(rendered)] if isinstance(rendered, str) else rendered
    role = "assistant" if turn.role == "assistant" else "user"
    return _with_keys(msg, {"role": role, "message": {"content": blocks}})


def _text(text: str) -> JsonObject:
    return {"type": "text", "text": text}


SPEC = FormatSpec(
    name="cursor",
    help="Cursor agent transcripts, one {role, message: {content}} object per line",
    detect_order=35,  # before openai: its records have a role too
    list_order=55,
    family="chat",
    roles=_ROLES,
    agent_session=True,
    call_keys=TOOL_CALL_KEYS,
    result_keys=TOOL_RESULT_KEYS,
)


def _is_turn(r: JsonValue) -> bool:
    return (
        isinstance(r, dict)
        and r.get("role") in _ROLES
        and "content" not in r
        and isinstance(r.get("message"), dict)
        and "content" in r["message"]
    )


class CursorFormat:
    """``cursor``: Cursor agent turns, ``message.content`` under a top-level ``role``."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        # a turn, and no record of a chat format's shape (an odd record: the reader names it)
        return any(_is_turn(r) for r in records) and not any(
            isinstance(r, dict) and "content" in r for r in records
        )

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        tool_names: dict[str, str] = {}
        messages: list[AgenticMessage] = []
        origin: list[list[int]] = []
        for i, ln in enumerate(lines):
            for msg in _messages(path, ln.number, ln.obj, tool_names):
                messages.append(msg)
                origin.append([i])
        return _jsonl.make_transcript(self.name, path, raw, lines, messages, origin=origin)

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        matches = _jsonl.match_messages(transcript, new_messages)
        if _jsonl.is_unchanged(transcript, matches):
            return transcript.raw
        if mode == "append":
            return _jsonl.file_of(transcript, [_jsonl.dump(_record(m)) for m in new_messages], mode)
        return _jsonl.file_of(transcript, _kept_lines(transcript, new_messages, matches))


def _kept_lines(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    matches: list[int | None],
) -> list[bytes]:
    """Each record of the new history: a line whose every message is kept, in order, as its
    original bytes; any other message rendered alone."""
    lines, origin = transcript.meta.lines, transcript.meta.origin
    of_line: dict[int, list[int]] = {}
    for m, where in enumerate(origin):
        of_line.setdefault(where[0], []).append(m)
    out: list[bytes] = []
    i = 0
    while i < len(new_messages):
        j = matches[i]
        if j is not None:
            line = origin[j][0]
            group = of_line[line]
            if group[0] == j and matches[i : i + len(group)] == group:
                if not any(
                    _jsonl.usage_dropped(transcript, new_messages[i + k], group[k])
                    for k in range(len(group))
                ):
                    out.append(lines[line].text)
                    i += len(group)
                    continue
        out.append(_jsonl.dump(_record(new_messages[i])))
        i += 1
    return out


FORMAT = CursorFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
