"""Statements of the assistant that the user's next message or a later accepted change overtook
(issue 28 point 2, blind check 22), judged by shape:

* a turn that changed files, followed by a request saying it did not work or asking to undo it
  ("That did not work, can you revert back?", "no, …", "instead …"): the decisions and results
  the assistant stated for that change are labelled "reverted at the user's request" (when the
  agent then changed the files again) or "not accepted", and the agent's own words of the undo
  ("Reverted back to …") are kept as a result (:func:`judge_reverted`);
* a statement naming code that a later successful change of the same file (in a later turn)
  removed and did not add back ("… copy the hash into the sha256 field" once ``sha256 = "";``
  was replaced by a fetch that needs none) no longer holds: labelled so.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from pathlib import PurePosixPath

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line, sentences
from compactor.facts.ide import without_ide_note

from .local_files import Change, file_changes
from .local_offers import is_ask
from .local_sameclaim import same_claim
from .local_session import Session
from .local_verdict import failure_only, reaches

__all__ = [
    "NO_LONGER",
    "REVERTED",
    "change_calls",
    "judge_reverted",
    "labelled",
    "not_accepted",
]

REVERTED = "Reverted at the user's request "
NOT_ACCEPTED = "Not accepted by the user "
NO_LONGER = "No longer holds "
_LABELS = (REVERTED, NOT_ACCEPTED, NO_LONGER, "Decided by the user")
"""The labels, and the user's own decisions (never "not accepted by the user": BENCH46 W3)."""

_UNDO_RE = lazy_pattern(
    r"\b(?:did(?:n['’]?t| not) work|does(?:n['’]?t| not) work|(?:is|it['’]?s) not working|"
    r"still (?:not|doesn['’]?t|broken)|revert|undo|roll (?:it |that |this )?back|"
    r"put (?:it |that )?back|change (?:it |that )?back|go back to|better not|rather not|"
    r"let['’]?s not|(?:don['’]?t|do not) (?:want|store|keep|save|persist|put|add|use|log|send))\b",
    re.IGNORECASE,
)
"""A request saying the last change failed or asking to undo it, or rejecting its approach ("I
think it's better not to store any PII in local storage": BENCH46 W5)."""
_UNDO_WORDS = ("work", "revert", "undo", "back", "still", "not", "n't", "n’t")  # one is in each
_NO_RE = lazy_pattern(
    r"^\W*(?:no\b|nope\b|instead\b|wrong\b|that['’]?s (?:wrong|not (?:it|right|what))\b)",
    re.IGNORECASE,
)
_UNDONE_RE = lazy_pattern(
    r"\b(?:revert(?:ed|ing)?|undid|undone|undo|rolled back|restored|put (?:it |that )?back|"
    r"changed (?:it |that )?back)\b",
    re.IGNORECASE,
)
"""The agent's words of an undo ("Reverted back to ``\\n``.")."""
_HEAD = 300  # characters of a request looked at for its verdict
_TICKED_RE = lazy_pattern(r"`([^`\n]{3,60})`")
_CODE_WORD_RE = lazy_pattern(r"(?<![\w.])(?=[\w.-]*(?:\d|_))[A-Za-z_][\w.-]{3,40}")
"""A word that reads as code: with a digit or an underscore (``sha256``, ``api_key``)."""
_CAMEL_RE = lazy_pattern(r"(?<![\w.])[a-z]+[A-Z][A-Za-z0-9]*(?!\w)")
"""A camelCase identifier (``localStorage``, ``userEmail``): code even without backticks."""
_COMMENT_RE = lazy_pattern(r"(?:^|\s)(?:#|//|--)\s.*$")


