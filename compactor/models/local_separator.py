"""A separator line's label keeps its marks (blind check 64 N3).

A command that prints ``---node---`` then ``done`` (a label between dashes, then what the next
probe said) was rendered "→ node | done": the rules around a line were dropped
(``==== 14 passed ====`` reads "14 passed"), so the label read as if ``node`` had answered.
:func:`unruled` drops the rules around a line of several words as before, but keeps a line whose
text between the rules is ONE word (``---node---``, ``=== build ===``) whole: a marker, not a
result.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["unruled"]

_RULE_RE = lazy_pattern(r"^[=\-_*#~]{3,}\s*|\s*[=\-_*#~]{3,}$")
"""The rules around a line (``==== 14 passed ====``), as :mod:`.local_text` strips them."""
_MARKER_RE = re.compile(r"[=\-_*#~]{3,}\s*[^\s=\-_*#~]+\s*[=\-_*#~]{3,}")
"""A single word between two rules: a separator's label."""


def unruled(line: str) -> str:
    """``line`` (stripped) without the rules around it, unless it is a label between rules."""
    if _MARKER_RE.fullmatch(line) is not None:
        return line
    return _RULE_RE.sub("", line)
