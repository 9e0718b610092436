"""Codex ``event_msg`` records a rewritten rollout keeps (:mod:`.codex`'s writer).

The writer rebuilds a rollout around a ``compacted`` record: the model-visible history goes into
its ``replacement_history`` (and the kept tail's own records after it), and the ``event_msg``
records are left out, being the client's copies of what the response items hold
(``agent_message``, ``agent_reasoning``, ``user_message``) or counts a compaction replaces
(``token_count``). ``turn_aborted`` is neither: it is the only trace of a turn the user
interrupted in a rollout written before Codex also put a ``<turn_aborted>`` message into the
history (Codex 0.42, blind check 19 neuro-codex: reduce and hybrid dropped it, so a resumed
session no longer showed that the last turn was aborted). Such an event after the last message
of the history is written back as it was, after the compaction's records, so it stays the last
thing the rollout says. One between two messages is not moved there: the user's next message
already says the turn was taken up again, and writing it after the history would misplace it.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import _jsonl

__all__ = ["KEPT_EVENTS", "events_after_history"]

KEPT_EVENTS = frozenset({"turn_aborted"})
"""``event_msg`` payload types whose trace is in no response item."""


def events_after_history(
    lines: Sequence[_jsonl.Line], origin: Sequence[Sequence[int]]
) -> list[bytes]:
    """The lines, as written, of the :data:`KEPT_EVENTS` records after the last record of a
    message (``origin``: each message's record indexes)."""
    last = max((i for records in origin for i in records), default=-1)
    kept: list[bytes] = []
    for i in range(last + 1, len(lines)):
        ln = lines[i]
        payload = ln.obj.get("payload")
        if (
            ln.obj.get("type") == "event_msg"
            and isinstance(payload, dict)
            and payload.get("type") in KEPT_EVENTS
        ):
            kept.append(ln.text)
    return kept
