"""A "no" that restates part of the proposal (BENCH46 W3): the user's own instruction.

cx-global: the assistant wrote "I'll do exactly that: remove duplicate skill folders, move
~/.codex/skills to ~/.agents/skills (with compatibility preserved), then run a full hook
lifecycle smoke …"; the user answered "no match the documentation formatting standard and move
skills to ~/.agents/skills and remove the duplicate ~/.codex/skills". The summary listed the
whole proposal under "Proposals the user turned down … do not act on them", although the move
was the user's own request: the "no" objected only to the part the reply did not restate.

By shape: a reply that starts by rejecting and then, in a clause with no negation of its own,
restates a proposal (two or more of its content words or paths) amends that proposal. The
user's words are the decision (as for amended proposals, RELIABILITY row 1972); the proposal
is listed neither whole as turned down nor as accepted (:func:`restated_proposals`).

A reply that turns down the approach itself ("I think its better not to store any PII in local
storage", BENCH46 W5: :func:`rejects_approach`) rejects the proposals of the message it answers,
and that message's other decisions (its justification: "this is safe — unlike …") are labelled
not accepted (:func:`.local_dialogue.judge_proposals`).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line

__all__ = ["AMENDED", "amended_by", "content_words", "rejects_approach", "restated_proposals"]

AMENDED = "Decided by the user, amending the proposal: "
"""How the decision in the user's words is labelled (the same as :mod:`.local_supersede`'s)."""
_LEAD_RE = lazy_pattern(r"^\W*(?:no|nope|nah)\b\W*", re.IGNORECASE)
_CLAUSE_RE = lazy_pattern(r"[,;:.!?]\s+|\s+(?:and|then|but|also|plus)\s+|\n", re.IGNORECASE)
_NEGATION_RE = lazy_pattern(
    r"\b(?:not|no|never|without|stop|avoid|instead|rather|cancel|skip|drop)\b|n['’]t\b",
    re.IGNORECASE,
)
_WORD_RE = lazy_pattern(r"[~\w][\w~./\-]*[\w]")
_STOP = frozenset(
    "that this with then will also just exactly first have from into want should would there "
    "them they your what please make sure need like each every some other more most only very "
    "here were been being does done doing sounds good okay".split()
)  # fmt: skip
_SHARED = 2  # content words a clause shares with the proposal to restate it
_APPROACH_RE = lazy_pattern(
    r"\b(?:better not|rather not|let['’]?s not|(?:i|we) (?:don['’]?t|do not) want (?:to|any|the)|"
    r"(?:shouldn['’]?t|should not) (?:store|keep|save|persist|put|use|add|log|send))\b",
    re.IGNORECASE,
)
"""A reply turning down the approach itself ("I think its better not to store any PII in local
storage": BENCH46 W5), wherever in its first line."""
_HEAD = 300
_WORDS_CHARS = 300


def content_words(text: str) -> set[str]:
    """The content words of ``text``: four characters or more (paths whole), lowercased."""
    found = {m.group().lower().rstrip("./-") for m in _WORD_RE.finditer(text)}
    return {w for w in found if len(w) >= 4 and w not in _STOP}


def _restating_clauses(reply: str) -> list[set[str]]:
    """The content words of each clause of ``reply`` after its leading "no" that states what to
    do (no negation of its own); [] when the reply does not start with "no"."""
    lead = _LEAD_RE.match(reply)
    if lead is None:
        return []
    rest = reply[lead.end() : lead.end() + 2_000]
    return [
        content_words(x)
        for x in _CLAUSE_RE.split(rest)
        if x.strip() and _NEGATION_RE.search(x) is None
    ]


def restated_proposals(reply: str, proposals: list[str]) -> list[str]:
    """The proposals a reply starting with "no" restates in part, as instructions of its own
    ("no … and move skills to ~/.agents/skills" after "I'll … move ~/.codex/skills to
    ~/.agents/skills (with compatibility preserved)"): [] when it restates none."""
    clauses = _restating_clauses(reply)
    if not clauses:
        return []
    found: list[str] = []
    for x in proposals:
        words = content_words(x)
        if any(len(words & c) >= _SHARED for c in clauses):
            found.append(x)
    return found


def rejects_approach(reply: str) -> bool:
    """Whether the first line of ``reply`` turns down the approach (:data:`_APPROACH_RE`)."""
    head = reply[:_HEAD].split("\n", 1)[0]
    return "not" in head.lower() and _APPROACH_RE.search(head) is not None


def amended_by(reply: str) -> str:
    """The decision line in the user's own words (at most :data:`_WORDS_CHARS` characters)."""
    said = one_line(reply)
    more = "…" if len(said) > _WORDS_CHARS else ""
    return f'{AMENDED}"{said[:_WORDS_CHARS].rstrip()}{more}"'
