"""Background jobs judged by shape, whatever the harness calls its tools.

A job is running when a tool result names a job, task, shell, process, session or agent id
(``running in background with ID: b7x``, ``task_id: 42``, ``Process running with session ID
9``, ``{"shell_id": "s1"}``) and nothing later (a tool call or result, a notification the CLI
injected) reports that id finished: a status such as ``completed``/``failed``/``killed``, an
exit code, or a kill/stop call naming it. Harness names (``Monitor``, ``BashOutput``,
``KillShell``…) are not needed: only the id and the words around it are read.

:func:`background_jobs` walks :class:`~compactor.facts.text.Entry` views once and returns every
job it saw start, each with whether (and how) it was seen to finish. Linear: each result is
scanned on its first :data:`_HEAD` characters for a start, and on a bounded window for ids it
reports on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .outcomes import command_of
from .text import Call, Entry, cut, lowers_exactly, one_line

__all__ = ["Job", "background_jobs"]

_HEAD = 2_000
_ID = r"`?['\"]?([A-Za-z0-9][\w\-.]{1,63})"
_START_RE = re.compile(
    r"(?:running in (?:the )?background with (?:ID|id)|in the background[^\n]{0,40}?\b(?:id|ID)|"
    r"background (?:task|shell|job|process) (?:started|id|ID)|"
    r"\b(?:task|job|shell|bash|process|session|agent|run)[ _-]?(?:id|ID|Id)\b|agentId|\bpid\b|"
    r"Process running with session ID|started (?:job|task|process)|"
    r"(?:job|task) (?:submitted|queued|started)(?: with id)?)"
    r"['\"]?\s*(?:[:=#]|is)?\s*" + _ID,
    re.IGNORECASE,
)
_LAST_ID_RE = re.compile(
    r"\b(?:session|process|shell|job|task)[ _-]?id\s*[:=]\s*`?([A-Za-z0-9][\w\-]{1,63})`?\s*$",
    re.IGNORECASE,
)
"""An id a tool prints as its output's last line (``SESSION_ID=89726``): what it left running."""
_RUNNING_WORDS = re.compile(
    r"\b(?:running|background|started|queued|submitted|spawned|launched|in progress|pending)\b",
    re.IGNORECASE,
)
_DONE_RE = re.compile(
    r"\b(?:completed|complete|finished|done|exited|killed|terminated|stopped|cancell?ed|"
    r"failed|succeeded|success)\b|exit[ _]code|<status>\s*(?:completed|failed|killed)",
    re.IGNORECASE,
)
_STILL_RE = re.compile(r"<status>\s*running|status[\"':\s]+running|still running", re.I)
_KILL_NAME_RE = re.compile(r"kill|stop|cancel|terminate", re.IGNORECASE)
_ID_WORDS = frozenset(
    "the a an and or of to is in on for with not none null true false id ids this that".split()
)


@dataclass(slots=True)
class Job:
    """A job a tool result named: its id, what started it, and how it ended (if seen)."""

    id: str
    label: str
    """The command or call that started it (one line)."""
    index: int
    """Entry index of the result that named it."""
    finished: str = ""
    """The line that reported it finished; empty while running."""
    said: str = ""
    """The line of the result that named it (where its output goes, what it runs)."""

    @property
    def running(self) -> bool:
        return not self.finished


def _label(call: Call | None, name: str) -> str:
    if call is None:
        return name
    command = command_of(call)
    if command:
        return cut(" ".join(command.split()), 200)
    for key in ("description", "prompt", "subagent_type", "task"):
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            return cut(f"{call.name}: {' '.join(value.split())}", 200)
    return call.name


_RUNNING_HINTS = (
    "running", "background", "started", "queued", "submitted", "spawned", "launched",
    "in progress", "pending",
)  # fmt: skip
"""The words of :data:`_RUNNING_WORDS`: a text whose lower-cased form holds none has no match
(when lower-casing is what the pattern compares, :func:`~compactor.facts.text.lowers_exactly`);
looking for them costs a fraction of the pattern, run at every character of 2,000."""


