"""Statements of the assistant that no longer hold: retracted by the assistant itself, or
contradicted by the user's later instruction the agent followed (blind check 58, W2 and W8).

* W2 (cc-sjb): §5 "Decisions, causes and results stated by the assistant" kept "The command
  `/plugin marketplace add …` isn't a recognized Claude Code CLI command." and "These are not
  valid Claude Code commands.", which the assistant retracted later after a web search: "I was
  wrong earlier about those commands not existing; they are part of ruflo's own plugin system".
* W8 (cc-riskbot): §5 kept "… that endpoint could also be reworked … though it still needs a DB
  write to persist the new signupstatus …", which the user answered: "The signupstatus is
  already updated from the website so no need to query the DB at all for that"; the agent then
  rewrote the code DB-free.

Marking a statement "No longer holds" needed a later file change that removed its identifier
(:mod:`.local_reverted`); a statement naming no removed identifier kept standing.

By shape:

* **a retraction**: a later assistant message with a sentence that retracts ("I was wrong …",
  "I was mistaken", "I stand corrected", "Correction: …", "my earlier claim was wrong",
  "actually, X does exist / is valid") marks an earlier assistant statement that shares a
  content word with that sentence and the next (two words when the statement has no negation):
  ``No longer holds (the assistant retracted it later: "…")``; the retraction is quoted;
* **the user's contrary instruction**: a later request whose clause says it is not needed or
  already done, or not to do it ("no need to …", "don't need to …", "not needed", "X is already
  updated by …", "don't write/store/query/… …") marks the statements of the assistant's turn
  just before it that share two content words with that clause, when the agent carried on after
  the request (a call): ``No longer holds (the user: "…")``.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line, sentences

from .local_reverted import NO_LONGER, labelled
from .local_session import Session

__all__ = ["judge_overruled", "judge_retracted"]

_RETRACTS_RE = lazy_pattern(
    r"\bI was (?:wrong|mistaken|incorrect)\b(?! to\b)|\bI stand corrected\b|^\W*correction\s*:|"
    r"\bmy (?:earlier|previous|prior|last|original) (?:claim|statement|answer|reply|message|"
    r"assessment|diagnosis|conclusion) was (?:wrong|incorrect|mistaken)\b|"
    r"\bI (?:misspoke|got (?:that|this|it) wrong)\b|"
    r"\bactually,? (?:[\w`'’./-]+ ){1,6}(?:does|do|did) (?:exist|work)\b|"
    r"\bactually,? (?:[\w`'’./-]+ ){1,6}(?:is|are) (?:real|valid|supported|available)\b",
    re.IGNORECASE | re.MULTILINE,
)
_NOT_NEEDED_RE = lazy_pattern(
    r"\bno need\b|\b(?:don['’]?t|do not|doesn['’]?t|does not) need\b|\bnot needed\b|"
    r"\bunnecessary\b|\b(?:don['’]?t|do not) (?:add|use|write|query|store|keep|call|create|"
    r"touch|change|run|install|persist|save)\b|\b(?:is|are|was|were) already (?:\w+ )?"
    r"(?:done|handled|updated|set|written|stored|saved|taken care of|covered)\b",
    re.IGNORECASE,
)
_NOT_NEEDED_WORDS = ("need", "necessar", "already", "don", "do not")  # one is in each match
_NEGATION_RE = lazy_pattern(
    r"\b(?:not|no|never|cannot|doesn['’]?t|isn['’]?t|aren['’]?t)\b|n['’]t\b"
)
_WORD_RE = lazy_pattern(r"[^\W\d_][\w-]{3,}")
_COMMON = frozenset(
    "that this with have what your from will would like about more then them there these those "
    "just also into want make sure okay great please thanks could should which when where does "
    "doing done here some other need know earlier wrong mistaken actually correction still "
    "already they their were been being only same itself well".split()
)
_QUOTED = 160  # characters of the retraction or the user's words quoted
_CLAUSE_RE = lazy_pattern(r"[^.;!?\n]*")


def _words(text: str) -> set[str]:
    """The content words of ``text``, lower case, a plural's ``s`` dropped."""
    out = set()
    for w in _WORD_RE.findall(text):
        low = w.lower()
        if low not in _COMMON:
            out.add(low[:-1] if len(low) > 4 and low.endswith("s") else low)
    return out


