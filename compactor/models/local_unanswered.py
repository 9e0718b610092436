"""Every user message left unanswered at the end, not only the last (blind check 63 N4).

cc-bui: the agent's work stopped on "API Error: Unable to connect to API"; the user asked "Is
everything oke?" (the reply: the same API error), then "hi" (another API error). Sections 7 and
9 named only "hi": a resuming agent answering it would skip the user's question before it.

:func:`unanswered_before` walks back from the latest request while it is unanswered: each
earlier request whose only replies, up to the next request, were errors the API or the agent
CLI wrote (``Session.harness_errors``) or nothing at all is unanswered too. A request with any
assistant text or call after it, or one the user interrupted, ends the walk.

:func:`continued_step` (blind check 69 N5, bb_status: §9 said "Answer the latest request:
"continue" (and the earlier ones left unanswered too: "continue", …)" while the request they
continue, to ask two other models why a statusbar is invisible, was named only in §1): when the
latest messages only ask to go on ("continue", "go on", "keep going", "please continue"), §9
names the last request before them that is one of its own, quoted.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import INTERRUPT_RE, Entry, one_line

from .local_session import Session
from .local_supersede import continues
from .local_text import quote

__all__ = [
    "continued_step",
    "go_on_only",
    "unanswered_before",
    "unanswered_items",
    "unanswered_step",
]

_GO_ON_RE = lazy_pattern(
    r"^\W*(?:(?:ok(?:ay)?|sorry|yes|pls|please)\W+)?(?:please\s+)?(?:continue|go on|keep going|"
    r"carry on|proceed|resume|继续|続けて(?:ください)?)(?:\s+(?:please|pls))?\W*$",
    re.IGNORECASE,
)
"""A message that only asks to go on with the work ("continue", "please continue", "go on")."""

_MOST = 4
"""Earlier unanswered requests named at most (the newest ones)."""


def unanswered_before(s: Session) -> list[Entry]:
    """The requests before the latest one that are unanswered like it, oldest first (none when
    the latest request was answered or worked on)."""
    if s.turn_ended or s.request_started or len(s.requests) < 2:
        return []
    errors = {e.index for e in s.harness_errors}
    out: list[Entry] = []
    for before, after in zip(s.requests[-2::-1], s.requests[:0:-1], strict=False):
        between = s.entries[before.index + 1 : after.index]
        if any(
            (e.role == "assistant" and not e.internal and e.index not in errors)
            and (e.text.strip() or e.calls)
            for e in between
        ) or any(e.role != "assistant" and INTERRUPT_RE.search(e.text) for e in between):
            break
        out.append(before)
        if len(out) == _MOST:
            break
    return out[::-1]


def unanswered_items(s: Session, width: int) -> list[str]:
    """A line naming the earlier unanswered requests (sections 7 and 8), or none."""
    before = unanswered_before(s)
    if not before:
        return []
    said = ", ".join(quote(e.text, width // 2) for e in before)
    return [
        f"Earlier messages of the user are unanswered too (each reply was an error the API or "
        f"the agent CLI wrote, or nothing): {said}"
    ]


def unanswered_step(s: Session, width: int) -> str:
    """What section 9's "Answer the latest request" adds: the earlier unanswered requests."""
    before = unanswered_before(s)
    if not before:
        return ""
    said = ", ".join(quote(e.text, width // 2) for e in before)
    return f" (and the earlier ones left unanswered too: {said})"


def go_on_only(text: str) -> bool:
    """Whether ``text`` only asks to go on (:data:`_GO_ON_RE`)."""
    flat = one_line(text)
    return len(flat) <= 40 and _GO_ON_RE.match(flat) is not None


def continued_step(s: Session, width: int) -> str:
    """Section 9's step when the latest requests only ask to go on: the last request before
    them that is one of its own (not a short reply either), quoted, and what stays unanswered
    before it; "" when the latest request is not such a message or none came before."""
    reqs = s.requests
    tail = 0
    while tail < len(reqs) and go_on_only(reqs[-1 - tail].text):
        tail += 1
    if not tail:
        return ""
    base = next((r for r in reversed(reqs[:-tail]) if not continues(r.text)), None)
    if base is None:
        return ""
    asked = sorted({one_line(r.text) for r in reqs[-tail:]})
    said = ", ".join(quote(a, width // 4) for a in asked)
    times = f" ({tail}×)" if tail > 1 else ""
    earlier = [e for e in unanswered_before(s) if e.index < base.index and not go_on_only(e.text)]
    more = ", ".join(quote(e.text, width // 2) for e in earlier)
    also = f" (and the earlier ones left unanswered too: {more})" if more else ""
    return (
        f"   Answer the request the user's latest messages continue: {quote(base.text, width)} "
        f"(those messages, {said}{times}, only ask to go on with it){also}"
    )
