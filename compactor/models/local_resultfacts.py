"""The facts a tool result printed, as section 8's last-round lines show them (moved out of
:mod:`.local_state` to keep it under the module size limit; blind check 25 added
:func:`_fact`: a path is shown whole or not at all)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import amount_spans, identifiers, numbers, one_line, paths
from compactor.facts.bounded import is_startup_noise
from compactor.facts.factnoise import without_parts
from compactor.facts.noise import without_frames

__all__ = ["empty_report", "result_facts"]

_ID_FIELD_RE = lazy_pattern(
    r"[\"']?\b(\w*(?:_id|Id|ID)|id)[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9][\w\-.]{2,63})", re.ASCII
)
"""An id a result names as a field (``"refund_id": "re_3PqX9"``, ``task_id=42``)."""
_FACT_CHARS = 80


def result_facts(text: str) -> list[str]:
    """Paths, identifiers, id fields, amounts and exit codes / HTTP statuses a result printed,
    in order of first appearance, each once."""
    window = text if len(text) <= 20_000 else text[:10_000] + "\n" + text[-10_000:]
    window = without_frames(window)  # where an error passed is not a fact (blind check 11)
    if ": line " in window:  # a login shell's start-up error is no fact (blind check 16)
        window = "\n".join(x for x in window.splitlines() if not is_startup_noise(x))
    found = [
        *paths(window),
        *identifiers(window),
        *numbers(window, from_result=True),
        *amount_spans(window),
        *((m.start(), f"{m.group(1)}={m.group(2)}") for m in _ID_FIELD_RE.finditer(window)),
    ]
    facts = dict.fromkeys(f for _, x in sorted(found) if len(x) >= 3 and (f := _fact(x)))
    return without_parts(facts)  # not C2sCgOtr of …/form-vendor-C2sCgOtr.js (blind check 15)


def _fact(text: str) -> str:
    """``text`` as a fact line: whole when short; a long path or id (one token) whole up to
    :data:`_TOKEN_CHARS`, else left out; a long text cut at a word, marked ``…``. Never a token
    cut mid-way (blind check 25: ``…/Versions/3.`` was shown as what a call printed)."""
    flat = one_line(text)
    if len(flat) <= _FACT_CHARS:
        return flat
    if " " not in flat:
        return flat if len(flat) <= _TOKEN_CHARS else ""
    space = flat.rfind(" ", 0, _FACT_CHARS)
    return flat[:space].rstrip(" ,;:") + " …" if space > 0 else ""


_TOKEN_CHARS = 240


_COUNT_RE = lazy_pattern(
    r"[\"']((?i:total_?count|total_?results|total_?hits|result_?count|filtered_?count|num_?found))"
    r"[\"']\s*:\s*(\d+)"
)
"""A field counting what a search found (``'totalCount': 0``, ``"total_results": 3``)."""
_LIST_RE = lazy_pattern(
    r"[\"'](?i:data|results|items|hits|records|matches|documents)[\"']\s*:\s*\[\s*([^\s\]])?"
)
"""A list of what a search found; group 1 is its first character when it is not empty."""
_EMPTY_CHARS = 200_000


def empty_report(text: str) -> str:
    """For a JSON-like (or Python ``repr``) result whose result counts are all zero and whose
    result lists are all empty: "returned no results (…)"; else "". The ids next to empty data
    are query or category ids, not findings (blind check 70 W1: 24 ids of two searches that
    found nothing were what they "printed")."""
    if "{" not in text or len(text) > _EMPTY_CHARS:
        return ""
    counts = [(m.group(1), int(m.group(2))) for m in _COUNT_RE.finditer(text)]
    lists = [m.group(1) for m in _LIST_RE.finditer(text)]
    if not (counts or lists) or any(n for _, n in counts) or any(lists):
        return ""
    if not counts:
        return "returned no results (every result list is empty)"
    where = " in every category" if len(counts) > 1 else ""
    return f"returned no results ({counts[0][0]} 0{where})"
