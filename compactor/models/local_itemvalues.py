"""The per-item values of a change cut in section 3 (blind check 66 N3, issue 28).

cx-platform: the user asked to "estimate the difficulty" of migration stories; the answer was
an edit of the backlog file adding S-006, S-007 and S-008, each with "* Difficulty: …". Section 3
showed the change's first lines only (S-006): the estimates of S-007 and S-008, the answer to
the user's ask, were lost. :func:`item_values` reads the lines of a change past the cut for
labelled values (``Difficulty:``, ``Estimate:``, ``Effort:``, ``Priority:`` …) and names each
with the item it belongs to (the last ``ABC-123`` id before it): "S-007 Difficulty: Medium
(≈2–3h); S-008 Difficulty: Small (≈1h)".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import cut

__all__ = ["item_values"]

_ID_RE = lazy_pattern(r"^[\s*#>|`_\[-]*([A-Z][A-Z0-9]{0,7}-\d{1,5})\b")
"""An item id opening a line (``**S-007** …``, ``## PROJ-42``): the item the next lines describe."""
_VALUE_RE = lazy_pattern(
    r"\b(difficulty|estimated?|estimates?|effort|complexity|size|story points|points|priority"
    r"|risk|rating|score|severity)\b\W{0,3}\s*[:=]\s*(\S.{0,80})",
    re.IGNORECASE,
)
"""A labelled value of an item (``* Difficulty: Medium (≈2–3h).``)."""
_MAX = 8


def item_values(added: Sequence[str], shown: int, width: int) -> str:
    """The values of items in ``added`` past its first ``shown`` lines, on one line ("" if none)."""
    if len(added) <= shown:
        return ""
    item = ""
    found: list[str] = []
    for i, line in enumerate(added):
        if (head := _ID_RE.match(line)) is not None:
            item = head.group(1)
        m = _VALUE_RE.search(line)
        if i < shown or m is None or not item:
            continue
        value = m.group(2).strip().rstrip(".")
        found.append(f"{item} {m.group(1)}: {value}")
    if not found:
        return ""
    more = f" (and {len(found) - _MAX} more)" if len(found) > _MAX else ""
    return cut(
        "values per item in the lines not shown: " + "; ".join(found[:_MAX]) + more, width * 3
    )
