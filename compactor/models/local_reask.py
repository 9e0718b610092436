"""A "yes" to a re-asked suggestion accepts that suggestion (blind check 49, N3).

Spec Kit's clarify flow (Codex, cx_kardex_abort) offers "**Suggested:** Replace the existing
image with the new one …"; the user answered "Option B" (of an earlier question), the agent
replied "Your reply “Option B” doesn’t map to anything. Please reply with a short answer, or say
“yes” to accept my suggestion", and the user said "yes". The summary listed the complaint as
"Accepted by the user" and lost the decision. When the message a "yes" answers only asks again
for the earlier suggestion (``say "yes" to accept my suggestion``), the accepted item is that
suggestion: the latest ``Suggested:`` / ``Recommended:`` line of the assistant's messages just
before it.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry

from .local_session import Session

__all__ = ["reasked_suggestion"]

_REASK_RE = lazy_pattern(
    r"\b(?:say|reply|answer|type)\s+[\"“'‘]?(?:yes|ok|y)[\"”'’]?\s+to\s+accept\s+(?:my|the)\s+"
    r"(?:suggest\w*|recommend\w*)",
    re.IGNORECASE,
)
_SUGGESTED_RE = lazy_pattern(
    r"^\W{0,6}(?:Suggested|Recommended)(?:\s+answer)?\W{0,6}:\W{0,4}(\S.{3,})$",
    re.IGNORECASE | re.MULTILINE,
)
_BACK = 12
"""Entries before the re-asking message where the suggestion is looked for."""


def reasked_suggestion(s: Session, said: Entry) -> str | None:
    """The suggestion a "yes" to ``said`` accepts when ``said`` only asks again for it; None
    when ``said`` asks nothing of the kind or no earlier suggestion is found."""
    if _REASK_RE.search(said.text) is None:
        return None
    for e in reversed(s.entries[max(0, said.index - _BACK) : said.index]):
        if e.role == "assistant" and e.text and not e.internal:
            found = list(_SUGGESTED_RE.finditer(e.text))
            if found:
                return found[-1].group(1).strip().rstrip("*").strip()
    return None
