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
already says the turn was taken up again, and writing it after the history would misplace it;
there the writer puts in the ``<turn_aborted>`` user message Codex writes itself, in the
rollout's own wording (:func:`with_abort_notices`, blind check 59), and none when the rollout's
Codex wrote none (blind check 66: a notice of newer versions in a Codex 0.46 rollout told of
"unified exec processes" that version never ran).

An ``error`` event that says the account's usage or rate limit stopped the turn (``You've hit
your usage limit … try again in 2 days``, ``codex_error_info: usage_limit_exceeded``) is read
as an assistant message holding its text (:func:`limit_notice`, blind check 30 N4): it is why
the work stopped, which no response item says. Its record is written back as it was.

The reader's notes of ``exec_command_end`` events (:func:`call_end`, :func:`mark_call_ends`: a
call's exit code and output, metadata for the summarizer) live here too (moved from :mod:`.codex`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from compactor._json import JsonObject
from compactor.schema import CALL_ENDS_KEY, TURN_ABORTED_KEY, AgenticMessage, Message

from . import _jsonl

__all__ = [
    "ABORT_NOTICE",
    "KEPT_EVENTS",
    "call_end",
    "events_after_history",
    "limit_notice",
    "mark_call_ends",
    "rollout_abort_notice",
    "with_abort_notices",
]

KEPT_EVENTS = frozenset({"turn_aborted"})
"""``event_msg`` payload types whose trace is in no response item."""


ABORT_NOTICE = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec "
    "processes may still be running in the background. If any tools/commands were aborted, they "
    "may have partially executed.\n</turn_aborted>"
)
"""The user message Codex puts into the history when the user interrupts a turn (the wording
of the versions after 0.58; never added to a rollout whose own Codex did not write it)."""


def _is_notice(msg: Message | AgenticMessage) -> bool:
    text = _jsonl.message_text(msg) if msg.role == "user" else ""
    return text.lstrip().startswith("<turn_aborted>")


def rollout_abort_notice(messages: Sequence[Message | AgenticMessage]) -> str | None:
    """The ``<turn_aborted>`` user message the rollout's own Codex wrote (its first), or None:
    the wording differs between Codex versions (0.46 and 0.58 wrote none, only the event; later
    ones "… may still be running in the background", then "… were terminated …"), so a notice
    compact adds is the one this rollout's version writes, never another version's (check 66)."""
    for msg in messages:
        if _is_notice(msg):
            return _jsonl.message_text(msg)
    return None


def with_abort_notices(
    messages: Sequence[Message | AgenticMessage],
    matches: Sequence[int | None],
    notice: str | None,
) -> tuple[list[Message | AgenticMessage], list[int | None]]:
    """``messages`` (and their ``matches``) with ``notice`` (:func:`rollout_abort_notice`: the
    rollout's own ``<turn_aborted>`` message; None: its Codex wrote none, and none is added) as a
    user message after each message that ends a turn aborted only in an event
    (``TURN_ABORTED_KEY``) when another message follows and no such notice is there already (the
    last one's event is kept as it was)."""
    if notice is None:
        return list(messages), list(matches)
    out: list[Message | AgenticMessage] = []
    found: list[int | None] = []
    for i, (msg, j) in enumerate(zip(messages, matches, strict=True)):
        out.append(msg)
        found.append(j)
        if (
            TURN_ABORTED_KEY in msg.extra
            and i + 1 < len(messages)
            and not _is_notice(msg)
            and not _is_notice(messages[i + 1])
        ):
            out.append(Message(role="user", content=notice))
            found.append(None)
    return out, found


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


_LIMIT_WORDS = ("usage limit", "rate limit", "hit your limit", "limit reached", "quota")
_LIMIT_INFO = ("usage_limit", "rate_limit", "quota")
LIMIT_EVENT = "codex_error"
"""``Message.extra`` key of a message read from an ``error`` event (its text is the event's)."""


def limit_notice(payload: JsonObject) -> str:
    """The text of an ``error`` event that says a usage or rate limit stopped the turn ("" for
    any other event, a stream error that was retried among them)."""
    message = payload.get("message")
    if payload.get("type") != "error" or not isinstance(message, str) or not message.strip():
        return ""
    info = json.dumps(payload.get("codex_error_info") or payload.get("code") or "").lower()
    lowered = message.lower()
    if any(w in lowered for w in _LIMIT_WORDS):
        return message.strip()
    if any(w in info for w in _LIMIT_INFO):
        return f"Usage limit reached: {message.strip()}"
    return ""


def call_end(payload: JsonObject) -> JsonObject:
    """What an ``exec_command_end`` event says of its call: exit code and output."""
    code = payload.get("exit_code")
    output = payload.get("aggregated_output") or payload.get("formatted_output") or ""
    try:
        exit_code = int(code) if isinstance(code, (int, str)) else None
    except ValueError:
        exit_code = None
    return {"exit_code": exit_code, "output": output if isinstance(output, str) else ""}


def mark_call_ends(messages: list[Message], ends: dict[str, JsonObject]) -> None:
    """Note on each call's message the ``exec_command_end`` of its call (``extra[CALL_ENDS_KEY]``:
    metadata for the summarizer, never written back). A call that also has a result item (a
    unified-exec process whose result said "Process running with session ID N") is marked
    ``answered``: the end says only that its process is over."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    for msg in messages:
        for call in msg.tool_calls:
            end = ends.get(call.id)
            if end is not None:
                marked = msg.extra.setdefault(CALL_ENDS_KEY, {})
                if isinstance(marked, dict):
                    marked[call.id] = {**end, "answered": True} if call.id in answered else end
