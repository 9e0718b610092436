"""Section 6's count of the same words sent again, per listing (blind check 39 W4): the
finalizer merges identical sendings only when no assistant text came between them."""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import AgenticMessage, Message, assistant_text

__all__ = ["Sendings"]

_SHORT = 40
"""A text this short ("ok", "yes", "go on") sent again is still one listing with its count:
a chat of a million replies repeats a few texts, and each is no request an answer closes."""


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
        text = msg.content if type(msg) is Message and not msg.parts else assistant_text(msg)
        if text and not text.isspace():
            self._answered.add(id(last))

    def merged(self, key: str, msg: Message | AgenticMessage, at: int) -> bool:
        """Whether ``msg`` (walked newest first; ``at``: where it would be kept) is a sending of
        ``key`` merged into a later listing; else it opens a listing at ``at``."""
        later = self._at.get(key)
        if later is not None and (len(key) <= _SHORT or id(msg) not in self._answered):
            self._count[later] += 1
            return True
        self._at[key], self._count[at] = at, 1
        return False

    def counts(self, kept: int) -> list[int]:
        """The sendings of each of the ``kept`` texts, in chronological order."""
        return [self._count.get(kept - 1 - i, 1) for i in range(kept)]
