"""The exact results before Claude Code's own compaction that its summary does not name (issue
28, blind check 58 N4), and whether the session ended answered before it.

The reader notes them from the records before the boundary
(:mod:`compactor.formats._claude_earlierfacts`): commit hashes, pushes (rejected, rebased,
pushed), the last test or type-check verdicts. :func:`earlier_fact_lines` shows, labelled as
before the earlier compaction, those whose hashes (or words) the earlier summary does not
already hold; :func:`answered_before` tells section 9 that the work ended answered there, so it
waits for the user as the other answered sessions do.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut

from .local_session import Session

__all__ = ["ANSWERED_BEFORE", "FACTS", "answered_before", "earlier_fact_lines"]

FACTS = "facts"
"""Key of :attr:`Session.earlier`: the reader's facts, one per line."""
ANSWERED_BEFORE = "answered before"
"""Key of :attr:`Session.earlier`: the records before the compaction end answered."""
_HASH_RE = lazy_pattern(r"\b[0-9a-f]{7,40}\b")
HEAD = (
    "Exact results from the records before the earlier compaction (the earlier summary does not "
    "name them):"
)


def _named(row: str, prior: str) -> bool:
    """Whether the earlier summary already names the fact of ``row`` (its last hash, or the
    words of a check's verdict)."""
    hashes = _HASH_RE.findall(row)
    if hashes:
        return hashes[-1][:7] in prior
    verdict = row.rsplit(" → ", 1)[-1]
    return len(verdict) > 12 and verdict in prior


def earlier_fact_lines(s: Session, width: int) -> list[str]:
    """Section 5's items for the facts before the earlier compaction ([] when none is new)."""
    found = s.earlier.get(FACTS, "") if s.earlier else ""
    if not found or not s.prior:
        return []
    prior = re.sub(r"\s+", " ", s.prior[-1])
    rows = [r for r in found.split("\n") if r and not _named(r, prior)]
    return [HEAD, *(f"  {cut(r, width)}" for r in rows)] if rows else []


def answered_before(s: Session) -> bool:
    """Whether the session ended answered before the earlier compaction, with nothing the user
    typed, no call and nothing in flight since."""
    return (
        bool(s.earlier.get(ANSWERED_BEFORE))
        and s.last_request is None
        and not s.in_flight
        and not any(e.calls for e in s.entries if e.role == "assistant")
    )
