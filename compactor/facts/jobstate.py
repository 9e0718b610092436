"""Where a background job stands, judged by shape (blind check 19, W1 and W3).

Three shapes end a job, or show it never started, whatever the harness calls its tools:

* a call the user **rejected** started nothing (``The user doesn't want to take this action
  right now``, ``The tool use was rejected``): a ``run_in_background`` Task or Bash call
  answered so is no job;
* a **poll answered "No task found"** (``No task found with ID: a6c21cb``, ``unknown task``,
  ``no such shell``) means the harness no longer knows the job: it is gone, not running;
* a CLI **notification** that an agent or task stopped ends it, whether the CLI calls it a
  ``<task-notification>`` (``<task-id>``), an ``<agent-notification>`` (``<agent-id>``,
  Claude Code 2.0.x, written only in ``queue-operation`` records) or a ``<bash-notification>``
  (``<shell-id>``, Claude Code 2.0.x's end of a background shell, a plain-string user record,
  often after an enqueue/dequeue pair: blind check 44, W1).

And one shape bounds it: a Claude Code background shell lives in its CLI process. When the
records after its start come from another process (their ``sessionId`` changed: the CLI was
restarted or resumed), the job ended with the process it ran in
(:data:`compactor.schema.PROCESS_KEY`, read into :attr:`Entry.process`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.formats.notices import NOTICE_TAGS
from compactor.rejections import is_rejection, stopped_by_user

from .text import Entry

__all__ = [
    "EARLIER_RUN",
    "ID_END",
    "ID_TAG",
    "NOTICE_TAGS",
    "earlier_run",
    "gone_reply",
    "is_notice",
    "last_process",
    "rejected",
    "stopped",
]

ID_TAG = r"<(?:task|agent|shell)-id>"
"""The tag that names the stopped job inside a notification (see :data:`NOTICE_TAGS`)."""
ID_END = r"</(?:task|agent|shell)-id>"
"""The tag that closes :data:`ID_TAG`."""

_GONE_RE = lazy_pattern(
    r"\bno (?:such )?(?:task|job|shell|process|agent|session|background \w+)\b[^\n]{0,30}?"
    r"\b(?:found|exists?)\b|"
    r"\b(?:task|job|shell|process|agent|session)(?:[ _]?id)?\s*[:#=]?\s*[`'\"]?[\w\-.]{2,64}[`'\"]?"
    r"\s+(?:was |is )?(?:not found|does not exist|doesn't exist|no longer exists)\b|"
    r"\bunknown (?:task|job|shell|process|agent|session)(?: id)?\b",
    re.IGNORECASE,
)


def is_notice(text: str) -> bool:
    """Whether ``text`` holds a CLI notification that a background task or agent stopped."""
    return any(tag in text for tag in NOTICE_TAGS)


def gone_reply(text: str) -> str:
    """The line of a poll's reply that says the harness knows no such job (``No task found
    with ID: a6c21cb``), on one line; ``""`` when it says no such thing. Only the reply's start
    is read: a poll's output that mentions "not found" deep in a log is the job's output."""
    found = _GONE_RE.search(text[:400])
    if found is None:
        return ""
    start = text.rfind("\n", 0, found.start()) + 1
    end = text.find("\n", found.end())
    line = re.sub(r"</?[\w\-]+>", " ", text[start : end if end >= 0 else min(len(text), 400)])
    return "gone: the poll answered " + " ".join(line.split())[:160]


def rejected(text: str) -> bool:
    """Whether a tool result says the user rejected the call (it ran nothing): one owner,
    :func:`compactor.rejections.is_rejection`."""
    return is_rejection(text)


def stopped(text: str) -> bool:
    """Whether a tool result says the user rejected the call or stopped it while it ran: a
    background start answered so started no job (:func:`compactor.rejections.stopped_by_user`)."""
    return stopped_by_user(text)


EARLIER_RUN = "was started in an earlier run of the CLI"
"""How a job that ended with the CLI process it ran in is introduced."""


def last_process(entries: Sequence[Entry]) -> str:
    """The CLI process that wrote the newest of ``entries`` (``""``: one process, or unknown)."""
    return next((e.process for e in reversed(entries) if e.process), "")


def earlier_run(started: str, last: str) -> str:
    """How a harness-run background job ended when the CLI process it was started in
    (``started``) is not the one that wrote the session's last records (``last``): with that
    process; ``""`` when it is the same one, or either is unknown."""
    if not started or not last or started == last:
        return ""
    return (
        f"{EARLIER_RUN} (it ended with that run: the CLI restarted after it started); start it "
        "again if still needed"
    )
