"""Background tasks the CLI reported failed after the assistant's last answer.

Claude Code injects a ``<task-notification>`` (a user record, often the session's last one)
when a background task stops. When one reports a failure after the last answer, that answer's
claim that the task runs ("the dev server is running successfully") no longer holds: the
session is not "completed, nothing pending" (blind check 12, bh-oauth: the dev server b6fdbf0
failed with exit code 137 after the answer said it ran). Only the entries after the last answer
are read (no scan of every message).

A job the CLI stopped because the user ended the session (``/exit``, ``/quit`` after the last
answer: ``<status>killed</status>``, "was stopped") did not fail: the exit stopped it (blind
check 55, W1: two wait loops the CLI stopped at ``/exit`` were reported as a failure to tell
the user of).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, one_line
from compactor.facts.jobstate import ID_END, ID_TAG, is_notice
from compactor.facts.noise import command_name

__all__ = [
    "asked_before_failure",
    "failed_after",
    "failed_after_items",
    "failed_after_step",
    "notified_end",
    "said_task",
    "stopped_at_exit",
]

_NOTICE_RE = lazy_pattern(
    ID_TAG + r"\s*([\w\-.]+)\s*" + ID_END + r"(?:(?!" + ID_TAG + r").)*?<status>\s*(\w+)"
    r"\s*</status>(?:(?:(?!" + ID_TAG + r").)*?<summary>(.*?)</summary>)?",
    re.DOTALL,
)
_PLAIN_END = r"\b[^\n<]{0,40}?\b(completed|failed|killed|exited|stopped|cancell?ed|finished)\b"
"""After a job's id in a notification without ``<task-id>``/``<status>`` tags: its end word."""
_FAILED = ("failed", "killed", "error", "cancelled", "canceled", "timeout")
_STOPPED = ("killed", "cancelled", "canceled")
"""Statuses of a job stopped from outside (not a failure of its own) when the session ended."""
_SESSION_ENDS = ("/exit", "/quit")


def _ended_session(e: Entry) -> bool:
    """Entry ``e`` is the user's ``/exit`` or ``/quit`` (markup or typed)."""
    text = e.text.strip()
    return e.role == "user" and (command_name(text) in _SESSION_ENDS or text in _SESSION_ENDS)


def failed_after(entries: list[Entry], since: int) -> list[tuple[str, str, str]]:
    """(id, status, summary) of each background task that a ``<task-notification>`` after
    entry ``since`` reported failed (the summary names the exit code)."""
    return _reported_after(entries, since)[0]


def stopped_at_exit(entries: list[Entry], since: int) -> list[tuple[str, str, str]]:
    """(id, status, summary) of each background task the user's ``/exit`` after entry ``since``
    stopped: no failure, but not running either (a dev server a resuming agent may need to
    start again; seen set 44, cc-mysite, after row 2630 dropped it from the failures)."""
    return _reported_after(entries, since)[1]


def _reported_after(
    entries: list[Entry], since: int
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(failed, stopped by the session's exit) of the tasks notified after entry ``since``."""
    failed: list[tuple[str, str, str]] = []
    stopped: list[tuple[str, str, str]] = []
    after = entries[since + 1 :]
    ended = any(map(_ended_session, after))  # the exit stopped its jobs (blind check 55, W1)
    for e in after:
        if e.role != "user" or not is_notice(e.text):
            continue
        for m in _NOTICE_RE.finditer(e.text):
            status = m.group(2).lower()
            if status in _FAILED:
                task = (m.group(1), status, one_line(m.group(3) or "")[:300].rstrip("."))
                (stopped if ended and status in _STOPPED else failed).append(task)
    return failed, stopped


def said_task(task: tuple[str, str, str]) -> str:
    """``background task ID STATUS (SUMMARY)``: a task a notification reported stopped."""
    key, status, summary = task
    return f"background task {key} {status}" + (f" ({summary})" if summary else "")


def failed_after_items(failed: list[tuple[str, str, str]]) -> list[str]:
    """Section 7's lines: each task that failed after the answer, and that nothing runs."""
    return [
        f"After the last answer, the CLI reported: {said_task(task)}. The answer's claim that it "
        "runs no longer holds: it is not running, and nothing started for the request is "
        "running. That notice is unanswered: the user has not been told"
        for task in failed
    ]


def asked_before_failure(question: str) -> str:
    """Section 7's line for the question the last answer asked when a background task it
    started failed after it (blind check 44, W1): the failure is the open point, not the
    answer ("let me know when to stop the server" asks about a server that is gone)."""
    return (
        f"Before that failure, the answer had asked the user: {question}. It was written while "
        "the task still ran: tell the user of the failure first, not wait for this answer"
    )


def failed_after_step(failed: list[tuple[str, str, str]]) -> str:
    """Section 9 when a background task failed after the last answer."""
    keys = ", ".join(key for key, _, _ in failed)
    return (
        f"   A background task failed after the last answer ({'; '.join(map(said_task, failed))}): "
        f"tell the user, read the output of {keys}, and start it again once the cause is known."
    )


def notified_end(key: str, text: str) -> tuple[str, str] | None:
    """(status, the words that report it) when the notification ``text`` says, in its plain
    form without tags (``<task-notification> bg7f3a2 completed (exit code 0)``), that the job
    ``key`` ended; None when it does not."""
    said = re.search(re.escape(key) + _PLAIN_END, text)
    return None if said is None else (said.group(1), text[said.start() : said.end() + 80])
