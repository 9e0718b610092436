"""The work done after an earlier summary, turn by turn (blind check 60 W3).

After the harness's own compaction the agent went on: it finished the earlier summary's item,
did three more, found a wrong formula the user asked to have recorded — in turns that changed
no file, whose results live only in the assistant's answers. Section 8 said only the last
exchange and the earlier summary's state ("the lines above say where they left the work"), so a
resuming agent would have started again from the earlier summary's item. Section 8 now lists
each turn since the earlier summary, in order: the request (or none: the earlier summary's work
went on), its tool calls, and the assistant's final answer of that turn, compactly; the latest
request, said in full above it, is the last of them. Only when tool calls ran in those turns:
talk alone is in sections 1 and 6 already (and a tiny chat must stay tiny).
"""

from __future__ import annotations

import re
from itertools import pairwise

from compactor._util import lazy_pattern
from compactor.facts import Entry, is_reading_call

from .local_session import PLAN_TOOLS, Session
from .local_text import call_line, plural, quote

__all__ = ["earlier_outcomes", "since_prior_items", "since_start"]

_WIDTH = 240  # the summary's width of a quoted item (``Limits.item``), before any scaling
_RULE_RE = lazy_pattern(r"^\s*\|?[\s:|-]+\|?\s*$", re.MULTILINE)
"""A Markdown table's separator row (``|---|---|``): nothing to quote."""


def since_start(session: Session) -> int:
    """The index of the latest earlier summary's entry (-1 without one)."""
    if not session.prior:
        return -1
    latest = session.prior[-1]
    return next((e.index for e in reversed(session.entries) if e.text == latest), -1)


def _answer(entries: list[Entry]) -> str:
    """The last assistant text of a turn, table rules dropped ("" when it said nothing)."""
    for e in reversed(entries):
        if e.role == "assistant" and e.text.strip():
            return _RULE_RE.sub("", e.text)
    return ""


def since_prior_items(session: Session, width: int = _WIDTH) -> list[str]:
    """Section 8's lines on the turns after the latest earlier summary and before the latest
    request ([] when there are none: no earlier summary, no request since it, or no tool call in
    those turns). ``width``: the summary's item width; the turns get twelve of them (2,880
    characters unscaled), a request 5/12 of one, an answer one less 20 characters, so the list
    shrinks with the rest when the summary is scaled down to fit."""
    start = since_start(session)
    last = session.last_request
    if start < 0 or last is None or last.index <= start:
        return []
    marks = [r.index for r in session.requests if start < r.index < last.index]
    bounds = [start, *marks, last.index]
    turns: list[tuple[str, int, str]] = []  # (request, calls, answer)
    for begin, end in pairwise(bounds):
        part = session.entries[begin + 1 : end]
        calls = sum(len(e.calls) for e in part)
        answer = _answer(part)
        if begin == start:
            if not calls:  # (an answer alone is no work done since)
                continue
            request = "(no request: the earlier summary's work went on)"
        else:
            request = quote(session.entries[begin].text, width * 5 // 12)
        turns.append((request, calls, answer))
    if not any(calls for _, calls, _ in turns):
        return []  # talk only: sections 1 and 6 hold it (and a tiny chat stays tiny)
    lines = [_line(*t, width - 20) for t in turns]
    keep = _within_budget(turns, lines, width * 12)
    left = len(turns) - len(keep)
    head = (
        "Work since the earlier summary, turn by turn in order (the request, then the assistant's "
        "answer that ended it; the latest request above came after these)"
        + (f"; {plural(left, 'exchange')} without tool calls left out" if left else "")
        + ":"
    )
    return [head, *(f"  {lines[i]}" for i in keep)]


def _line(request: str, calls: int, answer: str, width: int) -> str:
    did = f" ({plural(calls, 'tool call')})" if calls else ""
    said = quote(answer, width) if answer else "(no answer)"
    return f"{request}{did} → {said}"


def _within_budget(turns: list[tuple[str, int, str]], lines: list[str], budget: int) -> list[int]:
    """The turns to list: all within the budget; else those with tool calls first, then the
    others in order, as long as they fit (indexes in order)."""
    if sum(len(x) for x in lines) <= budget:
        return list(range(len(lines)))
    order = [i for i, t in enumerate(turns) if t[1]] + [i for i, t in enumerate(turns) if not t[1]]
    keep: list[int] = []
    used = 0
    for i in order:
        if used + len(lines[i]) > budget and (keep or not turns[i][1]):
            continue
        keep.append(i)
        used += len(lines[i])
    return sorted(keep)


_ASKS_RE = lazy_pattern(r"[?？]\W*\Z")
"""A text that ends by asking the user something."""


def _works(entries: list[Entry]) -> bool:
    """Whether these entries hold a call that did work: neither a read nor the plan tool."""
    return any(
        c.name not in PLAN_TOOLS and not is_reading_call(c) for e in entries for c in e.calls
    )


def earlier_outcomes(session: Session, width: int = _WIDTH) -> list[str]:
    """Section 8's line on the latest earlier turn of a session without an earlier summary that
    did work (:func:`_works`) and ended with an assistant text after its last tool results that
    asks nothing, while the current request has no answer yet and the answers section 8 quotes
    are all talk (turns without such a call) that came after it (blind check
    69 N8: roi_git's Qdrant collection was deleted and recreated with size 1536, and only the
    assistant's "**Operation completed successfully!** …" said so; the summary quoted the later
    answer to a question about GitHub and never said how the Qdrant task ended): the request,
    its calls and the assistant's words, shortened."""
    last = session.last_request
    if since_start(session) >= 0 or last is None or session.turn_ended:
        return []  # (an answered request: its answer is where the work stands)
    bounds = [r.index for r in session.requests if r.index < last.index] + [last.index]
    turns = [session.entries[a:b] for a, b in pairwise(bounds)]
    quoted = {e.index for e in (session.deliverable, session.revised) if e is not None}
    if not quoted or any(_works(t) for t in turns if any(e.index in quoted for e in t)):
        return []  # a task's own answer is quoted (or none is): it says how the work ended
    for part in reversed(turns):
        if part[-1].index >= min(quoted):
            continue  # (only a task whose answer a quoted talk answer came after and displaced)
        said = [e for e in part[1:] if e.role == "assistant" and e.text.strip() and not e.internal]
        final = said[-1] if said else None
        if not _works(part) or final is None or final.calls or _ASKS_RE.search(final.text):
            continue  # (an answer that asks the user is a proposal, not an outcome)
        if any(e.results for e in part if e.index > final.index):
            continue  # (a result after it: not the turn's last word)
        if _overtaken(session, part):
            return []  # later calls re-ran what it said had failed (blind check 75 W1)
        request = quote(part[0].text, width * 5 // 12)
        calls = sum(len(e.calls) for e in part)
        return [
            "The latest earlier task, and how the assistant said it ended (its words after the "
            "task's last tool results; no later call checked them): "
            + _line(request, calls, _RULE_RE.sub("", final.text), width * 2)
        ]
    return []


def _overtaken(session: Session, part: list[Entry]) -> bool:
    """Whether a call after the turn ``part`` fixed one of its failures: its closing words (how
    it failed, what the user should run) no longer say how it ended (blind check 75 W1: "I
    can't run sudo from here … Run these three commands" after the agent re-ran them)."""
    lo, hi = part[0].index, part[-1].index
    own: set[str] | None = None
    for err in session.errors:
        if lo <= err.index <= hi and err.after == "fixed" and err.by:
            own = {call_line(c, 160) for e in part for c in e.calls} if own is None else own
            if err.by not in own:
                return True
    return False
