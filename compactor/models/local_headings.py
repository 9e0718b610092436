"""Which numbered headings of an earlier summary are its sections (blind check 21: Claude
Code's ``## 8. Current Work`` holds a list ``1. **PaymentCurrency Schema Extension**:`` whose
items read as headings, so the section's quote ended at "… with: **Key Components
Designed:**"); used by :func:`compactor.models.local_text.prior_sections`."""

from __future__ import annotations

import bisect
import re

from compactor._util import lazy_pattern

__all__ = ["sections_in_order", "without_closing"]


def sections_in_order(heads: list[re.Match[str]], body: str) -> list[re.Match[str]]:
    """The headings of ``body`` that are sections: none inside a code fence (a ``# 2. Validate``
    comment), only unindented ``## N.`` ones when the summary has several, and each number
    above the previous one's (a numbered list item inside a section is not a section)."""
    if "```" in body:
        fences = [m.start() for m in _FENCE_RE.finditer(body)]
        heads = [h for h in heads if bisect.bisect_right(fences, h.start()) % 2 == 0]
    marked = [h for h in heads if _unindented_hash(h.group(0))]
    if len(marked) >= 3:
        heads = marked
    kept: list[re.Match[str]] = []
    for head in heads:
        if not kept or _number(head) > _number(kept[-1]):
            kept.append(head)
    return kept


_FENCE_RE = lazy_pattern(r"^[ \t]*```", re.MULTILINE)


def _unindented_hash(heading: str) -> bool:
    return heading.rsplit("\n", 1)[-1].startswith("#")


_CLOSING_RE = lazy_pattern(
    r"\n?[ \t]*(?:If you need specific details from before compaction|Please continue the "
    r"conversation from where we left)"
)
"""Claude Code's closing lines after its summary's last section (not part of that section)."""


def without_closing(section: str) -> str:
    """``section`` without Claude Code's closing lines after it."""
    match = _CLOSING_RE.search(section)
    return section[: match.start()] if match else section


def _number(head: re.Match[str]) -> int:
    return int(head.group(1) or head.group(4) or head.group(5))
