"""Section 6 of every summary lists a prompt still queued when the session ended (blind check
39, cc-admin): the user's latest words, typed while the agent worked and never delivered
(:data:`~compactor.schema.STILL_QUEUED_KEY`, set by the Claude Code reader). The finalizer
lists the user's messages from the summarized part; such a message has no record of its own,
so when it falls in the tail kept verbatim after the summary no written message holds it: it
is listed from the kept tail too, and always with :data:`~compactor.schema.STILL_QUEUED_NOTE`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import TypeVar

from compactor.schema import (
    STILL_QUEUED_KEY,
    STILL_QUEUED_NOTE,
    AgenticMessage,
    Message,
    assistant_text,
)

__all__ = ["Sendings", "queued_note", "with_kept_queued"]

M = TypeVar("M", Message, AgenticMessage)


def with_kept_queued(context: Sequence[M]) -> Iterable[M]:
    """``context``, then the still-queued messages of the kept tail (none: ``context``)."""
    from compactor.models.base import KEPT_AFTER_SUMMARY

    kept = [m for m in KEPT_AFTER_SUMMARY.get() if m.extra and STILL_QUEUED_KEY in m.extra]
    return chain(context, kept) if kept else context  # type: ignore[arg-type]


def queued_note(msg: Message | AgenticMessage) -> str:
    """`` (typed while the agent worked; still queued, …)`` for a still-queued message."""
    return f" ({STILL_QUEUED_NOTE})" if msg.extra and STILL_QUEUED_KEY in msg.extra else ""


class Sendings:
    """Section 6's sendings of the same words (blind check 39 W4, cx-dd-world: a request
    answered, approved and implemented, sent again twice much later, was one message "sent 3
    times" at its last sending, its answered first sending gone from the order). Sendings with
    no answer between are one listing, at the last, with their count; an answered sending
    starts a listing of its own, in its place."""

    __slots__ = ("_answered", "_at", "_count")

    def __init__(self) -> None:
        self._answered: set[int] = set()  # ids of the candidates an assistant text followed
        self._at: dict[str, int] = {}  # a text → the index in ``kept`` of its open listing
        self._count: dict[int, int] = {}  # an index in ``kept`` → the sendings it holds

    def reply(self, msg: Message | AgenticMessage, candidates: Sequence[object]) -> None:
        """Note an assistant ``msg`` after the last of ``candidates`` (once per candidate)."""
        if (
            not candidates
            or msg.role != "assistant"
            or id(last := candidates[-1]) in self._answered
        ):
            return
        if (assistant_text(msg) or "").strip():
            self._answered.add(id(last))

    def merged(self, key: str, msg: Message | AgenticMessage, at: int) -> bool:
        """Whether ``msg`` (walked newest first; ``at``: where it would be kept) is a sending of
        ``key`` merged into a later listing; else it opens a listing at ``at``."""
        later = self._at.get(key)
        if later is not None and id(msg) not in self._answered:
            self._count[later] += 1
            return True
        self._at[key], self._count[at] = at, 1
        return False

    def counts(self, kept: int) -> list[int]:
        """The sendings of each of the ``kept`` texts, in chronological order."""
        return [self._count.get(kept - 1 - i, 1) for i in range(kept)]
