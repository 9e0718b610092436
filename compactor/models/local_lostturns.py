"""Earlier turns lost to an error the API or the agent CLI wrote (blind check 72 N4).

jk_strom: twice the assistant's turn ended in "API Error: Claude's response exceeded the 32000
output token maximum …" (once after the user's photos); the user then asked "Co se stalo?" ("what
happened?") and "Zase si se sekl" ("you got stuck again"), and the summary said nothing of either
error, so those messages stood without their cause. Such an error after the LATEST request is
told in sections 7 and 8 (:func:`~.local_state.error_replies`); an earlier one is listed in
section 4: which request it cut off, that the turn produced nothing, and whether the work went
on after it or what the user asked is still open.
"""

from __future__ import annotations

from compactor.facts import cut, one_line

from .local_session import Session
from .local_text import quote

__all__ = ["lost_turn_items"]

_MOST = 3
"""The latest lost turns listed."""


def lost_turn_items(s: Session, width: int) -> list[str]:
    """Section 4's line for each error an API or the CLI wrote in place of an earlier turn's
    reply (the same error once, with the turns it ended: the latest few)."""
    last = s.last_request
    lost = [e for e in s.harness_errors if last is not None and e.index < last.index]
    by_error: dict[str, list[int]] = {}
    for err in lost:  # its first sentence says what happened (the rest: how to configure it)
        by_error.setdefault(one_line(err.text).split(". ", 1)[0], []).append(err.index)
    items: list[str] = []
    for error, where in list(by_error.items())[-_MOST:]:
        turns = []
        for at in where[-_MOST:]:
            asked = next((r for r in reversed(s.requests) if r.index < at), None)
            then = next((r for r in s.requests if r.index > at), None)
            after = f"after the user's {quote(asked.text, width // 3)}" if asked else "at the start"
            turns.append(after + (f" (next: {quote(then.text, width // 3)})" if then else ""))
        then = next((r for r in s.requests if r.index > where[-1]), None)
        went_on = then is not None and any(
            e.index > then.index and e.role == "assistant" and (e.calls or e.text.strip())
            for e in s.entries
            if e not in s.harness_errors
        )
        state = "the work went on after it" if went_on else "what the user asked is still open"
        count = f"{len(where)} turns" if len(where) > 1 else "A turn"
        more = f" ({len(where) - _MOST} earlier not shown)" if len(where) > _MOST else ""
        said = quote(cut(error, width), width)
        items.append(
            f"{count} lost to an error the API or the agent CLI wrote: {said}"
            f" — the reply being written was lost, nothing came of that turn from there: "
            f"{'; '.join(turns)}{more}; {state}"
        )
    return items
