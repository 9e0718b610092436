"""The rest of a claim that no longer holds (BENCH46 W5).

cc-mfa: "The email is not sensitive data, so the simplest fix is to read/write userEmail to
localStorage." was labelled "No longer holds", but the same turn's "The email isn't sensitive
data, so this is safe — unlike tokens or keys which stay memory-only." stayed a decision: its
justification still said the approach the user rejected was safe.

By shape: when a decision is labelled as no longer holding, every other decision of the same
turn (from its request to the next) that restates it (two or more of its content words, as
:func:`.local_restated.content_words` counts them) gets the same label.
"""

from __future__ import annotations

from bisect import bisect_right

from .local_restated import content_words
from .local_session import Session

__all__ = ["same_claim"]

_SHARED = 2  # content words a sentence shares with the labelled one to restate it


def same_claim(s: Session, labels: dict[int, str], prefix: str) -> dict[int, str]:
    """The labels (position in :attr:`Session.decisions` → label) to add: each decision of a
    labelled one's turn that restates it gets its label, when that label starts with
    ``prefix`` and the decision has none (``labels``) yet."""
    marked = [(n, x) for n, x in labels.items() if x.startswith(prefix)]
    if not marked:
        return {}
    starts = [r.index for r in s.requests]
    added: dict[int, str] = {}
    for n, label in marked:
        i, _, text = s.decisions[n]
        turn = bisect_right(starts, i)
        words = content_words(text)
        for m, (j, _, other) in enumerate(s.decisions):
            if m in labels or m in added or bisect_right(starts, j) != turn:
                continue
            if len(words & content_words(other)) >= _SHARED:
                added[m] = label
    return added