def _standing(text: str) -> bool:
    """An assistant's own statement, not labelled yet (not a decision of the user's)."""
    return not text.startswith((NO_LONGER, "Accepted by the user", "The user")) and (
        "by the user" not in text[:40]
    )


def judge_retracted(s: Session) -> None:
    """Label the statements a later retraction of the assistant's took back (module docstring)."""
    if not s.decisions:
        return
    first = min(i for i, _, _ in s.decisions)
    retractions: list[tuple[int, str, set[str]]] = []
    for e in s.entries[first + 1 :]:
        if e.role != "assistant" or e.internal or not e.text.strip():
            continue
        low = e.text[:20_000].lower()
        if (
            "wrong" not in low
            and "mistaken" not in low
            and "correct" not in low
            and ("actually" not in low and "misspoke" not in low)
        ):
            continue  # (a cheap pre-filter: a long session has thousands of messages)
        said = sentences(e.text[:20_000])
        for k, x in enumerate(said):
            if _RETRACTS_RE.search(x):
                window = " ".join(said[k : k + 2])
                retractions.append((e.index, one_line(x), _words(window)))
    if not retractions:
        return
    labels: dict[int, str] = {}
    for n, (i, _, text) in enumerate(s.decisions):
        if not _standing(text):
            continue
        need = 1 if _NEGATION_RE.search(text) else 2
        mine = _words(text)
        for at, sentence, words in retractions:
            if at > i and len(mine & words) >= need:
                labels[n] = (
                    f'{NO_LONGER}(the assistant retracted it later: "{cut(sentence, _QUOTED)}"): '
                )
                break
    if labels:
        s.decisions = labelled(s.decisions, labels)


def judge_overruled(s: Session) -> None:
    """Label the statements of the assistant's turn that the user's next request said were not
    needed or already done, when the agent carried on after it (module docstring)."""
    if not s.decisions or len(s.requests) < 2:
        return
    labels: dict[int, str] = {}
    said_at = sorted(i for i, _, _ in s.decisions)  # (read from the newest turns only)
    for k in range(1, len(s.requests)):
        request = s.requests[k]
        at = bisect_right(said_at, s.requests[k - 1].index)
        if at == len(said_at) or said_at[at] >= request.index:
            continue  # no statement of the turn before it to label: its words not read
        head = request.text[:2_000]
        low = head.lower()  # a cheap pre-filter (the pattern costs ~0.3 ms a request)
        if not any(w in low for w in _NOT_NEEDED_WORDS):
            continue
        m = _NOT_NEEDED_RE.search(head)
        if m is None:
            continue
        start = head.rfind(".", 0, m.start()) + 1  # the clause: its sentence
        clause = one_line(head[start : m.end()] + (_CLAUSE_RE.match(head, m.end()) or m).group())
        words = _words(clause)
        until = s.requests[k + 1].index if k + 1 < len(s.requests) else len(s.entries)
        carried_on = any(
            e.role == "assistant" and e.calls for e in s.entries[request.index + 1 : until]
        )
        if not carried_on or len(words) < 2:
            continue
        before = s.requests[k - 1].index
        for n, (i, _, text) in enumerate(s.decisions):
            if before < i < request.index and n not in labels and _standing(text):
                if len(_words(text) & words) >= 2:
                    labels[n] = f'{NO_LONGER}(the user: "{cut(clause.strip(), _QUOTED)}"): '
    if labels:
        s.decisions = labelled(s.decisions, labels)
