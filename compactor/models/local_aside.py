"""A short message the user typed while the agent worked, delivered into the running turn
(BENCH50 W4: Claude Code's ``queue-operation`` enqueue and ``queued_command`` attachment, "hey
dont use example.com" typed during a UI overhaul, was read as the current request, and section
9 said to "continue" it). Such an aside is a note to the request in progress (a constraint or a
correction), not a new request: the current request stays the one the turn was working on, and
section 1 lists the aside as the user's note to it (section 6 keeps it among the messages).

Blind check 52 (W7): a note queued and delivered during an EARLIER turn (a rename-and-commit
turn, which answered it) was listed under the current request ("commit"), so it read as an open
constraint of the last turn. A note belongs to the turn running when it was delivered (its
position): when that turn is not the current request's, section 1 names that request and says
the turn ended with an answer, so the note is no open constraint."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from compactor.facts import one_line
from compactor.schema import MID_TURN_KEY, AgenticMessage, Message

from .local_session import Session
from .local_text import quote

__all__ = ["aside_lines", "judge_asides"]

_EXTRA = attrgetter("extra")
_WORDS_MOST = 40
"""An aside of more words may be a request of its own: read as before."""


def _aside(text: str) -> bool:
    """A short note, not a question (a question typed mid-turn asks for its own answer)."""
    return len(text.split()) <= _WORDS_MOST and not text.rstrip().endswith(("?", "？"))


def _delivered_mid_turn(msg: Message | AgenticMessage) -> bool:
    """A prompt the user typed while the agent worked, delivered into the running turn: Claude
    Code's ``queued_command`` attachment (``formats._attachments``), or a Codex user message
    typed inside a running turn (:data:`~compactor.schema.MID_TURN_KEY`, blind check 57 W5)."""
    if MID_TURN_KEY in msg.extra:
        return True
    return isinstance(msg, AgenticMessage) and msg.extra.get("attachment") == "queued_command"


def judge_asides(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    """Take the short asides delivered mid-turn after a request out of the requests
    (``items``: the messages the entries were read from, by index)."""
    n = len(items)
    agents = any(issubclass(t, AgenticMessage) for t in set(map(type, items)))  # (in C)
    if not agents and not any(map(bool, map(_EXTRA, items))):  # (in C too: a chat's million)
        return  # an agent's message or a marked one (Codex) is delivered mid-turn, no chat's
    asides = [
        r
        for k, r in enumerate(s.requests)
        if k and r.index < n and _delivered_mid_turn(items[r.index]) and _aside(one_line(r.text))
    ]
    if not asides:
        return
    taken = {r.index for r in asides}
    s.requests = [r for r in s.requests if r.index not in taken]
    s.asides = asides
    last = s.requests[-1]
    if s.reply is not None and s.reply.index < last.index:
        s.reply = None
    s.request_started = s.request_started or any(
        e.role == "assistant" for e in s.entries[last.index + 1 :]
    )


def aside_lines(s: Session, item: int) -> list[str]:
    """Section 1's line for each aside: the user's note to the request in progress."""
    lines: list[str] = []
    for a in s.asides:
        to = next((r for r in reversed(s.requests) if r.index < a.index), None)
        if to is None or to is s.requests[-1]:
            which = "the current request" if to is not None else "the request in progress"
            lines.append(
                f"   While the agent worked on {which}, the user added {quote(a.text, item)} "
                "(typed during the turn: a note or constraint for that request, not a new request)"
            )
            continue
        until = next((r.index for r in s.requests if r.index > a.index), len(s.entries))
        answered = any(
            e.role == "assistant" and not e.internal and e.text.strip()
            for e in s.entries[a.index + 1 : until]
        )
        ended = "ended with an answer" if answered else "ended"
        lines.append(  # a note to an earlier turn, answered there (BENCH52 W7)
            f"   While the agent worked on an earlier request, {quote(to.text, item // 2)}, the "
            f"user added {quote(a.text, item)} (typed during that turn, which {ended} before "
            "the next request: a note for that request, no open constraint of the current one)"
        )
    return lines
