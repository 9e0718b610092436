"""Codex multi-agent records (:mod:`.codex`; blind check 56 F1).

Codex Desktop 0.144.2 writes, in a session whose root agent spawned sub-agents, two kinds of
record no earlier Codex wrote, and compact refused every such session (exit 2, "unknown codex
record type"):

* top-level ``{"type": "inter_agent_communication_metadata", "payload": {"trigger_turn": false}}``
  records: bookkeeping of the message delivery (whether the message starts a turn). They are
  no message: the reader skips them, ``--append`` keeps the file as it is, and a rewritten file
  keeps each one verbatim with the session metadata (:func:`bookkeeping`).
* ``response_item``s of type ``agent_message`` (``author: "/root/sub"``, ``recipient: "/root"``,
  ``content``: a plain header ``Message Type: … / Task name: … / Sender: …`` and an
  ``encrypted_content`` block): a sub-agent's report to the root agent, which the root model
  sees. The reader reads one as injected context (:func:`agent_message`: author → recipient and
  its plain text; the encrypted part is counted, never quoted); the writer keeps the item as it
  was (its record in a kept tail, the item itself in a ``replacement_history``).
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject, JsonValue
from compactor.counting.tokens import OPAQUE_TOKENS_KEY
from compactor.errors import TranscriptError
from compactor.schema import Message

from ._jsonl import Line

__all__ = ["AGENT_KEY", "BOOKKEEPING_RECORDS", "MESSAGE_ITEMS", "agent_message", "bookkeeping"]

BOOKKEEPING_RECORDS = frozenset({"inter_agent_communication_metadata"})
"""Top-level record types that hold no message: skipped when read, kept verbatim on write."""
MESSAGE_ITEMS = frozenset({"agent_message"})
"""``response_item`` payload types that are messages between agents."""
AGENT_KEY = "codex_agent_message"
"""``Message.extra`` key of a message read from an ``agent_message``: ``author → recipient``."""


def _encrypted(value: JsonValue) -> int:
    """The characters of every ``encrypted_content`` string in ``value``."""
    if isinstance(value, dict):
        own = value.get("encrypted_content")
        size = len(own) if isinstance(own, str) else 0
        return size + sum(_encrypted(v) for k, v in value.items() if k != "encrypted_content")
    if isinstance(value, list):
        return sum(_encrypted(v) for v in value)
    return 0


def _plain(content: JsonValue) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    for part in content if isinstance(content, list) else []:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and text.strip():
            texts.append(text.strip())
    return texts


def agent_message(path: str, line: int, item: JsonObject) -> Message:
    """An ``agent_message`` item → an injected user-role message: who wrote it to whom, its
    plain text, and how long its encrypted part is (counted as opaque tokens, never quoted)."""
    content = item.get("content")
    if content is not None and not isinstance(content, (str, list)):
        raise TranscriptError(
            path, line, "payload.content", f"must be a list, got {type(content).__name__}"
        )
    author, recipient = str(item.get("author") or "?"), str(item.get("recipient") or "?")
    route = f"{author} → {recipient}"
    size = _encrypted(item)
    lines = [f'<agent_message author="{author}" recipient="{recipient}">', *_plain(content)]
    if size:
        lines.append(f"[encrypted content: {size:,} characters, not readable]")
    msg = Message(role="user", content="\n".join([*lines, "</agent_message>"]))
    msg.extra.update({"injected": True, AGENT_KEY: route})
    if size:
        msg.extra[OPAQUE_TOKENS_KEY] = (size + 3) // 4
    return msg


def bookkeeping(lines: Sequence[Line]) -> list[Line]:
    """The records of :data:`BOOKKEEPING_RECORDS`, as written, in order (a rewritten file keeps
    them with the session metadata)."""
    return [ln for ln in lines if ln.obj.get("type") in BOOKKEEPING_RECORDS]
