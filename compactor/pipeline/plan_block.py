"""The agent's latest plan as the default finalizer shows it (a ``<system-reminder>`` at the
start of the summary), and where it goes when the user has since reported a problem with work
the plan calls completed (blind check 18, atlas-cc: the summary opened with "[completed] Add
delete member functionality" while the user's latest messages said "still no delete button",
"still not there"): after the current request (section 1), marked as the list the agent last
wrote, not first, where it reads as the state of the work."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from compactor._util import lazy_pattern
from compactor.facts import Entry, entry_of
from compactor.facts.answered_plan import ANSWERED_PLAN_HEADING, plan_answered
from compactor.facts.declined_plan import DECLINED_PLAN_HEADING, plan_declined
from compactor.facts.durable import latest_plan
from compactor.facts.fences import cut_bytes
from compactor.prompts import PLAN_EARLIER_HEADING, PLAN_HEADING, USER_INSTRUCTION
from compactor.schema import AgenticMessage, Message

__all__ = ["CONTESTED_NOTE", "after_request", "plan_reminder"]

M = TypeVar("M", Message, AgenticMessage)

CONTESTED_NOTE = (
    " (the list as the agent last wrote it; the user's messages since report a problem with"
    " work it marks completed: check it before relying on it)"
)
_PROBLEM_RE = lazy_pattern(
    r"\b(?:still (?:not|no|doesn'?t|don'?t|isn'?t|can'?t|cant|broken|missing|fails?|the same)|"
    r"not (?:there|showing|shown|visible|working|fixed|appearing)|(?:can'?t|cannot|cant|don'?t|"
    r"dont) (?:find|see)|missing|(?:doesn'?t|does not|isn'?t|is not) (?:work|show|appear|there)|"
    r"broken|no longer)\b",
    re.IGNORECASE,
)
"""The user's report that something is not there or does not work."""
_OWN_WORDS = 500
"""The report is in the message's opening, the user's own words (not a command template's
"missing" pages below, nor a pasted log's)."""
_WORD_RE = lazy_pattern(r"[a-z]{4,}")
_COMMON = frozenset(
    "with that this from into have will when then them they their there what which your "
    "about after before page file code make sure also only just each".split()
)
_SECTION_TWO_RE = lazy_pattern(r"\n[ \t]*(?:#+[ \t]*)?\**2\.[ \t]")


_INSTRUCTION = USER_INSTRUCTION[:60]
"""How the summarizer's own instruction starts (the last message of its input, or the end of
the last user message): not the user's words."""


def _requests(entries: Sequence[Entry], after: int) -> list[str]:
    """The user's words in the messages after entry ``after``."""
    said = (
        e.text.split(_INSTRUCTION, 1)[0].strip()
        for e in entries[after + 1 :]
        if e.role == "user" and not e.injected and not e.internal
    )
    return [x for x in said if x]


def _contested(entries: Sequence[Entry], plan: list[tuple[str, str]], at: int) -> bool:
    """Whether the user's latest message, after the plan was written (entry ``at``), reports a
    problem, and a user message since names a word of an item the plan calls completed."""
    done = {w for s, item in plan if s == "completed" for w in _WORD_RE.findall(item.lower())}
    if not done - _COMMON:
        return False
    since = _requests(entries, at)
    if not since or _PROBLEM_RE.search(since[-1][:_OWN_WORDS]) is None:
        return False
    said = {w for text in since for w in _WORD_RE.findall(text.lower())}
    return bool((done - _COMMON) & said)


def plan_reminder(
    entries: list[Entry], kept: Callable[[], Sequence[Message | AgenticMessage]], limit: int
) -> tuple[str, bool] | None:
    """(the ``<system-reminder>`` block of the latest plan, whether the user has since reported
    a problem with work it calls completed), or None when the agent wrote no plan. ``kept``:
    the messages kept after the summary (a newer plan there makes this one "as of the
    summarized part"); ``limit``: the bytes of its items."""
    plan = latest_plan(entries)
    if plan is None:
        return None
    items = cut_bytes("\n".join(f"- [{status}] {item}" for status, item in plan[1]), limit)
    tail = [entry_of(i, m) for i, m in enumerate(kept())]
    later = latest_plan(tail)
    at = next((i for i in range(len(entries) - 1, -1, -1) if latest_plan([entries[i]])), -1)
    open_items = not later and any(status != "completed" for status, _ in plan[1])
    answered = open_items and plan_answered([*entries, *tail], at, _INSTRUCTION)  # (45 W6)
    heading = PLAN_EARLIER_HEADING if later else PLAN_HEADING
    heading = ANSWERED_PLAN_HEADING if answered else heading
    if open_items and plan_declined([*entries, *tail], at, _INSTRUCTION):  # (blind check 70 W3)
        heading = DECLINED_PLAN_HEADING
    heading = heading.format(tool=plan[0])
    contested = _contested(entries, plan[1], at)
    if contested:
        heading = heading.rstrip(":") + CONTESTED_NOTE + ":"
    return f"<system-reminder>\n{heading}\n{items}\n</system-reminder>", contested


def after_request(summary: M, block: str) -> M | None:
    """``summary`` with ``block`` before section 2 of its text, that is after the current
    request of section 1; None when its text has no numbered section 2."""
    out = copy.deepcopy(summary)
    if isinstance(out, Message):
        texts = [p for p in out.parts if p.type == "text" and p.text]
        if not texts:
            placed = _placed(out.content, block)
            if placed is not None:
                out.content = placed
                return out
            return None
        first = texts[0]
        if (placed := _placed(first.text or "", block)) is None:
            return None
        first.text = placed
        return out
    for b in out.blocks:
        if b.type == "assistant_gen_text":
            if (placed := _placed(b.text or "", block)) is None:
                return None
            b.text = placed
            return out
    return None


def _placed(text: str, block: str) -> str | None:
    start = text.find("<summary>")
    found = _SECTION_TWO_RE.search(text, max(start, 0))
    if found is None:
        return None
    return f"{text[: found.start()]}\n\n{block}\n{text[found.start() :]}"
