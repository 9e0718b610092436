"""User messages typed while a Codex turn ran (blind check 57, W5).

cx-goat: one turn (one ``task_started``, one ``task_complete``) worked on "can you fix her and
upgrade her please codex?"; while it ran the user typed an addition and then a thank-you, which
Codex delivered into the running turn as user ``response_item`` messages, with no new
``task_started`` or ``turn_context`` before them. The summary took the thank-you as the current
request, said it "was completed" and counted "files changed for it" from there.

By shape: a turn runs from an ``event_msg`` ``task_started`` to its ``task_complete`` or
``turn_aborted``. A user message that starts a turn for Codex (:func:`~._codex_tokens.user_turn`:
not contextual) that comes inside a running turn, after the turn's own request and after the
agent's work on it (an assistant message or call), was typed during the turn: the reader marks
it with :data:`~compactor.schema.MID_TURN_KEY`, and the summarizer reads it as Claude Code's
queued prompts (:mod:`compactor.models.local_aside`): a note to the running request, not a new
one. A rollout without ``task_started`` events (older ones, whose turns are known only by their
``turn_context``, which Codex also writes when a setting changes) marks nothing, nor does a user
message after a turn ended.
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
        self._seen = False  # a turn is running (its task_started read, not ended)
        self._asked = False  # the current turn has its request
        self._worked = False  # the agent worked after it

    def record(self, kind: object, payload: object) -> None:
        """A record that is no message: ``task_started`` starts a turn, ``task_complete`` and
        ``turn_aborted`` end it."""
        if kind != "event_msg" or not isinstance(payload, dict):
            return
        event = payload.get("type")
        if event == "task_started":
            self._seen, self._asked, self._worked = True, False, False
        elif event in ("task_complete", "turn_aborted"):
            self._seen = False

    def message(self, msg: Message, item: JsonObject) -> None:
        """A message read from the ``response_item`` ``item``."""
        if msg.role == "assistant":
            self._worked = self._worked or self._asked
        elif msg.role == "user" and user_turn(item):
            if self._seen and self._asked and self._worked:
                msg.extra[MID_TURN_KEY] = True
            self._asked = True
