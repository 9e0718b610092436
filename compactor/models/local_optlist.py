"""Which list of an assistant's message a bare option mark answers (blind check 45, W1).

cc-review §1/§5: the assistant's message held two numbered lists, first what the code does now
("1. Preview mode … 3. **No structured logging**: No slog calls …"), then "**Options:** 1.
**Remove Reason** … 3. **Add structured logging** …" and the question. The user's "3" was
resolved against the first line numbered 3, and the summary said "Accepted by the user: **No
structured logging** …", the inverse of the choice. :func:`offer_scope` gives the part of the
message the options are in: when it holds several lists (each restarts at ``1``/``a``), the
last one a heading introduces ("Options:", "Choose", "Would you like", "Which …"), else the
last one (the list nearest the closing question); the whole message when it has one list.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["offer_scope"]

_FIRST_ITEM_RE = lazy_pattern(
    r"^[ \t>*_-]{0,6}(?:\*\*|__)?(?:(?:option|choice|plan|approach)\s+)?\(?(?:1|[Aa])"
    r"(?:[.):：]|\*\*|__|\s+[-—–])",
    re.MULTILINE | re.IGNORECASE,
)
"""The first item of a list: ``1.``, ``**1.**``, ``(a)``, ``Option A:``, ``- 1)``."""
_HEADING_RE = lazy_pattern(
    r"\b(?:options?|choices?|choose|pick|select|alternatives?|approaches|would you like|"
    r"which|prefer|want me to|should i|next steps?)\b|[?？]\s*\**\s*$",
    re.IGNORECASE,
)
"""A line that introduces options to choose from."""
_HEADING_LINES = 2
"""The heading is one of the two non-blank lines above the list's first item."""


def offer_scope(text: str) -> str:
    """The part of ``text`` (an assistant's message) whose list a bare option mark answers:
    from the heading (or first item) of the chosen list to the end; ``text`` itself when the
    message has fewer than two lists."""
    if len(text) > 20_000:
        return text
    starts = [m.start() for m in _FIRST_ITEM_RE.finditer(text)]
    if len(starts) < 2:
        return text
    for start in reversed(starts):
        above = [x for x in text[:start].splitlines() if x.strip()][-_HEADING_LINES:]
        for line in reversed(above):
            if _HEADING_RE.search(line) is not None and _FIRST_ITEM_RE.match(line) is None:
                return text[text.rfind(line, 0, start) :]
    return text[starts[-1] :]
