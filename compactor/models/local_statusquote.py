"""A long answer quoted with its failing lines kept (blind check 69 W1).

paq_plan §4: "Next the assistant said: "## Test Results: ✅ **fetch server**: Working correctly
… ✅ **puppeteer server**: Working correctly - respon … l. The JSON syntax is now valid, and all
three servers can be reached"": the head…tail cut of :func:`~.local_text.quote` dropped the one
line "❓ **brave-search server**: Timeout during test", so the quote read as all passed.

:func:`status_quote` quotes a text that fits as :func:`~.local_text.quote` does; a longer one
that holds status-marked lines (❌ ❓ ⚠️ ✗, FAIL, "failed", "timeout", "error", "not working")
keeps its head, those lines (up to three, each cut), and its tail: passing lines (✅) are what
the cut drops first. Secrets are masked in the whole text before anything is cut (row 3131).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line

from .local_mask import masked
from .local_text import quote

__all__ = ["status_quote"]

_MARKED_RE = lazy_pattern(r"^\W{0,6}(?:[❌❓✗✘⛔🔴]|⚠)|\b(?:FAIL(?:ED|S|URE)?|ERROR|TIMEOUT)\b")
"""A status mark at a line's start (❌ ❓ ⚠ ✗), or FAIL, ERROR, TIMEOUT in capitals."""
_SAID_RE = lazy_pattern(
    r"\b(?:not working|timed out|timeout during)\b|[:\-–—]\s*(?:\*\*)?(?:failed|failing|failure|"
    r"errors?|timeout|timed out|broken|unreachable|refused|crashed)\b",
    re.IGNORECASE,
)
"""A failure said as a status: "timed out", "not working", or a failure word right after a colon
or dash ("brave: Timeout during test"); not a word in passing ("strict error handling")."""
_PASSING_RE = lazy_pattern(
    r"[✅✔✓🟢]|\bPASS(?:ED)?\b|\b(?:no|0|zero|without|fixed|resolved)\s+(?:\w+\s+)?"
    r"(?:errors?|failures?|failed|timeouts?)\b",
    re.IGNORECASE,
)
"""A line that reports a pass, or an error that is none or gone ("No errors found")."""
_MOST = 3  # failing lines kept
_LINE = 0.3  # share of the limit one failing line may take


def _failing(text: str) -> list[str]:
    """The lines of ``text`` that report a failure and do not report a pass, in order."""
    lines = (one_line(x) for x in text.splitlines())
    return [
        x
        for x in lines
        if x and (_MARKED_RE.search(x) or _SAID_RE.search(x)) and not _PASSING_RE.search(x)
    ]


def _clip(text: str, size: int, from_end: bool = False) -> str:
    """``text`` cut to about ``size`` characters at a word boundary (its end when ``from_end``)."""
    if len(text) <= size:
        return text
    if from_end:
        part = text[len(text) - size :]
        space = part.find(" ")
        return part[space + 1 :] if 0 <= space < size // 2 else part
    part = text[:size]
    space = part.rfind(" ")
    return part[:space] if space > size // 2 else part


def status_quote(text: str, limit: int) -> str:
    """``"text"`` on one line, as :func:`~.local_text.quote`; a text cut for the quote keeps
    its failing lines between its head and its tail."""
    flat = one_line(text)
    bad = _failing(text)
    if len(flat) <= limit or not bad:
        return quote(text, limit)
    whole = masked(flat)
    lines = [masked(x) for x in bad]
    head_size = max(40, int(limit * 0.35))
    tail_size = max(30, int(limit * 0.2))
    head = _clip(whole, head_size)
    tail = _clip(whole, tail_size, from_end=True)
    inner = range(len(head), len(whole) - len(tail))  # a line starting outside it is shown
    kept = [x for x in lines if whole.find(x) in inner][:_MOST]
    if not kept:
        return quote(text, limit)
    middle = " … ".join(_clip(x, max(40, int(limit * _LINE))) for x in kept)
    return '"' + head.rstrip() + " … " + middle + " … " + tail.lstrip() + '"'
