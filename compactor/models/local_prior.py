"""The sections of an earlier summary the local summary quotes (``From the earlier summary:
…``), read by number (:func:`compactor.models.local_text.prior_sections`); moved here from
:mod:`compactor.models.local` to keep it under the module size limit."""

from __future__ import annotations

from compactor.facts import unlaunched_reports

from .local_blocked import mid_work
from .local_earlierfacts import answered_before
from .local_jobs import ANSWERED_WITH_JOBS, listed_jobs
from .local_lost import answered_line, prior_state
from .local_priorclosed import closed_items, item_count, prior_intro
from .local_priordone import done_since
from .local_priorreport import reported_done
from .local_priorworked import worked_line
from .local_session import Session
from .local_since import since_prior_items
from .local_state import ANSWERED
from .local_text import code, plural, prior_sections, quote
from .local_turns import hold_step, on_hold
from .local_views import whole_quote

__all__ = [
    "answered_since_prior",
    "calls_since_prior",
    "prior_current",
    "prior_excerpt",
    "prior_pending",
    "prior_step",
    "stale_goal",
    "stale_prior",
]

_KEPT_WHOLE = (7, 8)
"""Pending Tasks and Current Work: what a resuming agent needs, never cut to a few lines."""
_WHOLE_BUDGET = 4_000  # characters for those two sections together


