"""Calls that never returned a result while the session went on (blind check 71 N2, hb_snmp: a
``Bash`` call got no result because the user's PC crashed; the user came back and the work went
on. The summary listed the call like any other and section 7 said "no … tool call is open").

By shape: a call without a result that is not in flight at the end (a later user message or
round came after it, :meth:`.local_session._Builder.finish_session`) is **lost**: it is neither
open nor done, whatever ran of it is unknown. The list of calls marks it, section 7 names it
where it says nothing is open."""

from __future__ import annotations

from compactor.facts import Call

from .local_session import PLAN_TOOLS, Session
from .local_text import call_line, code

__all__ = ["LOST_MARK", "lost_calls", "lost_note"]

LOST_MARK = " (lost: it never returned a result)"
"""What the list of calls adds to a lost call."""


def lost_calls(s: Session) -> list[Call]:
    """The calls without a result that the session went on past (not in flight at the end)."""
    if len(s.answered) >= len(s.calls):
        return []
    flying = {c.id for c in s.in_flight}
    return [
        c
        for c in s.calls
        if c.id and c.id not in s.answered and c.id not in flying and c.name not in PLAN_TOOLS
    ]


def lost_note(s: Session, width: int) -> str:
    """Section 7's sentence naming the lost calls ('' when none)."""
    lost = lost_calls(s)
    if not lost:
        return ""
    shown = "; ".join(code(call_line(c, width)) for c in lost[-3:])
    return (
        f" Lost: {shown} never returned a result (the session went on without it; whether it "
        "ran is not known: run it again if its answer is still needed)."
    )
