"""Which of an earlier summary's pending items the session since closed or the user dropped
(blind check 33, W5 and W6).

W5 (cc-hsim32): the user interrupted the answer the earlier summary lists as pending ("[Request
interrupted by user]", the last user record before Claude Code's own compaction), ran
``/compact`` and gave a new request; the summary still listed that answer as "Pending in the
earlier summary (some may be done since)". An earlier summary whose last turn the user
interrupted (the reader's mark, :data:`~compactor.models.local_earlier.INTERRUPTED`), followed by
a request of the user's, lists work the user dropped: "dropped by the user (interrupted, then a
new request)", not pending.

W6 (cc-hsim57): the item "**Implement plugin patch to support V instructions in QEMU 1**" was
restated by a later request ("make a plan: support V instructions in QEMU 1. patch the
plugin?"), then "go ahead", edits and commits and an answer; it was still listed as pending
"(some may be done since)" while sections 7 and 9 said nothing was pending. An item whose
distinctive words (not stop words, any language: a run of CJK letters counts by its pairs) a
later request of the user's shares, after which files were changed or a commit made and the
work was answered (the turn ended, or the user went on), is "done since (…)"; when the work
since ended with an answer, the rest of the list is introduced as written before it, not open.
"""

from __future__ import annotations

import re
from itertools import pairwise

from compactor._util import lazy_pattern
from compactor.facts import Entry, command_of, cut, one_line

from .local_earlier import INTERRUPTED
from .local_lost import prior_state
from .local_priorreport import is_question
from .local_priorworked import WORKED_HEAD as _WORKED
from .local_priorworked import worked_heads
from .local_session import Session
from .local_supersede import continues
from .local_text import prior_sections, quote

__all__ = ["DROPPED", "closed_items", "prior_intro", "reasked_items"]

