"""Later checks that show a job known by its pid is no longer running (blind check 59, W1).

``nohup python relay.py > log 2>&1 & echo "PID: $!"`` leaves a job known by the pid it printed;
:mod:`.detached` ends it only when a later check shows it gone. Two shapes of check name the job
by something other than a listing of its pid:

* a process listing by NAME (``pgrep -f relay``, ``ps aux | grep relay``, ``pidof relay``) that
  names a distinctive word of the job's command: when its output shows no row of the job (no
  row with the pid, and no row naming the word that is not the ``grep``/``pgrep``/shell running
  the check itself) the job had exited by then; a row that shows it keeps it running;
* ``kill -0 PID`` (a liveness probe, not a kill) that failed or said ``No such process``.

A check that could not run (``pgrep: command not found``, a usage error) says nothing.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .outcomes import exit_code

__all__ = ["NOT_RUNNING", "PROBE_RE", "probe_end", "unlisted_by_name"]

NOT_RUNNING = "not running at "
"""How a job these checks ended starts its ``finished``: section 7 shows it (it exited; a
resuming agent may need to start it again), never as running."""

PROBE_RE = lazy_pattern(r"\bkill\s+-0\b")
"""A probe of one pid: ``kill -0 PID`` (``ps -p PID`` is read as a listing by :mod:`.detached`)."""
_NO_PROCESS_RE = lazy_pattern(r"No such process", re.IGNORECASE)
_BROKEN_RE = lazy_pattern(
    r"command not found|: not found|invalid option|unrecognized option|usage:|"
    r"Permission denied|Operation not permitted",
    re.IGNORECASE,
)
_COMMON = frozenset(
    "nohup setsid python python3 node npm npx pnpm yarn bash exec start serve server main "
    "sleep echo uvicorn gunicorn flask".split()
)
_SELF_RE = lazy_pattern(r"\b(?:grep|pgrep|egrep|rg)\b|\bbash\s+-c\b|/bin/(?:ba|z)?sh\b")
"""A row of the check itself (``grep relay``; the shell running ``pgrep -f relay``)."""
_KILLS_RE = lazy_pattern(r"\b(?:kill|pkill|killall)\b(?!\s+-0\b)|\$\(\s*(?:pgrep|ps|pidof)\b")
"""A listing that kills what it finds, or whose output a ``$(…)`` takes: no report of it."""
_BARE_PID_ROW_RE = lazy_pattern(r"^\s*\d{2,8}\s*$")


def _stems(label: str) -> set[str]:
    """Distinctive words of a job's command (``relay_north.py`` and ``relay_north``): a path's
    last part, no flag, redirection, number, log file or common runner."""
    found: set[str] = set()
    for raw in label.split():
        word = raw.strip("&;'\"()").rsplit("/", 1)[-1]
        if word.startswith(("-", ">", "<", "2>", "$")) or word.isdigit() or ".log" in word:
            continue
        if re.fullmatch(r"[\w.\-]+", word) is None or word.lower() in _COMMON:
            continue
        for part in (word, word.rsplit(".", 1)[0]):
            if len(part) >= 5 and part.lower() not in _COMMON:
                found.add(part)
    return found


def _at(command: str) -> str:
    return "`" + " ".join(command.split())[:80] + "`"


def unlisted_by_name(command: str, text: str, key: str, label: str) -> str:
    """How a later process listing by name (its shell ``command``, its output ``text``) shows
    the job of pid ``key`` (started by ``label``) not running, or '' (the listing names no word
    of the job, could not run, or shows it)."""
    words = [w for w in _stems(label) if w in command]
    if not words or _KILLS_RE.search(command) is not None:
        return ""  # ``kill $(pgrep -f x)``: its output lists nothing; the kill is the news
    body = text.split("\nOutput:\n", 1)[-1]
    if _BROKEN_RE.search(body[:2_000]) is not None:
        return ""
    for row in body[:6_000].splitlines():
        if re.search(rf"(?<!\d){key}(?!\d)", row) is not None:
            return ""
        if _BARE_PID_ROW_RE.match(row) or (
            any(w in row for w in words) and _SELF_RE.search(row) is None
        ):
            return ""  # a process of that name runs (a bare pid: ``pgrep`` without ``-a``)
    return f"{NOT_RUNNING}{_at(command)}: it listed no process of pid {key}"


def probe_end(command: str, text: str, key: str) -> str:
    """How ``kill -0 PID`` (its output ``text``) shows the job of pid ``key`` gone: it said
    ``No such process`` or failed; '' when it succeeded or could not tell."""
    body = text.split("\nOutput:\n", 1)[-1]
    if _NO_PROCESS_RE.search(body[:2_000]) is not None:
        return f"{NOT_RUNNING}{_at(command)}: No such process"
    if _BROKEN_RE.search(body[:2_000]) is not None:
        return ""
    if "||" in command or "&&" in command:
        return ""  # ``kill -0 P && echo up || echo down``: its exit is the echo's
    code = exit_code(text)
    return f"{NOT_RUNNING}{_at(command)}: it failed (exit {code})" if code else ""
