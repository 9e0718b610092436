"""How section 8 labels a call of the last round that returned (blind check 32 N5): "(the last
action)" only when no later call is in flight; otherwise "(the last call that returned; 2 later
calls are in flight)", since the calls named right above it as in flight came after it.

"The last call that returned" is the one whose result came last, whatever that result holds
(blind check 47 W5, cc-team: a failed ``git add`` was labelled so although the retry after it
returned with an empty result, a success, which the lines above and section 9 named as the last
call that returned). A call with a later result is labelled "a later call returned after it"."""

from __future__ import annotations

from compactor.facts import Call

from .local_session import Session

__all__ = ["returned_label"]


def returned_label(s: Session, call: Call, failed: bool) -> str:
    """The label of ``call`` (one of the last action's calls that returned) in section 8."""
    flying = {c.id for c in s.in_flight}
    later = 0
    if flying:
        seen = False
        for c in s.calls:
            if c.id == call.id:
                seen = True
            elif seen and c.id in flying:
                later += 1
    if not later:
        return "the last action, failed" if failed else "the last action"
    calls = "1 later call is" if later == 1 else f"{later} later calls are"
    if _returned_after(s, call.id):
        return f"{'failed; ' if failed else ''}a later call returned after it; {calls} in flight"
    return f"the last call that returned{', failed' if failed else ''}; {calls} in flight"


def _returned_after(s: Session, call_id: str) -> bool:
    """Whether another call's result comes after ``call_id``'s (empty results count: the call
    returned)."""
    seen = False
    for e in s.entries:
        for r in e.results:
            if r.call_id == call_id:
                seen = True
            elif seen and r.call_id and r.call_id in s.answered:
                return True
    return False
