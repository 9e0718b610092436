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

Blind check 57 (W3): Claude Code's rejection of a question can carry the user's answers ("The
user wants to clarify these questions … Questions asked: - "…" Answer: …", or "… the user said:
<words>"). That text is the answer: :func:`own_answer` quotes it, never the next user message
(which may come a hundred records later and ask for something else).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, one_line
from compactor.facts.stops import rejection

from .local_session import Session

__all__ = ["own_answer"]

_QUOTED = 200  # characters of the user's own answer quoted
_ANSWER_RE = lazy_pattern(
    r"^\s*Answer:[ \t]*(\S.*?)(?=\n\s*- \"|\n\s*\n|\Z)", re.MULTILINE | re.DOTALL
)
"""An answer the rejection of a question carries, under its question (Claude Code's "Questions
asked: - "…" Answer: …")."""
_REFUSED = "The user rejected this call"  # how compactor.facts.stops.rejection starts its line
_NOT_WORDS = ("STOP what you are doing", "the user chose to clarify")  # the CLI's, not the user's
_LOOK_AHEAD = 40  # entries after the call its result is looked for in


def _answer_in_result(s: Session, call: Call) -> str:
    """The user's answers the rejection of ``call`` carries ('' when none): the ``Answer:``
    texts of its result, else the words of its line ("… the user said: <words>")."""
    for e in s.entries[call.index + 1 : call.index + _LOOK_AHEAD]:
        for r in e.results:
            if r.call_id != call.id:
                continue
            found = [one_line(m.group(1)).strip() for m in _ANSWER_RE.finditer(r.text[:20_000])]
            if found := [x for x in found if x]:
                return cut(" | ".join(found), _QUOTED)
            said = rejection(r.text).removeprefix(_REFUSED).lstrip(": ").strip()
            return "" if not said or said.startswith(_NOT_WORDS) else cut(said, _QUOTED)
    return ""


def own_answer(s: Session, call: Call) -> str:
    """The answer the rejection of the dismissed question ``call`` carries (blind check 57 W3),
    else the user's first own message after it when the agent carried on after it ('' when
    there is none: the question is still open)."""
    if carried := _answer_in_result(s, call):
        return carried
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