DROPPED = "dropped by the user (interrupted, then a new request)"
_ITEM_RE = lazy_pattern(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+", re.MULTILINE)
_BOLD_RE = lazy_pattern(r"\*\*(.{6,200}?)\*\*")
_WORD_RE = lazy_pattern(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
_CJK_RE = lazy_pattern(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_COMMIT_RE = lazy_pattern(r"\bgit\b[^\n|;&]{0,80}?\bcommit\b")
_COMMIT_HEAD_RE = lazy_pattern(r"^\[[\w./\-]+ (?:\(root-commit\) )?[0-9a-f]{7,}\] .+$", re.M)
"""The line ``git commit`` prints for the commit it made (``[main 3cadca3] …``)."""
_STOP = frozenset(
    """the and for with that this from into onto then than when what which while also still
    need needs needed should must will would could can may might not are was were been being
    has have had its it's our your their there here some any all each every more most other
    such only just very via per use using used make made add added adding fix fixed fixing
    implement implemented implementing update updated updating support supported supporting
    create created creating change changed changing check checked checking run running task
    tasks pending work working done todo next step steps potential possibly maybe optional
    please let see look keep new old now how why who where after before about again same""".split()
)
"""Words that name no piece of work (the item's distinctive words are the others)."""
_MIN_SHARED = 3  # distinctive words a later request shares with the item, at least
_HEAD_CHARS = 240  # an item's head (its bold title, else its start) read for its words


def _words(text: str) -> set[str]:
    """The distinctive words of ``text``: 3+ letter words not stop words, casefolded; a run
    of CJK or kana letters counts by its pairs of letters."""
    found: set[str] = set()
    for w in _WORD_RE.findall(text):
        if _CJK_RE.match(w):
            found.update(w[i : i + 2] for i in range(len(w) - 1))
        elif (low := w.casefold()) not in _STOP:
            found.add(low)
    return found


def _items(section: str) -> list[str]:
    """The list items of a pending section (the whole section when it is no list)."""
    starts = [m.start() for m in _ITEM_RE.finditer(section)]
    if not starts:
        return [section.strip()] if section.strip() else []
    bounds = [*starts, len(section)]
    return [one_line(section[a:b]).strip() for a, b in pairwise(bounds)]


def _head(item: str) -> str:
    bold = _BOLD_RE.search(item[:_HEAD_CHARS])
    return bold.group(1) if bold else item[:_HEAD_CHARS]


def _start(s: Session) -> int:
    latest = s.prior[-1]
    return next((e.index for e in reversed(s.entries) if e.text == latest), -1)


def _work_after(s: Session, request: Entry, until: int) -> str:
    """What the calls after ``request`` and before entry ``until`` (a later request's) did that
    counts as work ('' when nothing: no file changed, no commit made). A commit counts only when
    its call returned the commit (``[branch hash] …``): a call in flight at the end made none
    that the session saw (BENCH42 W6)."""
    files = sum(1 for f in s.files.values() if any(request.index < i < until for i in f.changed_at))
    calls = {
        c.id
        for c in s.calls
        if request.index < c.index < until
        and c.id not in s.failed_calls
        and (command := command_of(c))
        and _COMMIT_RE.search(command)
    }
    commits = sum(
        1
        for e in s.entries[request.index + 1 : until]
        for r in e.results
        if r.call_id in calls and _COMMIT_HEAD_RE.search(r.text[:4_000])
    )
    said = [f"{files} file{'s' if files != 1 else ''} changed" if files else ""]
    said.append(f"{commits} commit{'s' if commits != 1 else ''}" if commits else "")
    return ", ".join(x for x in said if x)


def closed_items(s: Session, within: str = "") -> list[str]:
    """``"…" done since (…)`` for each item of the latest earlier summary's pending section
    that a later request of the user's restated and the work after it answered (``within``:
    only the items whose head that quote holds)."""
    if not s.prior or not s.requests or not prior_state(s).startswith(_USUAL):
        return []  # (work since found lost: not done, local_lost)
    start = _start(s)
    later = [r for r in s.requests if r.index > start]
    if not later:
        return []
    said: list[str] = []
    for item in _items(prior_sections(s.prior[-1]).get(7, "")):
        head = _head(item)
        words = _words(head)
        if len(words) < _MIN_SHARED or (within and one_line(head)[:40] not in within):
            continue
        for n, request in enumerate(later):
            if is_question(request.text):
                continue  # a question restates nothing (BENCH52 W6)
            shared = words & _words(request.text)
            if len(shared) < _MIN_SHARED or 2 * len(shared) < len(words):
                continue
            # (not the work of a latest request still unanswered: BENCH42 W6)
            until = later[-1].index if n + 1 < len(later) and not s.turn_ended else len(s.entries)
            work = _work_after(s, request, until)
            answered = s.turn_ended or n + 1 < len(later)
            if work and answered:
                said.append(
                    f"{quote(cut(one_line(head), 120), 140)} done since (the user asked for it "
                    f"again: {quote(cut(one_line(request.text), 120), 140)}; then {work}, "
                    "answered)"
                )
                break
    return said


def dropped(s: Session) -> bool:
    """Whether the user interrupted the turn before the earlier summary and then made a new
    request (not "continue", not one sharing its pending work's distinctive words): its
    pending work is dropped, not pending (W5)."""
    if not s.prior or s.earlier.get(INTERRUPTED) != "yes":
        return False
    start = _start(s)
    later = [r for r in s.requests if r.index > start]
    if not later or continues(later[0].text):  # "continue": the user took it up again
        return False
    pending = _words(prior_sections(s.prior[-1]).get(7, ""))
    return len(pending & _words(later[0].text)) < _MIN_SHARED  # not the same work asked again


def prior_intro(s: Session, pending: str, answered: bool, closed: int, items: int) -> str:
    """How the earlier summary's pending list is introduced: ``pending`` (the usual words)
    unless the user dropped it (W5), every item is done since, or the work since ended with an
    answer (then section 9 says nothing is pending: its items are not asked for now, W6). Work
    since found lost keeps its own words (``pending`` does not start with the usual ones)."""
    if not pending.startswith(_USUAL):
        return pending
    if dropped(s):
        return (
            f"Not pending, {DROPPED}: the earlier summary's pending work, whose turn the user "
            "interrupted just before that summary"
        )
    if items and closed >= items:
        return "Done since (below), the earlier summary's pending tasks"
    if answered and (again := reasked_items(s)):  # not "not asked for again" (61 W7)
        return (
            f"{_USUAL}, written before the work since; asked for again since: {again} (wanted "
            "now, whatever the earlier summary says of it); check whether each other item is "
            "still wanted"
        )
    if answered and worked_heads(s):  # some were asked for and done since (76 W3)
        return (
            f"{_USUAL}, written before the work since (which ended with an answer; check "
            "whether each is still wanted)"
        )
    if answered:
        return (
            f"{_USUAL}, written before the work since (which ended with an answer: not asked "
            "for again since; check whether each is still wanted)"
        )
    return pending


_USUAL = "Pending in the earlier summary"


def item_count(s: Session) -> int:
    """How many items the latest earlier summary's pending section lists."""
    return len(_items(prior_sections(s.prior[-1]).get(7, ""))) if s.prior else 0


_TERM_RE = lazy_pattern(r"\b[A-Z][A-Z0-9]{1,7}\b")
"""A key term written in capitals (``RAG``, ``MCP``): the name of a piece of work."""
_GENERIC_TERMS = frozenset(
    """API CLI UI UX URL JSON YAML HTML CSS SQL PR CI CD MD OK TODO README IDE OS ID IO VM LLM
    AI""".split()
)
"""Capitalized words that name no particular piece of work."""


def _terms(text: str) -> set[str]:
    return {t for t in _TERM_RE.findall(text) if t not in _GENERIC_TERMS}


def reasked_items(s: Session) -> str:
    """``"item" (the user: "…")`` for each of the latest earlier summary's pending items that a
    later request of the user's asks for again in other words: it shares a key term written in
    capitals (``RAG``) or :data:`_MIN_SHARED` distinctive words with the item's head (blind
    check 61 W7: "now back to the RAG integration" after the item "Build RAG-over-textbooks MCP
    tool", still introduced as "not asked for again since"); '' when none does."""
    if not s.prior or not s.requests:
        return ""
    start = _start(s)
    later = [r for r in s.requests if r.index > start and not is_question(r.text)]
    said: list[str] = []
    worked = worked_heads(s)  # worked on, then other work asked: not wanted now (76 W3)
    for item in _items(prior_sections(s.prior[-1]).get(7, "")):
        if one_line(_ITEM_RE.sub("", item, count=1))[:_WORKED].casefold() in worked:
            continue
        head = _head(item)
        terms, words = _terms(head), _words(head)
        for request in reversed(later):  # the latest that asks for it
            shared = words & _words(request.text)
            if terms & _terms(request.text) or len(shared) >= _MIN_SHARED:
                said.append(
                    f"{quote(cut(one_line(head), 120), 140)} (the user: "
                    f"{quote(cut(one_line(request.text), 120), 140)})"
                )
                break
    return "; ".join(said)
