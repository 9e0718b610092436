"""A failure whose later attempt failed too is resolved when that attempt was (blind check 58
W4, issue 28).

cc_sjb_inflight: ``git add A B -x/ C`` failed (exit 129, "unknown switch"); the agent SPLIT it
— ``git add A B C && git add -- "-x/"``, whose first part staged the files and whose second
failed — then worked around the rest (``git add -- .gitignore …``) and excluded ``-x/`` in
``.gitignore``; the commit went through. Section 4 resolved the split call ("Worked around by
…") but said of the first "Not fixed: a later … failed too": its verdict stopped at the attempt
that failed, though that attempt was resolved afterwards.

:func:`judge_chains` follows each ``failed again`` failure to the later failure it names (the
attempt that failed too) and, when that one was fixed, worked around or fixed by an edit, gives
the first the same verdict (and says how: the same later call). Latest first, so a chain of
attempts resolves from its end.
"""

from __future__ import annotations

from .local_records import ErrorFact
from .local_session import Session

__all__ = ["judge_chains"]

_RESOLVED = ("fixed", "worked around by", "fixed by editing")
"""Verdicts that say a later call got past the failure (not a user's word, not a dry run)."""


def judge_chains(s: Session) -> None:
    """Give each ``failed again`` failure the resolution of the attempt that failed after it."""
    again = [e for e in s.errors if e.after == "failed again" and e.by and not e.why]
    if not again:
        return
    for err in sorted(again, key=lambda e: e.index, reverse=True):
        later = _attempt(s, err)
        if later is not None and later.after in _RESOLVED:
            err.after, err.by, err.why = later.after, later.by, later.why


def _attempt(s: Session, err: ErrorFact) -> ErrorFact | None:
    """The later failure whose call section 4 names as ``err``'s failed attempt."""
    head = err.by.split("…", 1)[0].rstrip()
    if len(head) < 8:
        return None
    return next((e for e in s.errors if e.index > err.index and e.call.startswith(head)), None)
