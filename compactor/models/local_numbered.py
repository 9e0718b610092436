"""The items a user's choice names by number (re-judged goldens M2, tokenforge).

"Decided by the user: ok now ditch number 5 and 6." kept the choice but not what 5 and 6 were:
the list was in an earlier assistant answer ("**5. Niche verticals with real distribution
moats**", "**6. Compliance/KYC tooling** — regulatory tailwind"), not in the summary. A later
"go back to number 5" could not be answered. :func:`named_items` reads the numbered list of the
assistant's message the choice answers and names each item the choice's numbers point at:
"(5: Niche verticals with real distribution moats; 6: Compliance/KYC tooling)".
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut

__all__ = ["named_items"]

_ITEM_RE = lazy_pattern(r"^[ \t>#*_-]{0,6}(\d{1,2})[.)]\s+(.+)$", re.MULTILINE)
_BOLD_RE = lazy_pattern(r"^\*\*(.+?)\*\*|^__(.+?)__")
_TITLE_END_RE = lazy_pattern(r"\s+[—–-]\s+|:\s|\.\s")
_NUMBER_RE = lazy_pattern(r"(?<![\w.$%/-])(\d{1,2})(?![\w%]|[.,]\d)")
_TITLE_CHARS = 80


def _title(line: str) -> str:
    line = line.strip()
    bold = _BOLD_RE.match(line)
    if bold is not None:
        title = bold.group(1) or bold.group(2)
    else:
        end = _TITLE_END_RE.search(line)
        title = line[: end.start()] if end is not None else line
    return cut(title.strip(" *_`"), _TITLE_CHARS)


def named_items(choice: str, offers: list[str]) -> str:
    """`` (5: A; 6: B)``: the items of the latest numbered list in ``offers`` (the assistant's
    messages before the choice, oldest first) that the numbers in ``choice`` name; "" when it
    names none of them."""
    numbers = list(dict.fromkeys(m.group(1) for m in _NUMBER_RE.finditer(choice)))
    if not numbers:
        return ""
    for text in reversed(offers):
        items: dict[str, str] = {}
        for m in _ITEM_RE.finditer(text):
            items.setdefault(m.group(1), _title(m.group(2)))
        if len(items) < 2 or not all(n in items for n in numbers):
            continue
        return " (" + "; ".join(f"{n}: {items[n]}" for n in numbers) + ")"
    return ""
