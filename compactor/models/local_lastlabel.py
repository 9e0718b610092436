"""How section 8 labels a call of the last round that returned (blind check 32 N5): "(the last
action)" only when no later call is in flight; otherwise "(the last call that returned; 2 later
calls are in flight)", since the calls named right above it as in flight came after it."""

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
    return f"the last call that returned{', failed' if failed else ''}; {calls} in flight"
