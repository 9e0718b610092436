"""How much of each kind of item a local summary keeps (:class:`Limits`), and the factors it is
scaled down by until the summary fits (:mod:`compactor.models.local`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FACTORS", "MIN_VERBATIM", "Limits"]

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
    prior: int = 2_500  # characters of one section of an earlier summary (whole sentences)

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
