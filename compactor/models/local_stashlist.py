"""Work said parked in a git stash, when a later ``git stash list`` shows no such stash
(debt51; BENCH49 W1's second half, cc-strato: the agent's ``git stash`` calls failed, a later
``git stash list`` showed only an old auto-stash of another branch, yet the summary let a
resuming agent believe its work was stashed and might be popped).

A decision sentence saying work is stashed ("the parser work is stashed in stash@{0}",
"keep it in the stash", "I stashed …"; not one saying it was popped, applied, dropped or not
made) made before a later successful ``git stash list`` whose output holds no stash the agent
saved (empty, or none of the stashes its ``git stash`` calls reported saving: ``Saved working
directory and index state WIP on main: 1a2b3c4 …``) is labelled ``No longer holds (a later
`git stash list` showed no stash …)`` (the marker of :mod:`.local_reverted`); section 8's
title of a reply that says so (:func:`stash_denied`) says it too.
Only sessions with such a sentence and such a call are looked at.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry

from .local_reverted import NO_LONGER, labelled
from .local_session import Session

__all__ = ["NO_STASH", "judge_stash_listed", "parks", "stash_denied"]

NO_STASH = "a later `git stash list` showed no stash the agent made"

_STASHED_RE = lazy_pattern(
    r"\bstash(?:ed|ing)?\b|\bstash@\{\d+\}|\bin (?:the|a|my|your) stash\b", re.IGNORECASE
)
_BACK_RE = lazy_pattern(
    r"\b(?:pop(?:ped|s)?|appl(?:y|ied|ies)|drop(?:ped|s)?|restor\w*|unstash\w*|empty|no stash"
    r"|clear(?:ed)?|(?:could|did) ?n[o']t|failed)\b",
    re.IGNORECASE,
)
"""A sentence about taking work back out of the stash, or a stash that was not made: it says
no work is parked."""
_SENTENCE_RE = lazy_pattern(r"(?<=[.!?])\s+|\n+")
_LIST_RE = lazy_pattern(r"\bgit\s+stash\s+list\b")
_SAVED_RE = lazy_pattern(r"Saved working directory and index state (.+)")
"""What ``git stash`` / ``git stash push`` prints when it saved a stash: its message."""


def judge_stash_listed(s: Session) -> None:
    """Label the "work is stashed" sentences a later ``git stash list`` contradicts (module
    docstring)."""
    todo = [
        n for n, (_, _, x) in enumerate(s.decisions) if not x.startswith(NO_LONGER) and parks(x)
    ]
    empty = _empty_lists(s) if todo else []
    labels: dict[int, str] = {}
    for n in todo:
        if any(j > s.decisions[n][0] for j in empty):
            labels[n] = f"{NO_LONGER}({NO_STASH}): "
    if labels:
        s.decisions = labelled(s.decisions, labels)


def parks(text: str) -> bool:
    """Whether a sentence of ``text`` says work is stashed (and none takes it back out)."""
    if _STASHED_RE.search(text) is None:
        return False
    said = [x for x in _SENTENCE_RE.split(text) if _STASHED_RE.search(x)]
    return any(not _BACK_RE.search(x) for x in said)


def stash_denied(s: Session, entry: Entry | None) -> bool:
    """Whether ``entry`` (a reply section 8 quotes) says work is stashed and a later
    ``git stash list`` showed no stash the agent made."""
    if entry is None or not parks(entry.text):
        return False
    return any(j > entry.index for j in _empty_lists(s))


def _empty_lists(s: Session) -> list[int]:
    """Entry indexes of the successful ``git stash list`` results that hold no stash the
    agent's earlier ``git stash`` calls reported saving (empty, or only others' stashes)."""
    lists = {c.id for c in s.calls if c.command and _LIST_RE.search(c.command)}
    if not lists:
        return []
    saved: list[str] = []  # the messages of the stashes the agent saved, so far
    empty: list[int] = []
    for e in s.entries:
        for r in e.results:
            if r.call_id in s.failed_calls or r.is_error:
                continue
            if r.call_id in lists:
                text = r.text.strip()
                if not text or not any(m[:60] in text for m in saved):
                    empty.append(e.index)
            else:
                saved.extend(m.group(1).strip() for m in _SAVED_RE.finditer(r.text[:2_000]))
    return empty