def judge_reverted(s: Session) -> None:
    """Label the decisions a later request rejected, or a later accepted change replaced
    (module docstring); add the agent's words of an undo to the decisions."""
    if not s.decisions or len(s.requests) < 2:
        return
    labels: dict[int, str] = {}
    added: list[tuple[int, int, str]] = []
    starts = [r.index for r in s.requests]
    marks = {j for f in s.files.values() for j in f.changed_at}  # the changes' results
    for k in sorted({bisect_right(starts, j) for j in marks}):  # the request after a change
        if not 0 < k < len(starts):
            continue
        request = s.requests[k]
        raw = request.text[:_HEAD]
        low = raw.lower()  # a cheap pre-filter: a long chat has thousands of requests
        if not any(w in low for w in _UNDO_WORDS) and _NO_RE.match(raw.lstrip()) is None:
            continue
        head = without_ide_note(raw).strip().split("\n")[0]
        if _UNDO_RE.search(head) is None and (
            _NO_RE.match(head) is None or _ended_asking(s, request.index)
        ):
            continue  # (a "no" to the assistant's "Should I also …?" rejects no change)
        first = _first_change(s, s.requests[k - 1].index, request.index)
        if first is None:
            continue  # nothing was changed: an answer or a proposal (judge_proposals)
        first = _proposed_at(s, s.requests[k - 1].index, first)  # its lead-in too (BENCH46 W5)
        until = s.requests[k + 1].index if k + 1 < len(s.requests) else len(s.entries)
        undo = _undo_said(s, request.index, until)
        said = '("' + _cut(head, 120) + '")'
        label = f"{REVERTED if undo is not None else NOT_ACCEPTED}{said}: "
        only = failure_only(head)  # a bare failure report reaches what it names (BENCH52 W5)
        for n, (i, _, x) in enumerate(s.decisions):
            if first <= i < request.index and n not in labels and not x.startswith(_LABELS):
                if not only or reaches(head, x):
                    labels[n] = label
        if undo is not None and all(x != undo[2] for _, _, x in s.decisions):
            added.append(undo)
    labels.update(_replaced(s, set(labels)))
    labels.update(same_claim(s, labels, NO_LONGER))  # its justification too (BENCH46 W5)
    if not labels and not added:
        return
    s.decisions = sorted([*labelled(s.decisions, labels), *added], key=lambda d: d[0])


def labelled(
    decisions: list[tuple[int, int, str]], labels: dict[int, str]
) -> list[tuple[int, int, str]]:
    """``decisions`` with the label ``labels`` has for a decision's position put before it."""
    return [(i, score, labels.get(n, "") + x) for n, (i, score, x) in enumerate(decisions)]


def not_accepted(
    decisions: list[tuple[int, int, str]], index: int, request: str
) -> list[tuple[int, int, str]]:
    """``decisions`` with those of entry ``index`` not labelled yet labelled "Not accepted by
    the user ("<the request's first line>")" (a rejected approach's justification: BENCH46 W5)."""
    head = _cut(without_ide_note(request[:_HEAD]).strip().split("\n")[0], 120)
    label = f'{NOT_ACCEPTED}("{head}"): '
    return [
        (i, score, x if i != index or x.startswith(_LABELS) else label + x)
        for i, score, x in decisions
    ]


def _cut(text: str, limit: int) -> str:
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


_BACK = 60  # entries before a result where its call is looked for


def _change_calls(s: Session, start: int, end: int) -> Iterator[tuple[int, Call]]:
    """(entry index, call) of each successful call that changed a file, its result between
    entries ``start`` and ``end`` (from :attr:`FileState.changed_at`), in order."""
    results = sorted({j for f in s.files.values() for j in f.changed_at if start < j < end})
    for j in results:
        ids = {r.call_id for r in s.entries[j].results}
        for e in reversed(s.entries[max(0, j - _BACK) : j]):
            hit = [c for c in e.calls if c.id in ids]
            if hit:
                yield from ((e.index, c) for c in hit)
                break


change_calls = _change_calls  # (for :mod:`.local_checkedlater`)


