"""Diagnoses the assistant fixed later: they are no decisions (split from local_state)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .local_session import Session

__all__ = ["judge_fixed"]

_WORD_RE = lazy_pattern(r"[a-z]{4,}")
_PROBLEM_RE = lazy_pattern(
    r"instead of (?:a |the )?proper|\bis not (?:a function|working|defined)|do(?:es)?n['’]t work|"
    r"not working|\bissue\b|\bproblem\b|\bbroken\b|\bmissing\b",
    re.IGNORECASE,
)
_FIX_RE = lazy_pattern(r"\b(?:fix|updat|switch|replac|resolv|chang)\w*|\bnow uses?\b", re.I)
_COMMON = frozenset("that this with from have been were will they them then than when what".split())


def judge_fixed(s: Session) -> None:
    """A diagnosis the assistant stated (a problem, no fix: "uses a button instead of a proper
    toggle") that a later sentence of the assistant fixes or changes (a fix word and two of
    its words: "use the checkbox instead of the button") is fixed since: not a decision."""
    fixes = [(i, set(_WORD_RE.findall(x.lower())) - _COMMON) for i, _, x in s.decisions
             if _FIX_RE.search(x)]  # fmt: skip
    stale = set()
    for n, (i, _, x) in enumerate(s.decisions):
        if _PROBLEM_RE.search(x) and not re.search(r"\b(?:fix|resolv)\w*", x, re.I):
            words = set(_WORD_RE.findall(x.lower())) - _COMMON
            if any(j > i and len(words & later) >= 2 for j, later in fixes):
                stale.add(n)
    s.decisions = [d for n, d in enumerate(s.decisions) if n not in stale]
