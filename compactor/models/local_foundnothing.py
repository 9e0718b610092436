"""Searches that found nothing, said so in the list of calls (blind check 72 N6, apify_docs: two
``Glob`` calls returned "No files found", which is why the agent then ran ``find``; the summary
listed the three calls without saying the first two found nothing).

By shape: a call of a search tool (its name says grep, glob, search or find) whose whole result
is the tool's nothing-found report ("No files found", "No matches found", "Found 0 files") is
marked in the list of calls with those words."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .local_session import Session

__all__ = ["nothing_found_mark"]

_SEARCH_TOOL_RE = lazy_pattern(r"grep|glob|search|find", re.IGNORECASE)
_NOTHING_RE = lazy_pattern(
    r"(?:No (?:files|matches|results) found|Found 0 (?:files?|matches|results)|"
    r"No matches for pattern\b.*)\.?",
    re.IGNORECASE,
)
"""A search tool's whole result when it found nothing."""


def nothing_found_mark(s: Session, call_id: str, name: str) -> str:
    """What the list of calls adds to a search call that found nothing ('' otherwise)."""
    if _SEARCH_TOOL_RE.search(name) is None or call_id in s.failed_calls:
        return ""
    for e in s.entries:
        for r in e.results:
            if r.call_id == call_id:
                said = r.text.strip()
                found = len(said) <= 200 and _NOTHING_RE.fullmatch(said) is not None
                return f' (found nothing: "{said}")' if found else ""
    return ""
