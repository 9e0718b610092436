"""A guessed cause the agent later replaced by the real one (blind check 25, cc-jbiggs-dl W5).

The assistant said "Background tasks aren't inheriting the working directory.", the next run
failed the same way, and later it found the real cause: "… a leading space in the names —
that's what was tripping up every previous attempt". Section 5 still listed the guess as a cause.
:func:`judge_replaced_guesses`: when an assistant sentence names the real cause of the earlier
failures ("that's what was tripping up every previous attempt", "the real cause was …",
"turns out …") after a negative statement among the decisions (a diagnosis: "X isn't/doesn't/
can't …") and before the user's next request, that statement is labelled "First guess, later
replaced".
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import sentences

from .local_session import Session

__all__ = ["judge_replaced_guesses", "judge_revised_causes"]

_REAL_CAUSE_RE = re.compile(
    r"\b(?:that['’]?s|that is|this is|which is|which was|that was|this was) (?:what|why)\b"
    r"[^.]{0,40}"
    r"\b(?:tripp|caus|break|broke|fail|went wrong|behind)\w*[^.]{0,40}"
    r"\b(?:every|all|each|the) (?:previous|earlier|prior|other|of the)\b|"
    r"\b(?:the )?(?:real|actual|true|root) (?:cause|problem|issue|culprit) (?:is|was)\b|"
    r"\bturn(?:s|ed) out\b",
    re.IGNORECASE,
)
"""A sentence that names the real cause of the earlier failures."""
_DIAGNOSIS_RE = re.compile(
    r"\b(?:is|are|was|were|do|does|did|ca|wo|has|have)n['’]?t\b|\b(?:not|cannot|never)\b",
    re.IGNORECASE,
)
"""A negative statement: the shape of a diagnosis ("aren't inheriting", "can't access")."""
_LABEL = "First guess, later replaced: "


def judge_replaced_guesses(s: Session) -> None:
    """Label the decisions a later statement of the real cause replaced (see the module): only
    the assistant texts after a diagnosis and before the user's next request are read."""
    guesses = [
        n
        for n, (_, _, text) in enumerate(s.decisions)
        if not text.startswith(("Superseded", _LABEL)) and _DIAGNOSIS_RE.search(text)
    ]
    if not guesses:
        return
    asked = [r.index for r in s.requests]
    for n in guesses:
        i, score, text = s.decisions[n]
        if _REAL_CAUSE_RE.search(text) is not None:
            continue
        end = next((a for a in asked if a > i), len(s.entries))
        said = _real_cause(s, i + 1, end)
        if said:
            short = said if len(said) <= 120 else said[:119].rstrip() + "…"
            s.decisions[n] = (i, score, f"{_LABEL}{text} (later: '{short}')")


def _real_cause(s: Session, start: int, end: int) -> str:
    """The first assistant sentence in entries ``start`` to ``end`` naming the real cause."""
    for e in s.entries[start:end]:
        if e.role == "assistant" and not e.internal and _REAL_CAUSE_RE.search(e.text):
            return next((x for x in sentences(e.text) if _REAL_CAUSE_RE.search(x)), "")
    return ""


_CAUSE_RE = re.compile(
    r"\b(?:(?:root |the |real )?cause[sd]?\b|due to|because|comes? from|the (?:problem|issue|"
    r"culprit|bug) (?:is|was))",
    re.IGNORECASE,
)
"""A statement of a cause (a diagnosis: "The 2 cent difference is due to floating-point …")."""
_NOT_FIXED_RE = lazy_pattern(
    r"\b(?:did(?:n['’]?t| not)|does(?:n['’]?t| not)|has(?:n['’]?t| not)) (?:\w+ )?(?:work|fix|"
    r"correct|help|change|solve|resolve)\w*|\bstill (?:the same|wrong|off|broken|fail\w*|not)\b|"
    r"\bno (?:change|difference)\b|\bsame (?:error|result|problem|issue)\b",
    re.IGNORECASE,
)
"""The user's report that the fix the diagnosis led to did not work ("… didn't correct it")."""
_REVISES_RE = lazy_pattern(
    r"\b(?:wo|wi|does|do|did|would)n['’]?t (?:fix|solve|help|change|correct)\b|"
    r"\b(?:will|would|does|did) not (?:fix|solve|help|change|correct)\b|"
    r"\b(?:is|was)(?:n['’]?t| not) (?:the |a )?(?:real |actual )?(?:cause|problem|issue)\b|"
    r"\b(?:the )?(?:real|actual|true) (?:cause|problem|issue|culprit)\b|\bactually\b|"
    r"\bturn(?:s|ed) out\b",
    re.IGNORECASE,
)
"""The assistant's words revising its diagnosis ("ROUND won't fix this", "the real cause")."""
_REVISED = "Superseded: "


def judge_revised_causes(s: Session) -> None:
    """A stated cause (blind check 31 W10: "Root cause confirmed: floating-point …") after which
    the user reported that the fix did not work ("I changed it to round … but that didn't
    correct it") and the assistant, before the user's next request, revised it ("ROUND won't fix
    this … It's hardcoded") is labelled superseded, with the revising words."""
    for n, (i, score, text) in enumerate(s.decisions):
        if text.startswith((_REVISED, _LABEL)) or _CAUSE_RE.search(text) is None:
            continue
        after = [r for r in s.requests if r.index > i]
        if not after or _NOT_FIXED_RE.search(after[0].text) is None:
            continue
        end = after[1].index if len(after) > 1 else len(s.entries)
        for e in s.entries[after[0].index + 1 : end]:
            if e.role != "assistant" or e.internal or _REVISES_RE.search(e.text) is None:
                continue
            said = next((x for x in sentences(e.text) if _REVISES_RE.search(x)), "")
            short = said if len(said) <= 120 else said[:119].rstrip() + "…"
            label = f"{_REVISED}{text} (later, after the user said the fix did not work: '{short}')"
            s.decisions[n] = (i, score, label)
            break