def _started(text: str) -> list[str]:
    head = text[:_HEAD]
    tail = text[-200:].rstrip()
    if not lowers_exactly(tail) or "id" in tail.lower():  # what _LAST_ID_RE needs
        last = _LAST_ID_RE.search(tail)
        if last is not None:
            return [last.group(1)]
    if lowers_exactly(head):
        low = head.lower()
        if not any(word in low for word in _RUNNING_HINTS):
            return []
    if _RUNNING_WORDS.search(head) is None:
        return []  # an id in a result that says nothing runs is a record, not a job
    found = []
    for match in _START_RE.finditer(head):
        key = match.group(1).strip(".")
        if key.lower() in _ID_WORDS or len(key) < 2:
            continue
        if not any(ch.isdigit() for ch in key) and len(key) < 6:
            continue  # "task: build" is a word, not an id
        found.append(key)
    return list(dict.fromkeys(found))


def _line(text: str) -> str:
    """The start result on one line, without the harness's own header."""
    return cut(one_line(text[:_HEAD]), 240)


def _finished_line(text: str, key: str) -> str:
    """The line of ``text`` that reports ``key`` finished, or ''."""
    at = text.find(key)
    if at < 0:
        return ""
    window = text[max(0, at - 300) : at + 600]
    if _STILL_RE.search(window) is not None and _DONE_RE.search(window) is None:
        return ""
    done = _DONE_RE.search(window)
    if done is None:
        return ""
    start = window.rfind("\n", 0, done.start()) + 1
    end = window.find("\n", done.end())
    return cut(window[start : end if end >= 0 else len(window)].strip(), 160)


_INTERRUPT = "\\u0003"
"""Ctrl-C written to a process's stdin, as it appears in a call's JSON arguments."""


def _names(arguments: str, key: str) -> bool:
    at = arguments.find(key)
    while at >= 0:
        before = arguments[at - 1] if at else " "
        after = arguments[at + len(key)] if at + len(key) < len(arguments) else " "
        if not (before.isalnum() or after.isalnum()):
            return True
        at = arguments.find(key, at + 1)
    return False


def background_jobs(entries: list[Entry]) -> list[Job]:
    """Every job a tool result named, in order, with ``finished`` set when a later message
    reported it done (see the module docstring)."""
    jobs: dict[str, Job] = {}
    calls: dict[str, Call] = {}
    watching: dict[str, str] = {}
    """call id → the running job its arguments name (its result may report the job's end)."""
    for e in entries:
        if e.internal:
            continue
        for call in e.calls:
            if call.id:
                calls[call.id] = call
            for key, job in jobs.items() if jobs else ():
                if job.finished or not _names(call.arguments, key):
                    continue
                if (
                    _KILL_NAME_RE.search(call.name)
                    or _INTERRUPT in call.arguments
                    or "\x03" in call.arguments
                ):
                    job.finished = f"stopped by {call.name}"
                elif call.id:
                    watching[call.id] = key
        for r in e.results:
            started_by = calls.get(r.call_id)
            watched = jobs.get(watching.pop(r.call_id, ""))
            if watched is not None and not watched.finished:
                head = r.text[:600]
                if _STILL_RE.search(head) is None and _DONE_RE.search(head) is not None:
                    watched.finished = cut(one_line(head), 160)
            new = _started(r.text)
            for key, job in jobs.items():
                if job.finished or key not in r.text or key in new:
                    continue
                line = _finished_line(r.text, key)
                if line:
                    job.finished = line
            for key in new:
                if key not in jobs and key != r.call_id:
                    jobs[key] = Job(key, _label(started_by, r.name), e.index, "", _line(r.text))
        if e.role == "user" and e.text and jobs:
            for key, job in jobs.items():
                if not job.finished and key in e.text:
                    job.finished = _finished_line(e.text, key)
    return list(jobs.values())
