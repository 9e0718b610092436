"""The sections of an earlier summary the local summary quotes (``From the earlier summary:
…``), read by number (:func:`compactor.models.local_text.prior_sections`); moved here from
:mod:`compactor.models.local` to keep it under the module size limit."""

from __future__ import annotations

from .local_session import Session
from .local_text import prior_sections
from .local_views import whole_quote

__all__ = ["prior_excerpt"]


def prior_excerpt(session: Session, number: int, limit: int) -> str:
    """Section ``number`` of the latest earlier summary, on one line, cut at a sentence (for
    section 1, a summary without numbered sections, such as Codex's, is quoted whole, capped)."""
    for text in reversed(session.prior):
        sections = prior_sections(text)
        if sections.get(number) or (number == 1 and not sections):
            return whole_quote(sections.get(number) or text, limit)
    return ""
