"""``compact eval``'s contradiction check (issue 28): the compacted summary's claims about where
work stands, compared with the state model of the ORIGINAL.

Scoring what was kept cannot see a WRONG statement, so the claims a summary makes about the
session's end are read back from its text and checked against the same state model the embedded
summarizer builds (:func:`compactor.models.local_session.build_session`: the current request,
calls in flight, running background jobs, failures fixed or not, whether the session ended
answered). Each claim is judged by its wording, in the phrases the embedded summarizer writes and
the common ones a model writes ("pending: none", "still running (id …)"):

* **running job** — a job named as still running (with its id) that the original shows finished,
  or never shows running;
* **nothing pending** — "nothing is pending" / "pending: none" while the original has calls in
  flight, running jobs or an unanswered request;
* **in flight** — calls said to be in flight when the original has none;
* **current request** — a quoted current request that is an earlier request of the original
  and not its last one;
* **request state** — the current request said completed while the original stopped mid-work;
* **unresolved failure** — a failure said unresolved that the original shows fixed or skipped.

Plain data out (:class:`Contradiction`); :mod:`compactor.runs.evaluate` reports them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.facts import background_jobs, clean, entry_of
from compactor.schema import AgenticMessage, Message

__all__ = ["Contradiction", "contradictions"]


@dataclass(frozen=True, slots=True)
class Contradiction:
    """One claim of the summary the original contradicts."""

    kind: str
    claim: str
    """The summary's words (one line, cut)."""
    original: str
    """What the original shows instead."""


_CLAIM_CHARS = 200
_JOB_RE = lazy_pattern(
    r"(?:still running|running in the background|never seen finishing)[^\n]*?"
    r"\(id ([A-Za-z0-9][\w\-.:]{1,63})\)",
    re.IGNORECASE,
)
_NOTHING_PENDING_RE = lazy_pattern(
    r"nothing is pending|pending(?: tasks)?\s*:\s*none\b|^\s*-\s*none\b[^\n]*pending|"
    r"no (?:task, )?background job or tool call is open",
    re.IGNORECASE | re.MULTILINE,
)
_IN_FLIGHT_RE = lazy_pattern(r"Tool calls in flight when the session was saved \((\d+)")
_REQUEST_RE = lazy_pattern(
    r"(?:The latest request (?:is still in progress|is not answered yet|is in progress|"
    r"was completed)|Continue the latest request|Answer the latest request)"
    r"\s*:\s*\"(.+?)\"(?=[\s.,;)]|$)",
    re.MULTILINE,
)
_COMPLETED_RE = lazy_pattern(r"The latest request was completed\b")
_UNRESOLVED_RE = lazy_pattern(
    r"(?:Unresolved failure|Still to fix, as this check reported before any change \(run it "
    r"again when done\)): `(.+?)`(?:\s|$)",
    re.MULTILINE,
)
_SETTLED = {
    "fixed": "it was fixed: a later {by} succeeded",
    "skipped": 'it was set aside on purpose: "{by}"',
    "worked around": 'it was done without: "{by}"',
    "not found": "it was a read that found nothing, and the work went on without it",
}
"""What the original shows of a failure that is not unresolved, by its state."""
_CUT = " … "
_SPACE_RE = lazy_pattern(r"\s+")


def _norm(text: str) -> str:
    return _SPACE_RE.sub(" ", clean(text).replace("`", "")).strip().lower()


def _pieces(quoted: str) -> list[str]:
    """The parts of a quote cut with `` … `` (each must be found as written)."""
    return [p for p in (_norm(x) for x in quoted.split(_CUT)) if len(p) >= 8]


def _line(text: str, start: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    line = text[begin : end if end >= 0 else len(text)].strip()
    return line if len(line) <= _CLAIM_CHARS else line[: _CLAIM_CHARS - 1] + "…"


def contradictions(
    original: Sequence[Message | AgenticMessage], summary: str
) -> list[Contradiction]:
    """The claims of ``summary`` (the compacted summary's text) about where work stands that
    the state model of ``original`` (messages) contradicts; empty when none does."""
    from compactor.models.local_jobs import add_shape_jobs, listed_jobs
    from compactor.models.local_session import build_session
    from compactor.models.local_skipped import judge_skipped

    entries = [entry_of(i, m) for i, m in enumerate(original)]
    s = build_session(entries)
    judge_skipped(s)
    add_shape_jobs(s)  # the summarizer's own judgement of its jobs (blind check 19, W3)
    running = {b.key for b in listed_jobs(s) if b.key}
    finished = {b.key for b in s.background.values() if b.key} - running
    finished |= {j.id for j in background_jobs(entries) if not j.running} - running
    flying = s.in_flight
    last = s.last_request
    open_work = bool(flying) or bool(running) or (last is not None and not s.turn_ended)
    found: list[Contradiction] = []

    for m in _JOB_RE.finditer(summary):
        job = m.group(1)
        if job in running:
            continue
        shows = (
            f"job {job} finished" if job in finished
            else f"no running job {job} (never seen started as a background job)"
        )  # fmt: skip
        found.append(Contradiction("running job", _line(summary, m.start()), shows))

    none = _NOTHING_PENDING_RE.search(summary)
    if none is not None and open_work:
        why = []
        if flying:
            why.append(f"{len(flying)} call(s) in flight")
        if running:
            why.append(f"running job(s) {', '.join(sorted(running))}")
        if last is not None and not s.turn_ended:
            why.append("the last request was not answered (work stopped mid-way)")
        found.append(Contradiction("nothing pending", _line(summary, none.start()), "; ".join(why)))

    m_fly = _IN_FLIGHT_RE.search(summary)
    if m_fly is not None and not flying:
        found.append(
            Contradiction("in flight", _line(summary, m_fly.start()), "no call is in flight")
        )

    if last is not None:
        current = _norm(last.text)
        earlier = [_norm(e.text) for e in s.requests[:-1]]
        for m in _REQUEST_RE.finditer(summary):
            pieces = _pieces(m.group(1))
            if not pieces or all(p in current for p in pieces):
                continue
            if any(all(p in e for p in pieces) for e in earlier):
                found.append(
                    Contradiction(
                        "current request",
                        _line(summary, m.start()),
                        f"the last request is {_quote(last.text)}",
                    )
                )
        m_done = _COMPLETED_RE.search(summary)
        if m_done is not None and (flying or not s.turn_ended):
            found.append(
                Contradiction(
                    "request state",
                    _line(summary, m_done.start()),
                    "the last request was not answered: work stopped mid-way"
                    + (f" with {len(flying)} call(s) in flight" if flying else ""),
                )
            )

    for m in _UNRESOLVED_RE.finditer(summary):
        said = _norm(m.group(1).split("…")[0])
        err = next((e for e in reversed(s.errors) if _norm(e.call).startswith(said)), None)
        shows = _SETTLED.get(err.after, "") if err is not None else ""
        if err is not None and shows:
            shows = shows.format(by=err.by)
            found.append(Contradiction("unresolved failure", _line(summary, m.start()), shows))
    return found


def _quote(text: str) -> str:
    one = _SPACE_RE.sub(" ", text).strip()
    return f'"{one[:120]}…"' if len(one) > 120 else f'"{one}"'
