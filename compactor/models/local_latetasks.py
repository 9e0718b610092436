"""Background-task failures reported after the last answer, judged against the request that
launched each task (issue 28 after blind check 24, cc-claudehome).

A ``<task-notification>`` that reports a failure after the last answer was read as the latest
request's open point ("a background task it started failed", "start it again"). But the task
may have been launched by an earlier request, hundreds of records before, whose work the agent
then did another way (it gave up on the background run and ran the same logic inline): its
late failure is a stale report, a fact to mention, not pending work. Each failure's task id
leads to the call whose result started it (``Background.index``) and so to the request it was
launched for: only a task launched after the latest request can make that request pending. A
task launched for an earlier request is said as such, with the words that came after it; a
task whose launch is not in this part is left to the earlier summary's lines
(:func:`compactor.models.local_prior.prior_pending` reports those) or said to be from before
this log when there is no earlier summary.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor.facts import Entry
from compactor.facts.jobports import listening, serves

from .local_text import code, quote

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["earlier_failed_items", "own_failed", "relied_on"]

Failed = tuple[str, str, str]


def _launched(s: Session, key: str) -> int:
    """The index of the call that started task ``key``; -1 when its launch is not here."""
    bg = s.background.get(key)
    return bg.index if bg is not None else -1


def own_failed(s: Session) -> list[Failed]:
    """The failures after the last answer of tasks launched for the latest request, or that
    the last answer relies on (:func:`relied_on`)."""
    last = s.last_request
    if not s.failed_after or last is None:
        return s.failed_after
    return [f for f in s.failed_after if _launched(s, f[0]) > last.index or relied_on(s, f[0])]


def relied_on(s: Session, key: str) -> bool:
    """The last answer, written after task ``key`` was launched for an earlier request, names
    its id or a port it serves on (blind check 63 W1: "Servidor opencode rodando em
    http://127.0.0.1:3737" for ``opencode serve --port 3737``, which failed with exit code 137
    after that answer): the task's failure makes the answer's claim stale, whichever request
    launched it, and is the next thing to handle."""
    bg = s.background.get(key)
    answer = next(
        (e for e in reversed(s.entries) if e.role == "assistant" and not e.internal and e.text),
        None,
    )
    if bg is None or answer is None or answer.index < bg.index:
        return False
    if re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", answer.text):
        return True
    ports = serves(bg.command) | serves(bg.said) | listening(bg.seen)
    return any(re.search(rf"(?::|\bport )({port})\b", answer.text) for port in ports)


def _request_of(s: Session, at: int) -> Entry | None:
    return next((r for r in reversed(s.requests) if r.index < at), None)


def _said_after(s: Session, at: int, stop: int) -> str:
    """The last assistant text after entry ``at`` and before entry ``stop``."""
    for e in reversed(s.entries[at + 1 : stop]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e.text
    return ""


def earlier_failed_items(s: Session, width: int = 300) -> list[str]:
    """Section 7's lines for the failures after the last answer of tasks an earlier request
    launched (or launched before this log): facts, not the latest request's open point."""
    last = s.last_request
    if not s.failed_after or last is None:
        return []
    items: list[str] = []
    for key, status, summary in s.failed_after:
        at = _launched(s, key)
        if at > last.index or relied_on(s, key):  # (those are the latest request's: 63 W1)
            continue
        what = f"background task {code(key)} {status}" + (f" ({summary})" if summary else "")
        if at < 0:
            if not s.prior:  # (with an earlier summary, section 7 says it from there)
                items.append(
                    f"After the last answer, the CLI reported: {what}. Its launch is not in this "
                    "log: it was not started for the latest request, which stays answered"
                )
            continue
        request = _request_of(s, at)
        nxt = next((r.index for r in s.requests if r.index > at), last.index)
        later = _said_after(s, at, nxt)
        items.append(
            f"After the last answer, the CLI reported: an earlier {what}. It was started for an "
            f"earlier request{f' ({quote(request.text, width // 2)})' if request else ''}, not "
            "for the latest one, which stays answered; the work went on after it"
            + (f" (the assistant said next: {quote(later, width // 2)})" if later else "")
            + ": check that the later work did not already do the same before running it again"
        )
    return items
