"""Whether a later failure overtakes an earlier answer (blind check 25, cx-funke W1).

An earlier answer ("Added a Close Reg action …") was labelled "a later result overtook it: `sed
… [eventId]/lottery.vue` failed", although that read belonged to the next request's work, failed
only on the shell's glob of the brackets, and was retried at once with ``cat``. By shape,
:func:`overtakes` says a failure after the answer overtakes it only when (1) it was not a read
that a later successful call made again on the same file (a failed read retried is no result),
and (2) it belongs to the answered request's work (before the next request), or, in a later
request's work, it names something that work or the answer named (the background job the answer
said was running, a file it changed): a failure on another subject overtakes nothing.
"""

from __future__ import annotations

from compactor.facts import Entry

from .local_records import ErrorFact
from .local_session import Session

__all__ = ["overtakes"]

_RESULT_HEAD = 4_000
"""How much of each result of the answered request's calls is searched for a target."""


def _targets(err: ErrorFact) -> set[str]:
    """The files and ids a failed call names (not its whole command line or its folder)."""
    return {t for t in err.signature[2] if t and not t.startswith(("$ ", "@ ", "pid "))}


def _read_again(s: Session, err: ErrorFact, targets: set[str]) -> bool:
    """A failed read whose file a later call that did not fail read or named."""
    if not (err.reading or err.probe) or not targets:
        return False
    answered: set[str] | None = None
    for call in s.calls:
        if call.index <= err.index or call.id in s.failed_calls:
            continue
        if not any(t in call.arguments for t in targets) and not any(
            t.replace("/", "\\/") in call.arguments for t in targets
        ):
            continue
        if answered is None:
            answered = {r.call_id for e in s.entries[err.index :] for r in e.results if r.call_id}
        if call.id in answered:
            return True
    return False


def _named_by_answered_work(s: Session, answer: Entry, start: int, targets: set[str]) -> bool:
    """Whether the answer, or a call of the answered request (from ``start``) or its result,
    names one of ``targets``."""
    if any(t in answer.text for t in targets):
        return True
    for e in s.entries[start : answer.index + 1]:
        for r in e.results:
            if any(t in r.text[:_RESULT_HEAD] for t in targets):
                return True
    return any(
        any(t in call.arguments for t in targets)
        for call in s.calls
        if start <= call.index <= answer.index
    )


def overtakes(s: Session, answer: Entry, next_request: int | None, err: ErrorFact) -> bool:
    """Whether the failure ``err`` (after ``answer``) overtakes that earlier answer;
    ``next_request``: the index of the request after the answer (None: none)."""
    targets = _targets(err)
    if _read_again(s, err, targets):
        return False
    if next_request is None or err.index < next_request:
        return True
    start = max((r.index for r in s.requests if r.index < answer.index), default=0)
    return bool(targets) and _named_by_answered_work(s, answer, start, targets)
