"""Background jobs a later command killed (issue 28): a job whose pid or program a later kill
named has ended; one a kill named only by its port may still be running, and is said so rather
than "still running, do not start it again" (:func:`compactor.facts.kills.later_kill`)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import background_jobs, command_of, cut
from compactor.facts.bounded import bounded_reason
from compactor.facts.jobs import Job
from compactor.facts.jobstate import EARLIER_RUN, earlier_run, last_process
from compactor.facts.kills import MAYBE, later_kill, later_report, later_use
from compactor.facts.maskedexit import hidden_failure
from compactor.facts.pidchecks import NOT_RUNNING
from compactor.facts.teams import teammate_end, teammates

from .local_abandoned import ABANDONED, abandoned
from .local_earlier import BEFORE, earlier_seed
from .local_pkillmaybe import aimed_kill
from .local_seenjobs import add_seen_servers
from .local_session import Background, Session

__all__ = [
    "ANSWERED_WITH_JOBS",
    "POLLED",
    "add_shape_jobs",
    "idle_step",
    "judge_killed",
    "listed_jobs",
    "running_head",
    "settle_job_retries",
    "shown_jobs",
    "still_running",
]


ANSWERED_WITH_JOBS = (
    "the last request was answered; besides the background jobs above, nothing started since is "
    "open; wait for the user's next message"
)
"""What a session whose last request was answered while jobs it started may still run says
instead of "nothing is pending" (blind check 19, W3: that contradicted its own job list)."""


def add_shape_jobs(s: Session) -> None:
    """Add the jobs judged by shape that the session model did not see start, as running
    :class:`Background` entries (their id, the command that started them), and give every
    running job what its start result said (its id, where its output goes)."""
    known, jobs = set(s.background), background_jobs(s.entries, earlier_seed(s))
    mates = teammates(s.entries) if any(not bg.finished for bg in s.background.values()) else []
    for bg in s.background.values() if mates else ():  # (blind check 47, W1)
        bg.finished = bg.finished or teammate_end(mates, bg.key, bg.index)
    settle_job_retries(s, {job.id: job.finished for job in jobs})
    for job in jobs:
        if job.id not in known and (same := _started_by(s, job, known)):
            bg = s.background[same]  # one job, not two (its call's id and its own: debt51)
            bg.said = bg.said or job.said  # (what names it: "agent_id: NAME@TEAM name: NAME")
            continue
        maybe = job.index == BEFORE and job.finished.startswith(MAYBE)  # (a kill of its port)
        maybe = maybe or job.finished.startswith(NOT_RUNNING)  # shown as exited (59 W1)
        if not job.running and not maybe:
            continue
        if job.id not in known:
            s.background[job.id] = Background(job.id, job.label, job.index, job.finished)
        bg = s.background[job.id]
        if not bg.said:
            bg.said = job.said
    add_seen_servers(s, {job.label for job in jobs})  # (blind check 32, N2)
    judge_killed(s)


def _started_by(s: Session, job: Job, known: set[str]) -> str:
    """The key of the job the session model already tracks under its call's id (a
    ``run_in_background`` call: a teammate, a background agent) whose result is the one that
    named ``job`` by another id (the agent's name); '' when none or more than one is."""
    entry = s.entries[job.index] if 0 <= job.index < len(s.entries) else None
    if entry is None or entry.index != job.index:
        return ""
    owners = [r.call_id for r in entry.results if r.call_id in known and job.id in r.text[:2_000]]
    return owners[0] if len(owners) == 1 else ""


_TAG_RE = lazy_pattern(r"</?[A-Za-z][\w\-]*>")
_JOB_OK_RE = lazy_pattern(
    r"\b(?:completed?|succeeded|success(?:ful(?:ly)?)?|finished|done)\b|"
    r"exit(?:ed)?(?:[ _]?code)?\W{0,3}(?:with )?(?:code )?0\b",
    re.IGNORECASE,
)
_JOB_BAD_RE = lazy_pattern(
    r"\b(?:fail\w*|error\w*|killed|cancell?ed|aborted|timed? ?out|crashed)\b|"
    r"exit(?:ed)?(?:[ _]?code)?\W{0,3}(?:with )?(?:code )?-?[1-9]\d*",
    re.IGNORECASE,
)


def settle_job_retries(s: Session, ended: dict[str, str]) -> None:
    """A failure whose retry only started a background job (issue 28) takes the job's final
    status: fixed when the job was seen ending well (``<status>completed</status>``, exit code
    0), not fixed when it ended failing (``<status>failed</status> <exit_code>1``), pending
    while it was not seen finishing. ``ended``: each job id seen by shape → how it ended."""
    for err in (e for e in s.errors if e.job and e.after == "retry pending"):
        bg = s.background.get(err.job)
        how = (bg.finished if bg is not None else "") or ended.get(err.job, "")
        how = " ".join(_TAG_RE.sub(" ", how).split())  # <status>failed</status> → failed
        if not how:
            err.why = f"it started background job {err.job}, not seen finishing"
        elif _JOB_BAD_RE.search(how) is not None:
            err.after, err.why = "failed again", f"background job {err.job} ended: {cut(how, 120)}"
        elif _JOB_OK_RE.search(how) is None:  # "exited", no code: not known to have failed
            err.why = f"background job {err.job} ended (exit status not shown)"
        elif failed := _polled_failure(s, err.by, err.job, err.index):
            err.after, err.why = "failed again", f"background job {err.job} printed: {failed}"
        else:
            err.after, err.why = "fixed", f"background job {err.job} ended: {cut(how, 120)}"


_CALL_NAME_RE = lazy_pattern(r"^[\w.\-]+: ")


def _polled_failure(s: Session, command: str, job: str, start: int) -> str:
    """The failure summary a poll of ``job`` showed when its command hides its exit status
    (a test run piped into ``| tail -80``: exit 0 is ``tail``'s, blind check 36 W1); ""."""
    command = _CALL_NAME_RE.sub("", command, 1)  # err.by is a call line: ``Bash: npm test``
    polls: set[str] = set()
    failed = ""
    for e in s.entries[start + 1 :]:
        polls.update(c.id for c in e.calls if job in c.arguments)
        for r in e.results:
            if r.call_id in polls and r.text:
                failed = hidden_failure(command, r.text)  # the last poll decides
    return cut(failed, 120)


def judge_killed(s: Session) -> None:
    """End each running job a later command killed or whose product (the packages it
    installed) a later command used; mark one a kill may have ended."""
    for bg in s.running:
        command = _full_command(s, bg)
        how = later_kill(s.entries, bg.key, command, bg.index)[1]
        if not how or how.startswith(MAYBE):
            how = later_use(s.entries, bg.key, command, bg.index) or how
        if not how or how.startswith(MAYBE):
            how = later_report(s.entries, command, bg.said, bg.index) or how
        if not how or how.startswith(MAYBE):
            how = _bounded_end(s, bg, command) or how
        if not how or how.startswith(MAYBE):  # stopped, or run again (blind check 43 W1)
            how = abandoned(s, bg, command) or how
        if not how and s.local_commands:
            how = _exited_after(s, bg)
        if (not how or how.startswith(MAYBE)) and bg.key and bg.key != bg.command:
            how = earlier_run(_process(s, bg.index), last_process(s.entries)) or how
        if not how and (aimed := aimed_kill(s, bg, command, _others(s, bg))):
            how = f"{MAYBE} ({aimed})"  # `pkill -f "tsx watch"` after `npm run dev` (77 N2)
        if how:
            bg.finished = how


def _others(s: Session, bg: Background) -> list[str]:
    """The commands of the session's other jobs."""
    return [_full_command(s, b) for b in s.background.values() if b is not bg]


def _process(s: Session, index: int) -> str:
    """The CLI process that wrote entry ``index`` (``""`` when unknown)."""
    return s.entries[index].process if 0 <= index < len(s.entries) else ""


_SESSION_ENDS = frozenset({"/exit", "/quit"})


def _exited_after(s: Session, bg: Background) -> str:
    """A job started before the user ended the session (``/exit``, ``/quit``) and not polled
    after it: the CLI stops its background shells when it exits, so the job is no longer known
    to run (no "do not start it again"); a job started with ``nohup``/``setsid`` may outlive it.
    ``""`` when no such end followed it."""
    end = next(
        (
            (i, said.split()[0])
            for i, said in s.local_commands
            if i > bg.index and said.split()[0] in _SESSION_ENDS
        ),
        None,
    )
    if end is None or not bg.key:
        return ""
    if any(bg.key in c.arguments for e in s.entries[end[0] + 1 :] for c in e.calls):
        return ""  # polled after the exit: what the poll said holds
    return (
        f"{MAYBE} (the user ended the session with {end[1]} after it started, which stops the "
        "CLI's background shells)"
    )


def _bounded_end(s: Session, bg: Background, command: str) -> str:
    """How a job that has a known end (``timeout 4s …``, ``rg …``, ``rosnode list``) ended when
    the session went on after it (a later call) and never polled it again (blind check 16):
    its id is no proof of a running process; ``""`` for any other job."""
    later = False
    for e in reversed(s.entries):  # from the end: stops at the job's start
        if e.index <= bg.index or (later := bool(e.calls) and not e.internal):
            break
    if not later:
        return ""
    reason = bounded_reason(command)
    if not reason:
        return ""
    if (polled := _last_poll(s, bg)) is not None:  # polled, and still running then (check 20)
        if not polled or not s.turn_ended:
            return ""  # the poll showed no end: an open job while the work goes on
        return f"{POLLED} (a bounded search: {reason}; its output was not read)"
    return (
        f"ended: not polled after it started (id {bg.key}), but a bounded command ({reason}): "
        "it has ended by now"
    )


POLLED = "was still running at its last poll"
"""How a bounded job is described whose last poll still said it runs, in a session that ended
answered (blind check 20, W7: ``find .. -name AGENTS.md``, session 67141)."""
_ENDED_RE = lazy_pattern(
    r"Process exited with code|exit(?:ed)? (?:with )?code\b|<status>\s*(?!running)"
)


def _last_poll(s: Session, bg: Background) -> bool | None:
    """Whether the last poll of ``bg`` (``write_stdin(session_id=…)``) still said it runs
    (``None`` when it was never polled; ``False`` when the last poll showed its end)."""
    polls = {
        c.id
        for e in s.entries[bg.index + 1 :]
        for c in e.calls
        if bg.key and str(c.args.get("session_id", "")) == bg.key
    }
    said = [r.text for e in s.entries[bg.index + 1 :] for r in e.results if r.call_id in polls]
    if not said:
        return None
    return _ENDED_RE.search(said[-1][:600]) is None


def _full_command(s: Session, bg: Background) -> str:
    """The whole command that started ``bg`` (its label is cut to 200 characters): a call of
    the entry it started at or of the few before it (a job judged by shape starts at the
    result that named it)."""
    head = " ".join(bg.command.split())[:60].rstrip("…")
    for e in reversed(s.entries[max(0, bg.index - 3) : bg.index + 1]):
        for call in e.calls:
            command = command_of(call)
            if command is not None and " ".join(command.split()).startswith(head):
                return command
    return bg.command


def listed_jobs(s: Session) -> list[Background]:
    """The jobs the summary lists as pending: the running ones and those that may still run."""
    shown = (MAYBE, POLLED)
    return [b for b in s.background.values() if not b.finished or b.finished.startswith(shown)]


def shown_jobs(s: Session) -> list[Background]:
    """The jobs section 7 shows: :func:`listed_jobs`, and those that ended with the CLI run
    they were started in (the CLI restarted since: blind check 19, W1), which may need
    starting again."""
    shown = (MAYBE, EARLIER_RUN, POLLED, ABANDONED, NOT_RUNNING)
    return [b for b in s.background.values() if not b.finished or b.finished.startswith(shown)]


def running_head(bg: Background) -> str:
    """How the pending section introduces a job it lists."""
    if bg.index == BEFORE and not bg.finished:  # started before the harness's own compaction
        return (
            "Background job still running (started before the earlier compaction, never seen "
            "finishing; check it, do not start it again)"
        )
    if bg.finished.startswith(NOT_RUNNING):  # a later listing did not show it (59 W1)
        return f"Background job {bg.finished} (it exited; start it again if it is still needed)"
    if bg.finished.startswith(ABANDONED):  # no "do not start it again" (blind check 43 W1)
        return f"Not pending: background job {bg.finished}"  # stopped: §9's "nothing is pending"
    if bg.finished.startswith((EARLIER_RUN, POLLED)):
        return f"Background job that {bg.finished}"
    if bg.finished.startswith(MAYBE):
        return f"Background job that {bg.finished}; check whether it runs before starting it again"
    if bg.seen:  # a later ss/ps/curl showed it alive (blind check 32, N2)
        return (
            f"Background job still running (started, never seen finishing; a later result "
            f"showed it alive: {bg.seen}; check it, do not start it again)"
        )
    return (
        "Background job still running (started, never seen finishing; check it, do not start it "
        "again)"
    )


def still_running(running: list[str]) -> str:
    """The next step's note on the jobs still running while the turn goes on."""
    return (
        f" Background jobs still running ({', '.join(running[:4])}): check on them; do not "
        "start them again."
    )


def idle_step(s: Session) -> str:
    """Section 9 when the last request was answered and jobs it started still run, or may
    (:data:`MAYBE`: a kill named only their port, the user ended the session with ``/exit``);
    ``""`` when none does."""
    wait = "   None for now: the last request was answered; wait for the user's next message."
    listed = listed_jobs(s)
    if running := [b.key or b.command for b in s.running]:
        maybe = [b.key or b.command for b in listed if b.finished.startswith(MAYBE)]
        also = f"; {', '.join(maybe[:4])} may be too (section 7)" if maybe else ""  # (77 N2)
        return (
            f"{wait} Background jobs it started are still running ({', '.join(running[:4])}"
            f"{also}): check on them before starting anything like them again."
        )
    if maybe := [b.key or b.command for b in listed if not b.finished.startswith(POLLED)]:
        return (
            f"{wait} Background jobs it started may still be running ({', '.join(maybe[:4])}; "
            "section 7): check whether they run before starting them again."
        )
    if polled := [b.key or b.command for b in listed]:  # bounded searches (blind check 20)
        return (
            f"{wait} Bounded searches it started were still running at their last poll "
            f"({', '.join(polled[:4])}; section 7); their output was never read."
        )
    ended = [b.key or b.command for b in shown_jobs(s) if not b.finished.startswith(ABANDONED)]
    if ended:  # it exited, or ended with an earlier CLI run: not "nothing is pending" (fix63a)
        return (
            f"{wait} Background jobs it started have ended ({', '.join(ended[:4])}; section 7): "
            "start one again only if it is still needed."
        )
    return ""
