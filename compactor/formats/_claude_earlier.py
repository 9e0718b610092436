"""The background jobs a Claude Code session started before its own compaction (issue 28).

Claude Code loads the history from its last ``compact_boundary``; the records before it are no
messages, so the summarizer never saw the ``run_in_background`` calls made there. The CLI keeps
its background shells and async agents across a compaction: a dev server started before the
boundary and never stopped still runs (blind check 46, cc-mfa: the frontend and ngrok jobs were
missing from the summary's running jobs). :func:`earlier_jobs` scans those records once: each
call with ``run_in_background`` whose result names the job's id (``Command running in background
with ID: b463a86``, ``agentId: a1b2``), minus the jobs seen ending there (a kill or stop call
naming the id, a poll whose result reports its end, a notification naming it with a status),
and minus those started by another run of the CLI than the one that wrote the file's last
records (a restart ends its shells). They go on the history's first message under
:data:`~compactor.schema.EARLIER_CALLS_KEY` (``"jobs"``); the summarizer seeds its job tracking
with them, so a notice or a poll after the boundary still ends them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.schema import EARLIER_CALLS_KEY, AgenticMessage

from ._claude_earlierfacts import EarlierFacts
from ._claude_texts import content_texts, one_line
from ._jsonl import Line
from .notices import NOTICE_TAGS

__all__ = ["earlier_jobs", "note_earlier_jobs"]

_STARTED_RE = lazy_pattern(
    r"(?:running in (?:the )?background with ID|\bagentId|\b(?:shell|task|bash)_?id)"
    r"\s*[:=]\s*`?([A-Za-z0-9](?:[\w\-.]{0,62}[\w\-])?)",
    re.IGNORECASE,
)
"""A background call's result naming the job it started (the first 2,000 characters)."""
_STOP_NAME_RE = lazy_pattern(r"kill|stop|cancel", re.IGNORECASE)
_ENDED_RE = lazy_pattern(
    r"<status>\s*(?:completed|failed|killed|cancell?ed|stopped|error)|<exit_code>|"
    r"\b(?:completed|failed|was stopped|killed) with exit code|\bexit code \d|"
    r"\bstatus\W{0,3}(?:completed|failed|killed)",
    re.IGNORECASE,
)
"""A poll's result or a notification that reports the job's end."""
_KILL_RE = lazy_pattern(r"\b(?:kill|pkill|killall)\b|\bfuser\b[^\n|;]*\s-k\b")
"""A shell command that may kill a job started earlier (its words: :mod:`compactor.facts.kills`)."""
_HEAD = 2_000
_MOST = 20
"""At most this many jobs (the newest) go on the message."""


def _text(content: JsonValue) -> str:
    return "\n".join(content_texts(content))


def earlier_jobs(
    lines: Sequence[Line], start: int, live: set[int], facts: EarlierFacts | None = None
) -> list[JsonObject]:
    """``[{"id", "command", "said", "kills"?}]``: the jobs started in ``lines[:start]`` (records
    no part of the live history ``live``) that nothing there reported ended, oldest first, each
    with the later shell commands there that kill something (which ones end it is judged by
    the summarizer); ``facts`` collects the exact results of the calls there (58 N4)."""
    starts: dict[str, tuple[str, str]] = {}  # call id → (its command, the CLI run that made it)
    polls: dict[str, str] = {}  # call id → the job id its input names
    jobs: dict[str, JsonObject] = {}
    for i in range(min(start, len(lines))):
        if i in live:
            continue
        rec = lines[i].obj
        kind = rec.get("type")
        if kind == "queue-operation":
            _notices(_text(rec.get("content")), jobs)
            continue
        body = rec.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if kind == "assistant" and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    _call(b, rec, starts, polls, jobs)
                    if facts is not None:
                        facts.call(b)
            if facts is not None:
                facts.turn(rec, content)
        elif kind == "user":
            if facts is not None:
                facts.turn(rec, content)
            if isinstance(content, str):
                _notices(content, jobs)
                continue
            for b in content if isinstance(content, list) else ():
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text":
                    _notices(_text(b.get("text")), jobs)
                elif b.get("type") == "tool_result":
                    _result(b, starts, polls, jobs)
                    if facts is not None:
                        facts.result(b)
    last = _last_run(lines)
    kept = [j for j in jobs.values() if not last or not j["process"] or j["process"] == last]
    return [{k: v for k, v in j.items() if k != "process"} for j in kept[-_MOST:]]


