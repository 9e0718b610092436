"""How much of each kind of item a local summary keeps (:class:`Limits`), and the factors it is
scaled down by until the summary fits (:mod:`compactor.models.local`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["FACTORS", "MIN_VERBATIM", "PRIOR_MOST_TOKENS", "Limits", "prior_room"]

MIN_VERBATIM = 300


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of each kind of item a summary keeps (scaled down until it fits)."""

    item: int = 240  # characters of one quoted item
    items: int = 12  # items of one list
    users_head: int = 10
    users_tail: int = 40
    user_chars: int = 300
    walk: int = 14  # steps of the chronological walk in ``<analysis>``
    code_lines: int = 8  # key lines shown per changed file
    deliverable: int = MIN_VERBATIM
    """Characters of the final deliverable kept verbatim (grown into the room the rest of the
    summary leaves, up to :data:`~compactor.models.local.MAX_DELIVERABLE`)."""
    reply: int = 2_000  # characters of the answer to the latest request kept verbatim
    prior: int = 20_000
    """Characters of one section of an earlier summary (whole sentences): about 5,000 tokens,
    PreserveSkills' budget for one preserved text (issue 28 point 4). The earlier summary is the
    densest fact source a session has; its room is added to the summary's budget
    (:func:`prior_room`), so it is quoted whole, not cut to a few
    lines (blind check 53 N5: a Files section cut at "… (626 more characters)")."""

    def scaled(self, factor: float) -> Limits:
        return Limits(
            item=max(60, int(self.item * factor)),
            items=max(2, int(self.items * factor)),
            users_head=max(2, int(self.users_head * factor)),
            users_tail=max(3, int(self.users_tail * factor)),
            user_chars=max(80, int(self.user_chars * factor)),
            walk=max(4, int(self.walk * factor)),
            code_lines=max(2, int(self.code_lines * factor)),
            deliverable=self.deliverable,
            reply=max(MIN_VERBATIM, int(self.reply * factor)),
            prior=max(300, int(self.prior * factor)),
        )


FACTORS = (1.0, 0.7, 0.5, 0.35, 0.25, 0.15, 0.1)


PRIOR_MOST_TOKENS = 25_000
"""At most this many tokens of an earlier summary are added to the summary's budget:
PreserveSkills' budget for all preserved text (issue 28 point 4)."""


def prior_room(session: Session) -> int:
    """The tokens the latest earlier summary's sections may take on top of the summary's own
    budget (0 without one): its size, at most :data:`PRIOR_MOST_TOKENS`. Its sections are then
    quoted whole (up to :attr:`~compactor.models.local_limits.Limits.prior` characters each)
    without squeezing out what the session did since (blind check 53 N5)."""
    if not session.prior:
        return 0
    from compactor.counting.tokens import estimate_text

    return min(estimate_text(session.prior[-1]), PRIOR_MOST_TOKENS)
