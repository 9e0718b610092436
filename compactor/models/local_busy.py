"""A call refused because its agent or job was still busy, and that agent finished later
(blind check 16, issue 28).

``Agent(resume=a585e30a55d256fbe)`` failed with "Cannot resume agent a585e30a55d256fbe: it is
still running"; a hundred records later a ``<task-notification>`` reported that agent
``completed``. The summary listed the refusal as "Unresolved failure" and "not fixed" before
the usage limit, so a resuming agent would retry a call whose reason is gone. A failure whose
error says the thing it names was still running (or busy) is no failure to fix once a later
notification reports that same id stopped: :func:`judge_busy` marks it ``ended later`` and
says when. The errors are pre-filtered by substring; only the entries after such an error
that hold a notification are read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts.jobstate import ID_END, ID_TAG, is_notice

from .local_session import Session

__all__ = ["ENDED_LATER", "judge_busy"]

ENDED_LATER = "ended later"
"""What became of a failure refused because its agent or job was busy, which stopped later."""

_BUSY_WORDS = ("still running", "is busy", "already running", "still in progress")
_ID_RE = lazy_pattern(r"\b(?=[\w\-.]*\d)[A-Za-z0-9][\w\-.]{5,63}\b")
_NOTICE_RE = lazy_pattern(
    rf"{ID_TAG}\s*([\w\-.]+)\s*{ID_END}(?:(?!{ID_TAG}).)*?<status>\s*(\w+)\s*</status>",
    re.DOTALL,
)
_NOT_STOPPED = frozenset({"running", "pending", "started"})


def _busy_ids(lines: Sequence[str]) -> tuple[str, list[str]]:
    """What was busy ("the agent", "the job") and the ids the refusal names."""
    for line in lines:
        low = line.lower()
        if any(w in low for w in _BUSY_WORDS):
            return ("the agent" if "agent" in low else "the job"), _ID_RE.findall(line)
    return "", []


def judge_busy(s: Session) -> None:
    """Mark ``ended later`` each open failure that was refused because an agent or job with an
    id was still running, when a later ``<task-notification>`` reports that id stopped (the
    latest such report decides); :attr:`ErrorFact.why` says how and in which message."""
    for err in s.errors:
        if err.after not in ("", "failed again"):
            continue
        what, ids = _busy_ids(err.outcome.lines[:3])
        if not ids:
            continue
        ended: tuple[str, int] | None = None
        for e in s.entries:
            if e.index <= err.index or e.role != "user" or not is_notice(e.text):
                continue
            if not any(key in e.text for key in ids):
                continue
            for m in _NOTICE_RE.finditer(e.text):
                status = m.group(2).lower()
                if m.group(1) in ids and status not in _NOT_STOPPED:
                    ended = (status, e.index + 1)
        if ended is not None:
            status, number = ended
            err.after, err.by = ENDED_LATER, ""
            err.why = f"{what} was still running then; it {status} later (message {number})"
