"""Which numbered headings of an earlier summary are its sections (blind check 21: Claude
Code's ``## 8. Current Work`` holds a list ``1. **PaymentCurrency Schema Extension**:`` whose
items read as headings, so the section's quote ended at "… with: **Key Components
Designed:**"); used by :func:`compactor.models.local_text.prior_sections`."""

from __future__ import annotations

import re

__all__ = ["sections_in_order", "without_closing"]


def sections_in_order(heads: list[re.Match[str]]) -> list[re.Match[str]]:
    """The headings that are sections: ``## N.`` ones when the summary has several, and only
    numbers above the previous one's (a numbered list item inside a section is not a section)."""
    if sum(h.group(0).lstrip().startswith("#") for h in heads) >= 3:
        heads = [h for h in heads if h.group(0).lstrip().startswith("#")]
    kept: list[re.Match[str]] = []
    for head in heads:
        if not kept or _number(head) > _number(kept[-1]):
            kept.append(head)
    return kept


_CLOSING_RE = re.compile(
    r"\n?[ \t]*(?:If you need specific details from before compaction|Please continue the "
    r"conversation from where we left)"
)
"""Claude Code's closing lines after its summary's last section (not part of that section)."""


def without_closing(section: str) -> str:
    """``section`` without Claude Code's closing lines after it."""
    match = _CLOSING_RE.search(section)
    return section[: match.start()] if match else section


def _number(head: re.Match[str]) -> int:
    return int(head.group(1) or head.group(4))
