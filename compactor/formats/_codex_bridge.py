"""A Codex ``compacted`` record with a summary and no ``replacement_history`` (Codex up to about
0.4x; FORMATS.md §2): the history Codex resumes is rebuilt from the rollout, not stored. Codex's
``collect_user_messages`` gathers the user's own messages from the history before the record and
``build_compacted_history`` puts them, then the summary as a user message, after the initial
context. :func:`bridged_history` does the same for the reader (blind check 35 F1: Codex 0.40
session with such a record: the reader started the history empty after it, so all 34 user
messages, 267 of 292 calls' context and Codex's own summary were lost, and the summary said "No
request from the user")."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compactor._json import JsonObject
from compactor.schema import CONTENT_TYPE_KEY, Message

from ._jsonl import Line

__all__ = ["bridged_history"]

_BRIDGES = (
    "You were originally given instructions from a user over one or more turns.",
    "Another language model started to solve this problem",
)
"""How the user message Codex built from an earlier compaction's summary starts: never one of
the user's own messages (Codex's ``collect_user_messages`` leaves it out too)."""


def bridged_history(
    lines: Sequence[Line],
    end: int,
    summary: str,
    read: Callable[[int, JsonObject], Message | None],
) -> list[Message]:
    """The user's own messages of ``lines[:end]`` (the ``response_item`` user messages that are
    no injected context and no earlier bridge), then ``summary`` as the earlier summary: a user
    message marked as Codex's own compaction's summary."""
    found: list[Message] = []
    for ln in lines[:end]:
        rec = ln.obj
        item = rec.get("payload")
        if rec.get("type") != "response_item" or not isinstance(item, dict):
            continue
        if item.get("type") != "message" or item.get("role") != "user":
            continue
        msg = read(ln.number, item)
        if msg is None or msg.extra.get("injected") or not msg.content.strip():
            continue
        if msg.content.lstrip().startswith(_BRIDGES):
            continue
        found.append(msg)
    said: JsonObject = {"type": "message", "role": "user"}
    said["content"] = [{"type": "input_text", "text": summary}]
    summed = read(lines[end].number, said) if end < len(lines) else None
    if summed is not None:
        summed.extra[CONTENT_TYPE_KEY] = "summary"
        summed.extra["injected"] = True
        found.append(summed)
    return found
