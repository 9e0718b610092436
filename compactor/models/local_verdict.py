"""Which of a turn's stated decisions a later request's complaint reaches (blind check 52, W5).

A request after a turn that changed files is read as rejecting that turn's decisions when it
says the change failed or asks to undo it (:func:`compactor.models.local_reverted.judge_reverted`).
Words that undo or turn down ("revert", "undo", "no", "instead", "don't use …") reach every
decision of the turn. A bare failure report does not: "if the segment becomes larger, the
gradient doesn't work anymore" raised a new problem with the gradient and was read as rejecting
the turn's unrelated "Per the same squash pattern I've used all session …, I amended it into
62c5d6c" ("Not accepted by the user"). A failure report reaches only the decisions that name
what it reports on: a content word (four letters or more, not a stop word) in common.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .local_restated import content_words

__all__ = ["failure_only", "reaches"]

_FAILED_RE = lazy_pattern(
    r"\b(?:did(?:n['’]?t| not) work|does(?:n['’]?t| not) work|(?:is|it['’]?s) not working|"
    r"still (?:not|doesn['’]?t|broken))\b",
    re.IGNORECASE,
)
"""A report that something fails: no verdict on the turn's decisions by itself."""
_TURNS_DOWN_RE = lazy_pattern(
    r"\b(?:revert|undo|roll (?:it |that |this )?back|put (?:it |that )?back|"
    r"change (?:it |that )?back|go back to|better not|rather not|let['’]?s not|instead|"
    r"(?:don['’]?t|do not|stop|never) \w+)\b|^\W*(?:no|nope|wrong)\b",
    re.IGNORECASE,
)
"""Words that undo or turn down what the turn did."""
_GENERIC = frozenset({"work", "working", "works", "anymore", "still", "again", "when", "then"})


def failure_only(head: str) -> bool:
    """Whether the request's first line ``head`` only reports a failure (no words that undo or
    turn down): its verdict then reaches only the decisions it names (:func:`reaches`)."""
    return _FAILED_RE.search(head) is not None and _TURNS_DOWN_RE.search(head) is None


def reaches(head: str, decision: str) -> bool:
    """Whether a failure report ``head`` names what ``decision`` is about."""
    return bool((content_words(head) - _GENERIC) & content_words(decision))
