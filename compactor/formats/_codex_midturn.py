"""User messages typed while a Codex turn ran (blind check 57, W5).

cx-goat: one turn (one ``task_started``, one ``task_complete``) worked on "can you fix her and
upgrade her please codex?"; while it ran the user typed an addition and then a thank-you, which
Codex delivered into the running turn as user ``response_item`` messages, with no new
``task_started`` or ``turn_context`` before them. The summary took the thank-you as the current
request, said it "was completed" and counted "files changed for it" from there.

By shape: a turn starts at an ``event_msg`` ``task_started`` or a ``turn_context`` record. A
user message that starts a turn for Codex (:func:`~._codex_tokens.user_turn`: not contextual)
that comes after the turn's own request and after the agent's work on it (an assistant message
or call) was typed during the turn: the reader marks it with
:data:`~compactor.schema.MID_TURN_KEY`, and the summarizer reads it as Claude Code's queued
prompts (:mod:`compactor.models.local_aside`): a note to the running request, not a new one. A
rollout with no turn records (a legacy one) marks nothing.
"""

from __future__ import annotations

from compactor._json import JsonObject
from compactor.schema import MID_TURN_KEY, Message

from ._codex_tokens import user_turn

__all__ = ["TurnWatch"]


class TurnWatch:
    """Follows a rollout's turns while it is read; marks the user messages typed mid-turn."""

    __slots__ = ("_asked", "_seen", "_worked")

    def __init__(self) -> None:
        self._seen = False  # a turn record was read: turns are known
        self._asked = False  # the current turn has its request
        self._worked = False  # the agent worked after it

    def record(self, kind: object, payload: object) -> None:
        """A record that is no message: ``task_started`` and ``turn_context`` start a turn."""
        started = kind == "turn_context" or (
            kind == "event_msg"
            and isinstance(payload, dict)
            and payload.get("type") == "task_started"
        )
        if started:
            self._seen, self._asked, self._worked = True, False, False

    def message(self, msg: Message, item: JsonObject) -> None:
        """A message read from the ``response_item`` ``item``."""
        if msg.role == "assistant":
            self._worked = self._worked or self._asked
        elif msg.role == "user" and user_turn(item):
            if self._seen and self._asked and self._worked:
                msg.extra[MID_TURN_KEY] = True
            self._asked = True