def _call(
    block: JsonObject,
    rec: JsonObject,
    starts: dict[str, tuple[str, str]],
    polls: dict[str, str],
    jobs: dict[str, JsonObject],
) -> None:
    call_id, args = block.get("id"), block.get("input")
    if not isinstance(call_id, str) or not isinstance(args, dict):
        return
    name = str(block.get("name") or "")
    command = args.get("command")
    if isinstance(command, str) and _KILL_RE.search(command):
        for job in jobs.values():  # judged by the summarizer (``facts.kills``), by shape
            kills = job.setdefault("kills", [])
            if isinstance(kills, list) and len(kills) < _MOST:
                kills.append(one_line(command, 300))
    if args.get("run_in_background") is True:
        what = args.get("command") or args.get("description") or args.get("prompt") or name
        run = rec.get("sessionId")
        starts[call_id] = (one_line(str(what), 200), run if isinstance(run, str) else "")
        return
    values = " ".join(str(v) for v in args.values() if isinstance(v, str | int))
    for key in [k for k in jobs if k in values]:
        if _STOP_NAME_RE.search(name):
            del jobs[key]  # stopped by a kill or stop call naming it
        else:
            polls[call_id] = key


def _result(
    block: JsonObject,
    starts: dict[str, tuple[str, str]],
    polls: dict[str, str],
    jobs: dict[str, JsonObject],
) -> None:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        return
    text = _text(block.get("content"))[:_HEAD]
    if call_id in starts:
        found = _STARTED_RE.search(text)
        if found is not None and block.get("is_error") is not True:
            command, run = starts.pop(call_id)
            jobs[found.group(1)] = {
                "id": found.group(1),
                "command": command,
                "said": one_line(text, 200),
                "process": run,
            }
        return
    key = polls.pop(call_id, "")
    if key in jobs and _ENDED_RE.search(text) is not None:
        del jobs[key]


def _notices(text: str, jobs: dict[str, JsonObject]) -> None:
    """Drop the jobs a notification (``<task-notification>`` …) names with a status."""
    if not jobs or not any(tag in text for tag in NOTICE_TAGS):
        return
    for key in [k for k in jobs if k in text]:
        if _ENDED_RE.search(text) is not None:
            del jobs[key]


def _last_run(lines: Sequence[Line]) -> str:
    """The ``sessionId`` of the file's last record that has one (the CLI run that wrote it)."""
    for line in reversed(lines):
        run = line.obj.get("sessionId")
        if isinstance(run, str) and run:
            return run
    return ""


def note_earlier_jobs(
    messages: list[AgenticMessage], lines: Sequence[Line], start: int, live: set[int]
) -> None:
    """Put :func:`earlier_jobs` on the first of ``messages`` (``EARLIER_CALLS_KEY["jobs"]``),
    and the exact results of the calls there (``["facts"]``: :class:`EarlierFacts`)."""
    if start <= 0 or not messages:
        return
    facts = EarlierFacts()
    jobs = earlier_jobs(lines, start, live, facts)
    said = facts.lines()
    if jobs or said or facts.answered:
        found = messages[0].extra.get(EARLIER_CALLS_KEY)
        note: JsonObject = dict(found) if isinstance(found, dict) else {}
        if jobs:
            note["jobs"] = list(jobs)
        if said:
            note["facts"] = list(said)
        if facts.answered:
            note["answered"] = True
        messages[0].extra[EARLIER_CALLS_KEY] = note
