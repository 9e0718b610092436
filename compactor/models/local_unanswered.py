"""Every user message left unanswered at the end, not only the last (blind check 63 N4).

cc-bui: the agent's work stopped on "API Error: Unable to connect to API"; the user asked "Is
everything oke?" (the reply: the same API error), then "hi" (another API error). Sections 7 and
9 named only "hi": a resuming agent answering it would skip the user's question before it.

:func:`unanswered_before` walks back from the latest request while it is unanswered: each
earlier request whose only replies, up to the next request, were errors the API or the agent
CLI wrote (``Session.harness_errors``) or nothing at all is unanswered too. A request with any
assistant text or call after it, or one the user interrupted, ends the walk.
"""

from __future__ import annotations

from compactor.facts import INTERRUPT_RE, Entry

from .local_session import Session
from .local_text import quote

__all__ = ["unanswered_before", "unanswered_items", "unanswered_step"]

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