def prior_excerpt(session: Session, number: int, limit: int) -> str:
    """Section ``number`` of the latest earlier summary, on one line, cut at a sentence (for
    section 1, a summary without numbered sections, such as Codex's, is quoted whole, capped)."""
    for text in reversed(session.prior):
        sections = prior_sections(text)
        if number in _KEPT_WHOLE:  # whole, within a budget for the two (blind check 12)
            other = len(sections.get(15 - number, ""))
            limit = max(limit, _WHOLE_BUDGET - min(other, _WHOLE_BUDGET // 2))
        if sections.get(number) or (number == 1 and not sections):
            return whole_quote(sections.get(number) or text, limit)
    return ""


def prior_pending(session: Session, limit: int) -> list[str]:
    """Section 7's lines from an earlier summary's Pending Tasks: always kept (a resuming agent
    needs them), said to be older than the work since; when the latest request since was
    answered, that is said first (else only the earlier summary's list would be there)."""
    reported = _reported(session, limit) if session.prior else []
    blocked = mid_work(session)  # the CLI's usage limit stopped the work (blind check 14)
    asked = session.requests or blocked or reported or calls_since_prior(session)
    prior = prior_excerpt(session, 7, limit) if session.prior and asked else ""
    if not prior:
        return reported
    done = done_since(session, prior)  # its pids killed, its tests re-run since (blind 27 N1)
    answered = session.turn_ended and (session.requests or answered_since_prior(session))
    closed = len(closed_items(session))  # restated by a later request and done (blind 33 W6)
    intro = prior_intro(session, prior_state(session), bool(answered), closed, item_count(session))
    report = reported_done(session, item_count(session))
    if report and intro.startswith(
        "Pending in the earlier summary"
    ):  # the agent's own word (BENCH52 W6)
        intro = (
            f'Reported done by the assistant after the earlier summary ("{report}"; check '
            "whether any is still pending), the earlier summary's pending tasks"
        )
    worked = worked_line(session)  # its items worked on, then other work asked (76 W3)
    said = [
        f"{intro}: {prior}",
        *([done] if done else []),
        *([worked] if worked else []),
        *reported,
    ]
    words = ANSWERED_WITH_JOBS if listed_jobs(session) else ANSWERED  # (blind check 19, W3)
    if not session.requests:  # the request is the earlier summary's (blind check 20, W6)
        words = words.replace(
            "the last request was answered", "the work after it ended with an answer", 1
        )
    return [answered_line(session, words), *said] if answered else said


def _reported(session: Session, limit: int) -> list[str]:
    """What the background tasks started before this part (the earlier summary's agents)
    reported in it: each one's end, and the sentence of its report saying it could not do
    its work (blind check 14: four such reports after Claude Code's own compaction were
    dropped, one "killed", one "completed" with only the usage-limit text)."""
    width = max(120, limit // 8)
    return [
        f"Since then, a background task started before this part ended: {code(key)} {status}"
        + (f": {quote(said, width)}" if said else "")
        for key, status, said in unlaunched_reports(session.entries)
    ]


def prior_current(session: Session, limit: int, *, first: bool) -> list[str]:
    """Section 8's line from an earlier summary's Current Work (kept whole, within budget):
    ``first`` as the section's first line, else as its last, after what the calls since the
    earlier summary did, when calls ran after it (blind check 18), with or without a request."""
    n = calls_since_prior(session)
    prior = prior_excerpt(session, 8, limit) if session.prior and first != (n > 0) else ""
    if not prior:
        return []
    if n:  # (blind check 18: its "was investigating … next file" is no current work)
        done = done_since(session, prior)
        where = (  # the turns since are listed above it (blind check 60 W3)
            "the work since it, listed above, is where the work stands now"
            if since_prior_items(session)
            else "the lines above say where they left the work"
        )
        return [
            f"The earlier summary's state (before the {plural(n, 'tool call')} after it; "
            f"{where}): {prior}",
            *([done] if done else []),
        ]
    if session.last_request is None:
        return [f"From the earlier summary: {prior}"]
    return [f"Current work in the earlier summary (before the later work described here): {prior}"]


def calls_since_prior(session: Session) -> int:
    """The tool calls made after the latest earlier summary (0 without one): when there are,
    what that summary says of current work, errors and next steps is the state at its
    boundary, not the current one (blind check 18: a "crash-loop … next file to investigate"
    quoted as current after the calls since had fixed the crash)."""
    if not session.prior:
        return 0
    latest = session.prior[-1]  # the entry's own text (the session model keeps it)
    start = next((e.index for e in reversed(session.entries) if e.text == latest), -1)
    return sum(1 for c in session.calls if c.index > start)


def stale_prior(session: Session) -> str:
    """How a quote of an earlier summary's state (errors, problem solving) is introduced."""
    n = calls_since_prior(session)
    if not n:
        return "From the earlier summary"
    return f"From the earlier summary (its state before the {plural(n, 'tool call')} after it)"


_LEFT_IT = "from where the calls after the earlier summary left it (section 8)"


def stale_goal(session: Session) -> str:
    """What section 9 adds after its in-flight step when no request came since the earlier
    summary: its work, from where the calls since left it ("" when none ran)."""
    return f", then continue the earlier summary's work {_LEFT_IT}" if _stale(session) else ""


def prior_step(session: Session, prior: str, stopped: str) -> str:
    """Section 9 from an earlier summary's next step (``prior``): as it is when no call ran
    after it; else the calls since come first, and the old step is said to be older."""
    n = calls_since_prior(session)
    if not n and answered_before(session):  # as the other answered sessions (58 N4)
        return (
            f"   None: {ANSWERED} (the session ended answered before the earlier compaction; "
            f"act on its next step only if the user asks). From the earlier summary: {prior}"
        )
    if not n:
        return f"   From the earlier summary: {prior}"
    if on_hold(session):  # the user stopped the work since: wait (blind check 40, W1)
        work = (
            f"the earlier summary's work (its next step and pending tasks were written before "
            f"the {plural(n, 'tool call')} after it: not the next step now)"
        )
        return hold_step(session, work, _WIDTH)
    if answered_since_prior(session):  # the work since ended answered (blind check 20, W6)
        return (
            f"   None: {_WORK_ANSWERED} (the last assistant message, section 8); wait for the "
            "user's next message. The earlier summary's pending tasks and next step (section 7) "
            f"were written before the {plural(n, 'tool call')} after it: not the next step now."
        )
    return (
        f"   Continue the earlier summary's work {_LEFT_IT}.{stopped} Its next step, written "
        f"before the {plural(n, 'tool call')} after it (check whether they did it): {prior}"
    )


_WIDTH = 300  # characters for the user's words in a hold
_WORK_ANSWERED = "the work after the earlier summary ended with an answer"


def answered_since_prior(session: Session) -> bool:
    """Whether, with no request since the earlier summary, the calls after it were followed by
    an assistant answer that ended the turn (nothing in flight): the session ended answered,
    and the earlier summary's next step is no longer the next step (blind check 20, W6)."""
    return (
        session.last_request is None
        and session.turn_ended
        and not session.ended_by_tool
        and not session.in_flight
        and calls_since_prior(session) > 0
    )


def _stale(session: Session) -> bool:
    return session.last_request is None and calls_since_prior(session) > 0
