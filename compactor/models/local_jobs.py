"""Background jobs a later command killed (issue 28): a job whose pid or program a later kill
named has ended; one a kill named only by its port may still be running, and is said so rather
than "still running, do not start it again" (:func:`compactor.facts.kills.later_kill`)."""

from __future__ import annotations

from compactor.facts import background_jobs
from compactor.facts.kills import MAYBE, later_kill

from .local_session import Background, Session

__all__ = ["add_shape_jobs", "judge_killed", "listed_jobs", "running_head", "still_running"]


def add_shape_jobs(s: Session) -> None:
    """Add the jobs judged by shape that the session model did not see start, as running
    :class:`Background` entries (their id, the command that started them), and give every
    running job what its start result said (its id, where its output goes)."""
    known = set(s.background)
    for job in background_jobs(s.entries):
        if not job.running:
            continue
        if job.id not in known:
            s.background[job.id] = Background(job.id, job.label, job.index)
        bg = s.background[job.id]
        if not bg.said:
            bg.said = job.said
    judge_killed(s)


def judge_killed(s: Session) -> None:
    """End each running job a later command killed; mark one a kill may have ended."""
    for bg in s.running:
        how = later_kill(s.entries, bg.key, bg.command, bg.index)[1]
        if how:
            bg.finished = how


def listed_jobs(s: Session) -> list[Background]:
    """The jobs the summary lists as pending: the running ones and those that may still run."""
    return [b for b in s.background.values() if not b.finished or b.finished.startswith(MAYBE)]


def running_head(bg: Background) -> str:
    """How the pending section introduces a job it lists."""
    if bg.finished.startswith(MAYBE):
        return f"Background job that {bg.finished}; check whether it runs before starting it again"
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
