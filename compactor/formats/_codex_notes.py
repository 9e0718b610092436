"""The readable reasoning summaries of a Codex rollout's current turn (blind check 48 N1).

A Codex session that stopped mid-work keeps its findings in two places: the tool results and
the model's own reasoning summaries (``response_item`` ``reasoning`` items whose ``summary`` is a
list of ``{"type": "summary_text", "text": ...}``; "noting calendar data is plaintext which is a
critical gap"). The summarizer dropped the second, so a resuming agent had to redo a read-only
audit of 30 calls. The reader now notes the summaries of the current turn, the records after the
last user message that starts a turn (:func:`~._codex_tokens.user_turn`), on the last message
(:data:`~compactor.schema.REASONING_NOTES_KEY`, never written back). Only readable summaries
count: ``encrypted_content`` is never read. The walk goes backwards from the end and stops at
that user message, so it costs the last turn, not the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject
from compactor.schema import REASONING_NOTES_KEY, Message

from ._codex_tokens import user_turn
from ._jsonl import Line

__all__ = ["note_turn_reasoning", "summary_texts"]


def summary_texts(item: JsonObject) -> list[str]:
    """The non-empty ``summary_text`` texts of a ``reasoning`` item, in order; [] for any other."""
    if item.get("type") != "reasoning":
        return []
    summary = item.get("summary")
    parts = summary if isinstance(summary, list) else []
    texts = (
        p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "summary_text"
    )
    return [t.strip() for t in texts if isinstance(t, str) and t.strip()]


def note_turn_reasoning(messages: list[Message], lines: Sequence[Line], start: int) -> None:
    """Put the reasoning summaries of the current turn (``lines[start:]``, a bare item of a
    legacy rollout too) on the last of ``messages``, when there are any."""
    if not messages:
        return
    found: list[list[str]] = []
    for i in range(len(lines) - 1, start - 1, -1):
        rec = lines[i].obj
        kind = rec.get("type")
        payload = (
            rec.get("payload") if kind == "response_item" else rec if "payload" not in rec else None
        )
        if not isinstance(payload, dict):
            continue
        if user_turn(payload):
            break
        if texts := summary_texts(payload):
            found.append(texts)
    notes = [text for texts in reversed(found) for text in texts]
    if notes:
        messages[-1].extra[REASONING_NOTES_KEY] = list(notes)
