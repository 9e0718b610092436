"""A question the user dismissed and then answered in their own words is not open (blind check 37,
W3).

cc-obstruct: the agent asked with ``AskUserQuestion`` what code crashed and how; the user
rejected the call, then wrote "why the program crashes when I try to call new()" and pasted the
program, and the agent answered that request later. Section 5 still said "The user dismissed the
question … (no option chosen; still open)".

By shape: a question call the user rejected, after which the user wrote a message of their own
(a request, not a harness notice) and the agent carried on after that message (text or a call),
was answered in the user's words: :func:`own_answer` gives the first such message, quoted by
section 5 in place of "still open". A dismissed question with no user message after it, or one
the agent has not yet gone on from, stays open.
"""

from __future__ import annotations

from bisect import bisect_right

from compactor.facts import Call, cut, one_line

from .local_session import Session

__all__ = ["own_answer"]

_QUOTED = 200  # characters of the user's own answer quoted


def own_answer(s: Session, call: Call) -> str:
    """The user's first own message after the dismissed question ``call`` when the agent carried
    on after it ('' when there is none: the question is still open)."""
    starts = [r.index for r in s.requests]
    at = bisect_right(starts, call.index)
    if at >= len(s.requests):
        return ""
    reply = s.requests[at]
    carried_on = any(
        e.role == "assistant" and not e.internal and (e.text.strip() or e.calls)
        for e in s.entries[reply.index + 1 :]
    )
    return cut(one_line(reply.text).strip(), _QUOTED) if carried_on else ""
