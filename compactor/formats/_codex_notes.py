"""The readable reasoning summaries of a Codex rollout's current turn (blind check 48 N1).

A Codex session that stopped mid-work keeps its findings in two places: the tool results and
the model's own reasoning summaries (``response_item`` ``reasoning`` items whose ``summary`` is a
list of ``{"type": "summary_text", "text": ...}``; "noting calendar data is plaintext which is a
critical gap"). The summarizer dropped the second, so a resuming agent had to redo a read-only
audit of 30 calls. The reader now notes the summaries of the current turn, the records after the
last user message that starts a turn (:func:`~._codex_tokens.user_turn`), on the last message
(:data:`~compactor.schema.REASONING_NOTES_KEY`, never written back). Only readable summaries
count: ``encrypted_content`` is never read. The walk goes backwards from the end over the list of
records and stops at that user message or at the :data:`MOST_NOTES`-th note, so it costs the last
turn, not the file (measured: a turn of 300,000 records without a readable summary, the worst
case, 0.25 s of the ~6 s its read takes; with summaries, the walk stops at once).
"""

from __future__ import annotations

from compactor._json import JsonObject
from compactor.schema import REASONING_NOTES_KEY, Message

from ._codex_tokens import user_turn
from ._jsonl import LineTable

__all__ = ["MOST_NOTES", "note_turn_reasoning", "summary_texts"]

MOST_NOTES = 64
"""The newest notes kept of one turn (a summary shows at most 8 at its full limits)."""


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


def note_turn_reasoning(messages: list[Message], lines: LineTable, start: int) -> None:
    """Put the reasoning summaries of the current turn (``lines[start:]``, a bare item of a
    legacy rollout too) on the last of ``messages``, when there are any: the newest
    :data:`MOST_NOTES` (more than any summary shows; the walk stops there)."""
    if not messages:
        return
    found: list[str] = []
    records = lines.records  # (one list of the records: no Line made per line)
    for i in range(len(records) - 1, start - 1, -1):
        rec = records[i]
        payload = rec.get("payload") if "payload" in rec else rec  # (legacy: a bare item)
        if (payload is not rec and rec.get("type") != "response_item") or not isinstance(
            payload, dict
        ):
            continue
        kind = payload.get("type")
        if kind == "reasoning":
            found.extend(reversed(summary_texts(payload)))
            if len(found) >= MOST_NOTES:
                break
        elif kind == "message" and payload.get("role") == "user" and user_turn(payload):
            break
    if found:
        messages[-1].extra[REASONING_NOTES_KEY] = found[:MOST_NOTES][::-1]
