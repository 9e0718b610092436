"""A request typed into a command template (a slash command's expansion: spec-kit's
``## User Input`` block, then pages of ``## Outline``) is quoted as the user's words and the
template's first words, not in full (blind check 15: gd-angular's summary printed its
8,000-character template in sections 1, 6 and 9, 661 lines). Section 6 lists the message
itself; the other sections say what the user asked and that a template came with it."""

from __future__ import annotations

from compactor.facts import one_line
from compactor.facts.templates import SLOT_RE

from .local_text import quote
from .local_typed import typed_words

__all__ = ["template_quote"]

_LEAST = 1_500
"""A message shorter than this is quoted as it is (its template, if any, is short)."""
_BEGIN = 160


def template_quote(text: str, limit: int) -> str | None:
    """``"typed words" (typed into a command template of N characters, which begins: "…";
    section 6 lists the message)`` when ``text`` is mostly a template; else None."""
    if len(text) < _LEAST or text.count("\n") < 10:
        return None
    if SLOT_RE.search(text) is None:
        return None  # a pasted document, not a template with a slot for the user's words
    typed = typed_words(text)
    if 4 * len(typed) > len(text):
        return None  # mostly the user's own words
    body = one_line(SLOT_RE.sub(" ", text, count=1))
    begin = body[:_BEGIN].rsplit(" ", 1)[0] + " \u2026" if len(body) > _BEGIN else body
    said = quote(typed, limit) if typed.strip() else "no words of the user's own"
    return (
        f"{said} (typed into a command template of {len(text):,} characters, which begins: "
        f"{quote(begin, _BEGIN + 10)}; section 6 lists the message)"
    )
