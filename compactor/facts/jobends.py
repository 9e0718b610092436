"""How a text reports that a background job ended (:mod:`.jobs` reads it for every job it
saw start): an exit near the job's id and no word that it still runs (:func:`finished_line`),
what a poll of the job returned (:func:`exit_report`), a ``ps``/``pgrep`` that no longer lists
its pid (:func:`unlisted`). Narrow on purpose: build tools print "Finished" and "done" about
their own steps, never an end of a job."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import command_of
from .jobstate import gone_reply
from .text import Call, cut, one_line

__all__ = ["EXITED_RE", "exit_report", "finished_line", "unlisted"]

_DONE_RE = re.compile(
    r"\b(?:completed|complete|finished|done|exited|killed|terminated|stopped|cancell?ed|"
    r"failed|succeeded|success)\b|exit[ _]code|<status>\s*(?:completed|failed|killed)",
    re.IGNORECASE,
)
_STILL_RE = lazy_pattern(
    r"<status>\s*running|status[\"':\s]+running|still running|Process running with session ID",
    re.IGNORECASE,
)
EXITED_RE = re.compile(
    r"Process exited with code\s*-?\d+|\bexit(?:ed)?[ _]?(?:code|status)\b[\"'>:=\s]*-?\d+|"
    r"<status>\s*(?:completed|failed|killed|exited|cancell?ed|error)|"
    r"\b(?:status|state)[\"']?\s*[:=]\s*[\"']?(?:completed|complete|finished|done|failed|killed|"
    r"exited|cancell?ed|succeeded|terminated|stopped|error)\b|"
    r"\b(?:process|job|task|shell|session|command|server|run)\b[^\n]{0,40}?"
    r"\b(?:has |have |was |is )?"
    r"(?:exited|completed|finished|terminated|killed|stopped|failed|succeeded|cancell?ed|"
    r"not found|no longer (?:exists|running)|does not exist|gone)\b|"
    r"No such process|\bexited\b",
    re.IGNORECASE,
)
"""An exit reported about a job: an exit code or status, or a job/process noun with an end
word (never a bare "Finished" or "done": build tools print those about their own steps)."""


def finished_line(text: str, key: str, done_re: re.Pattern[str] = _DONE_RE) -> str:
    """The line of ``text`` near ``key`` that reports it finished (``done_re``), or ''."""
    at = text.find(key)
    if at < 0:
        return ""
    window = text[max(0, at - 300) : at + 600]
    done = done_re.search(window)
    if done is None:
        return ""
    if _STILL_RE.search(window) is not None:
        return ""
    start = window.rfind("\n", 0, done.start()) + 1
    end = window.find("\n", done.end())
    return cut(window[start : end if end >= 0 else len(window)].strip(), 160)


def exit_report(text: str, arguments: str, key: str) -> str:
    """The exit a poll of job ``key`` reported (its result ``text``; the poll's ``arguments``),
    on one line, or '' when it reports none or says the job still runs. A harness's own header
    line about the script that polled (``Script completed``) is not read. Besides an explicit
    exit, two shapes say the process is gone: the poll prints the id while the process lives
    (``if (r.session_id) text(`SESSION_ID=…`)``) and did not print it; or the poll asked to wait
    (``yield_time_ms: 30000``) and returned long before the wait was over."""
    head, body = "", text
    if text.startswith(_HARNESS_HEADS):
        cut_at = text.find("Output:", 0, 8_600 if text.startswith("Command: ") else 600)
        if cut_at >= 0:
            head, body = text[:cut_at], text[cut_at + 7 :]
        head = "\n".join(ln for ln in head.splitlines() if not ln.startswith(_SCRIPT_LINES))
    if _STILL_RE.search(head) or _STILL_RE.search(body[:2_000]) or _STILL_RE.search(body[-2_000:]):
        return ""
    if gone := gone_reply(text):  # "No task found with ID: a6c21cb": the harness lost it
        return gone
    for part in (head, body[:2_000], body[-2_000:]):
        exited = EXITED_RE.search(part)
        if exited is not None:
            start = part.rfind("\n", 0, exited.start()) + 1
            end = part.find("\n", exited.end())
            return cut(one_line(part[start : end if end >= 0 else len(part)]), 160)
    marker = _MARKER_RE.search(arguments)
    if marker is not None and f"{marker.group(1)}={key}" not in text:
        return f"gone: the poll prints {marker.group(1)}= while the process lives, and did not"
    wait, wall = _WAIT_RE.search(arguments), _WALL_RE.search(text[:600])
    if wait is not None and wall is not None and float(wall.group(1)) * 2_000 < int(wait.group(1)):
        return (
            f"exited: the poll returned after {wall.group(1)} s of a "
            f"{int(wait.group(1)) / 1000:g} s wait"
        )
    return ""


_MARKER_RE = lazy_pattern(r"\b([A-Z][A-Z_]*_ID)=")
"""The marker a poll script prints with the id of a process that still runs (``SESSION_ID=``)."""
_WAIT_RE = lazy_pattern(r"\b(?:yield_time_ms|timeout_ms|wait_ms)\\?[\"']?\s*[:=]\s*(\d{3,7})")
_WALL_RE = lazy_pattern(r"^Wall time:?\s*([\d.]+)\s*s", re.MULTILINE)


_HARNESS_HEADS = (
    "Script completed", "Script failed", "Chunk ID", "Wall time", "Process ", "Command: "
)  # fmt: skip
"""How a harness's own header starts (Codex code-mode ``exec``, ``exec_command``)."""
_SCRIPT_LINES = ("Script completed", "Script failed", "Wall time", "Command: ")
"""Header lines about the script or call that polled, not about the job."""


_PS_RE = lazy_pattern(r"(?:^|[;&|(]\s*)(?:ps|pgrep)\b", re.MULTILINE)


def unlisted(call: Call, text: str, job_id: str) -> str:
    """How a later ``ps``/``pgrep`` naming a job known by its pid showed it ended: its output
    does not list the pid (``ps -p 2167150`` printed only its header); '' otherwise."""
    command = command_of(call)
    if command is None or not job_id.isdigit() or _PS_RE.search(command) is None:
        return ""
    if re.search(rf"(?<!\d){job_id}(?!\d)", text) is not None:
        return ""
    return f"gone: `{cut(one_line(command), 80)}` no longer lists pid {job_id}"
