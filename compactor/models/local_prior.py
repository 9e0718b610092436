"""The sections of an earlier summary the local summary quotes (``From the earlier summary:
…``), read by number (:func:`compactor.models.local_text.prior_sections`); moved here from
:mod:`compactor.models.local` to keep it under the module size limit."""

from __future__ import annotations

from compactor.facts import unlaunched_reports

from .local_blocked import mid_work
from .local_lost import answered_line, prior_state
from .local_session import Session
from .local_state import ANSWERED
from .local_text import code, prior_sections, quote
from .local_views import whole_quote

__all__ = ["prior_current", "prior_excerpt", "prior_pending"]

_KEPT_WHOLE = (7, 8)
"""Pending Tasks and Current Work: what a resuming agent needs, never cut to a few lines."""
_WHOLE_BUDGET = 4_000  # characters for those two sections together


def prior_excerpt(session: Session, number: int, limit: int) -> str:
    """Section ``number`` of the latest earlier summary, on one line, cut at a sentence (for
    section 1, a summary without numbered sections, such as Codex's, is quoted whole, capped)."""
    for text in reversed(session.prior):
        sections = prior_sections(text)
        if number in _KEPT_WHOLE:  # whole, within a budget for the two (blind check 12)
            other = len(sections.get(15 - number, ""))
            limit = max(limit, _WHOLE_BUDGET - min(other, _WHOLE_BUDGET // 2))
        if sections.get(number) or (number == 1 and not sections):
            return whole_quote(sections.get(number) or text, limit)
    return ""


def prior_pending(session: Session, limit: int) -> list[str]:
    """Section 7's lines from an earlier summary's Pending Tasks: always kept (a resuming agent
    needs them), said to be older than the work since; when the latest request since was
    answered, that is said first (else only the earlier summary's list would be there)."""
    reported = _reported(session, limit) if session.prior else []
    blocked = mid_work(session)  # the CLI's usage limit stopped the work (blind check 14)
    asked = session.requests or blocked or reported
    prior = prior_excerpt(session, 7, limit) if session.prior and asked else ""
    if not prior:
        return reported
    said = [f"{prior_state(session)}: {prior}", *reported]
    return [answered_line(session, ANSWERED), *said] if session.turn_ended else said


def _reported(session: Session, limit: int) -> list[str]:
    """What the background tasks started before this part (the earlier summary's agents)
    reported in it: each one's end, and the sentence of its report saying it could not do
    its work (blind check 14: four such reports after Claude Code's own compaction were
    dropped, one "killed", one "completed" with only the usage-limit text)."""
    width = max(120, limit // 8)
    return [
        f"Since then, a background task started before this part ended: {code(key)} {status}"
        + (f": {quote(said, width)}" if said else "")
        for key, status, said in unlaunched_reports(session.entries)
    ]


def prior_current(session: Session, limit: int) -> list[str]:
    """Section 8's line from an earlier summary's Current Work (kept whole, within budget)."""
    prior = prior_excerpt(session, 8, limit) if session.prior else ""
    if not prior:
        return []
    if session.last_request is None:
        return [f"From the earlier summary: {prior}"]
    return [f"Current work in the earlier summary (before the later work described here): {prior}"]
