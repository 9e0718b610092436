"""A probe of a missing path that the assistant settled at once is no unresolved failure (blind
check 47 W6).

cx-constitution §7: "Unresolved failure: exec_command: rg --files .specify/templates/commands |
sed -n '1,200p' && … for f in .specify/templates/commands/*.md; do … done": the folder did not
exist ("No such file or directory"), and the assistant's next words settled it ("there is no
`.specify/templates/commands/` directory in this repo, so I'll mark that check as not
applicable"). Such words hold no skip word (:mod:`.local_setaside`), and a compound probe (a
``for`` loop after ``&&``) is not taken as a plain read, so the failure stayed open and invited
a resuming agent to "fix" it (create the folder).

By shape (:func:`settled_absence`): the failure says a path is missing, and a sentence of the
assistant's next words names that path (the whole path or its last part) and says it is not
needed or expected ("not applicable", "skip", "expected", "not needed"); the sentence is kept as
the words that set the failure aside.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import sentences

if TYPE_CHECKING:
    from .local_records import ErrorFact

__all__ = ["settled_absence"]

_MISSING_RE = lazy_pattern(
    r"no such file|does not exist|doesn['’]t exist|cannot access|cannot find|can['’]t find|"
    r"not found",
    re.IGNORECASE,
)
"""An error that says a path is not there."""
_SETTLES_RE = lazy_pattern(
    r"\bnot applicable\b|\bn/a\b|\bskip\w*|\bexpected\b|\bnot needed\b|\bno need\b|"
    r"\bnot required\b|\bnot relevant\b|\bdo(?:es)?(?:n['’]t| not) apply\b",
    re.IGNORECASE,
)
"""Words that say the missing path is no problem."""
_UNEXPECTED_RE = lazy_pattern(r"\b(?:un|not )expected\b|\bshould (?:be|exist)\b", re.IGNORECASE)
"""Words that say the opposite ("unexpected", "it should exist")."""
_PATH_RE = lazy_pattern(r"[\w.\-]*[\w\-]/[\w.\-/*]*|\.[\w\-]+(?:/[\w.\-*]+)*")
"""A path of the failed call or its error (``.specify/templates/commands``, ``docs/*.md``)."""
_PART_RE = lazy_pattern(r"[\w\-]{4,}")


def _names(err: ErrorFact) -> tuple[set[str], set[str]]:
    """(the missing paths, the last parts of them) the failure's error lines name, or, when they
    name none, its call."""
    text = " ".join(err.outcome.lines[:3])
    paths = {p.strip("/*.").rstrip("/") for p in _PATH_RE.findall(text)} - {""}
    if not paths:
        paths = {p.strip("/*.").rstrip("/") for p in _PATH_RE.findall(err.call)} - {""}
    parts: set[str] = set()
    for path in paths:
        segments = [seg for seg in path.split("/") if "*" not in seg]
        tail = _PART_RE.findall(segments[-1]) if segments else []
        parts.update(t.lower() for t in tail)
    return paths, parts


def settled_absence(err: ErrorFact) -> str:
    """The sentence of the assistant's next words that settles ``err``, a failure that found a
    path missing ("… so I'll mark that check as not applicable"); "" when none does."""
    if not err.next_text or not any(_MISSING_RE.search(x) for x in err.outcome.lines[:3]):
        return ""
    paths, parts = _names(err)
    if not paths:
        return ""
    for sentence in sentences(err.next_text):
        if _SETTLES_RE.search(sentence) is None or _UNEXPECTED_RE.search(sentence):
            continue
        low = sentence.lower()
        words = {w.lower() for w in _PART_RE.findall(sentence)}
        if any(p.lower() in low for p in paths) or parts & words:
            return sentence
    return ""
