"""A current request that is only pasted command output goes with the request before it (blind
check 52, N2).

cx_gokao: the user asked why the front end cannot reach the back end, then pasted what a
``curl`` printed (``HTTP/1.1 404 Not Found``, ``Date: …``, ``404 page not found``) as the
last message. Section 1 quoted that fragment as "Current request", while the question it
answers stood two lines up among the later requests. A message whose every line reads as
command output (an HTTP status line or header, a shell prompt with its command, a bare
``404 page not found``-style status, punctuation only), with at least one status or header
line and no question or word addressed to the agent, is labelled "(pasted command output, no
words of the user's own: it goes with the request before it, «…»)". The current request stays
what it is: the label names the question the paste answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern

from .local_text import quote

__all__ = ["pasted_only_label"]

_STATUS_RE = lazy_pattern(
    r"^(?:HTTP/\d(?:\.\d)?\s+\d{3}\b.*|[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*:\s+\S.*)$"
)
"""An HTTP status line or a ``Header-Name: value`` line."""
_OUTPUT_RE = lazy_pattern(
    r"^(?:\S*[$#%>]\s+\S.*|\d{3}\s+[a-z][a-z ]{2,40}|[\W\d_]*|\{.*|\[.*|<.*>)$"
)
"""A shell prompt with its command, a ``404 page not found``-style status, punctuation or
numbers only, a JSON or markup line."""
_ADDRESSED_RE = lazy_pattern(
    r"[?？]|[吗呢么]|\b(?:you|please|why|how|what|can|could|should|we|my|our)\b|(?-i:\bI\b)|"
    r"为什么|怎么|请|帮",
    re.IGNORECASE,
)
_LINES_LEAST = 2
_CHARS_MOST = 4_000


def pasted_only_label(texts: Sequence[str], item: int) -> str:
    """`` (pasted command output, …: it goes with the request before it, «…»)`` for a last
    request of pasted output only ('' otherwise, or when no request comes before it)."""
    if len(texts) < 2 or len(texts[-1]) > _CHARS_MOST:
        return ""
    lines = [x.strip() for x in texts[-1].strip().splitlines() if x.strip()]
    if len(lines) < _LINES_LEAST or _ADDRESSED_RE.search(texts[-1]) is not None:
        return ""
    statuses = sum(1 for x in lines if _STATUS_RE.match(x))
    if not statuses or any(not _STATUS_RE.match(x) and not _OUTPUT_RE.match(x) for x in lines):
        return ""
    before = next((t for t in reversed(texts[:-1]) if t != texts[-1]), "")
    if not before:
        return ""
    return (
        " (pasted command output, no words of the user's own: it goes with the request before "
        f"it, {quote(before, item)})"
    )