def _ended_asking(s: Session, index: int) -> bool:
    """Whether the assistant's last text before entry ``index`` ended with a question or an
    offer to the user."""
    for e in reversed(s.entries[max(0, index - _BACK) : index]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            said = sentences(e.text)
            return bool(said) and is_ask(said[-1].rstrip())
    return False


def _first_change(s: Session, start: int, end: int) -> int | None:
    return next((i for i, _ in _change_calls(s, start, end)), None)


def _proposed_at(s: Session, start: int, first: int) -> int:
    """The assistant message that led to the change at entry ``first`` (the nearest one with
    text after entry ``start``, the request): its proposal is the change's (BENCH46 W5)."""
    for e in reversed(s.entries[max(start + 1, first - _BACK) : first + 1]):
        if e.role == "assistant" and not e.internal and e.text.strip():
            return e.index
    return first


def _undo_said(s: Session, start: int, end: int) -> tuple[int, int, str] | None:
    """The agent's sentence saying it undid the change, when it changed a file after ``start``."""
    if _first_change(s, start, end) is None:
        return None
    for e in s.entries[start + 1 : end]:
        if e.role == "assistant" and not e.internal and _UNDONE_RE.search(e.text):
            for sentence in sentences(e.text):
                if _UNDONE_RE.search(sentence) and not sentence.rstrip().endswith(("?", ":")):
                    return e.index, 3, _cut(sentence, 300)
    return None


def _code(lines: tuple[str, ...]) -> str:
    """The lines without their comments (a comment may name what the code no longer has)."""
    kept = (_COMMENT_RE.sub("", ln) for ln in lines)
    return "\n".join(ln for ln in kept if ln.strip())


def _tokens(text: str) -> set[str]:
    found = {m.group(1).strip() for m in _TICKED_RE.finditer(text)}
    found |= {m.group().rstrip(".-") for m in _CODE_WORD_RE.finditer(text)}
    found |= {m.group() for m in _CAMEL_RE.finditer(text)}  # localStorage (BENCH46 W5)
    return {t for t in found if len(t) >= 4}


def _still_there(s: Session, change: Change) -> str:
    """The code a change leaves in its file: its added side, the whole new text of its
    replacements and the file's latest known content. A token in it was not removed, even when
    a removed line held it too (BENCH46 W5: "removed "userEmail"" while only the
    ``localStorage`` lines went and ``userEmail`` stayed)."""
    texts = [new for _, new in ((change.replace,) if change.replace else ()) + change.more]
    latest = s.files.get(change.path)
    texts.extend(x for x in (change.content, latest.content if latest else None) if x)
    return "\n".join([_code(change.added), *(_code(tuple(x.splitlines())) for x in texts)])


def _turn_of(s: Session, starts: list[int], index: int) -> tuple[int, int]:
    """The entries (start, end) of the turn holding entry ``index``: from the request before
    it to the next request (``starts``: the requests' indices, in order)."""
    at = bisect_right(starts, index)
    return (starts[at - 1] if at else -1), (starts[at] if at < len(starts) else len(s.entries))


def _replaced(s: Session, done: set[int]) -> dict[int, str]:
    """The decisions naming code that a later turn's successful change of a file their own turn
    changed removed and did not add back."""
    labels: dict[int, str] = {}
    starts = [r.index for r in s.requests]
    every: list[tuple[int, Change]] | None = None  # (entry index, change), made once if needed
    at: list[int] = []
    left: dict[int, str] = {}  # id(change) → the code it leaves (:func:`_still_there`), once
    for n, (i, _, x) in enumerate(s.decisions):
        if n in done or x.startswith(_LABELS) or not (tokens := _tokens(x)):
            continue
        if every is None:
            every = [(j, c) for j, call in _change_calls(s, -1, len(s.entries))
                     for c in file_changes(call)]  # fmt: skip
            at = [j for j, _ in every]
        first, end = _turn_of(s, starts, i)
        own = every[bisect_right(at, first) : bisect_right(at, end - 1)]
        paths = {c.path for _, c in own}
        tokens = {t for t in tokens if not any(t in p for p in paths)}
        if not paths or not tokens:
            continue
        for _, change in every[bisect_right(at, end - 1) :]:
            if change.path not in paths or not change.removed:
                continue
            removed = _code(change.removed)
            hit = [t for t in tokens if t in removed]
            if not hit:
                continue  # most changes: what they removed is not named (no new text needed)
            kept = left.get(id(change))
            if kept is None:
                kept = left[id(change)] = _still_there(s, change)
            gone = sorted(t for t in hit if t not in kept)
            if gone:
                name = PurePosixPath(change.path).name or change.path
                labels[n] = f'{NO_LONGER}(a later change to {name} removed "{gone[0]}"): '
                break
    return labels
