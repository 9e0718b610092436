"""Whether a later command killed a background job, judged by shape.

A job (a Codex unified-exec session, a shell ``&`` job, a ``run_in_background`` call) ends when
a later shell command kills its process: ``kill 23003 23005`` naming a pid its start or poll
output printed (``Started reloader process [23005]``, ``pid: 7311``) or that a later ``lsof``/
``ps`` listed on a line naming its port or its program; ``pkill -f uvicorn`` naming a
distinctive word of its command. Those are sure. A kill that names only the port the job
listens on (``lsof -ti tcp:8000 | xargs kill``, ``fuser -k 8000/tcp``) is not: the job may have
moved or may hold the port through another process, so it is reported as "may still be
running"."""

from __future__ import annotations

import re

from .outcomes import command_of
from .text import Entry, cut, one_line

__all__ = ["MAYBE", "later_kill"]

MAYBE = "may still be running"
"""How a job a later kill named only by its port is described."""

_KILL_RE = re.compile(r"\b(?:kill|pkill|killall)\b|\bfuser\b[^\n|;]*\s-k\b", re.IGNORECASE)
_PID_RE = re.compile(
    r"\bpid\b[\"'\s:=#]*(\d{2,7})\b|\bprocess\s*\[(\d{2,7})\]|\bPID\s+(\d{2,7})\b", re.IGNORECASE
)
_PORT_RE = re.compile(r"(?:--port[= ]+|:)(\d{2,5})\b|\bport\s+(\d{2,5})\b")
_ROW_PID_RE = re.compile(r"^\s*\S+\s+(\d{2,7})\s", re.MULTILINE)
"""The pid column of an ``lsof``/``ps`` row (``Python 23003 user …``)."""
_COMMON = frozenset(
    "python python3 node npm npx pnpm yarn bun bash sh nohup setsid exec run uv dev start serve "
    "server test main app".split()
)


def _ports(text: str) -> set[str]:
    return {a or b for a, b in _PORT_RE.findall(text[:4_000])}


def _pids(text: str) -> set[str]:
    return {next(g for g in m.groups() if g) for m in _PID_RE.finditer(text[:6_000])}


def _words(command: str) -> set[str]:
    """Distinctive words of a command (``uvicorn``, ``http.server``): no flag, number, path."""
    found = set()
    for raw in command.split():
        w = raw.strip("&;'\"()")
        if len(w) >= 5 and not w.startswith("-") and "/" not in w and not w.isdigit():
            if w.lower() not in _COMMON and re.fullmatch(r"[\w.\-:]+", w):
                found.add(w)
    return found


def _names(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(word)}(?![\w])", text) is not None


def later_kill(entries: list[Entry], key: str, command: str, index: int) -> tuple[bool, str]:
    """(sure, how) for the job ``key`` started by ``command`` at entry ``index``: the later
    command that killed it and what of the job it named; ``(False, '')`` when none did."""
    ports, words = _ports(command), _words(command)
    pids: set[str] = set()
    listed: set[str] = set()  # pids a later lsof/ps row listed on its port: maybe another's
    watching: set[str] = set()
    for e in entries:
        if e.index < index or e.internal:
            continue
        for call in e.calls:
            if e.index == index or _names(call.arguments, key):
                watching.add(call.id)
            line = command_of(call) or ""
            if e.index == index or not _KILL_RE.search(line):
                continue
            said = f"`{cut(one_line(line), 120)}`"
            hit = next((p for p in sorted(pids) if _names(line, p)), None)
            if hit is not None:
                return True, f"killed: a later command named its pid {hit}: {said}"
            word = next((w for w in sorted(words) if _names(line, w)), None)
            if word is not None and re.search(r"\b(?:pkill|killall)\b", line):
                return True, f"killed: a later command named `{word}`: {said}"
            port = next((p for p in sorted(ports) if re.search(rf"[:\s]{p}\b", line)), None)
            what = f"its port {port}" if port else ""
            listed_pid = next((p for p in sorted(listed) if _names(line, p)), None)
            what = what or (f"pid {listed_pid}, listed on its port" if listed_pid else "")
            if what:
                return False, f"{MAYBE} (a later kill named {what}: {said})"
        for r in e.results:
            if e.index == index or r.call_id in watching:
                pids |= _pids(r.text)
                ports |= _ports(r.text)
            elif ports or words:
                for row in r.text[:6_000].splitlines():
                    if (m := _ROW_PID_RE.match(row)) is None:
                        continue
                    if any(_names(row, w) for w in words):
                        pids.add(m.group(1))
                    elif any(f":{p}" in row for p in ports):
                        listed.add(m.group(1))
    return False, ""
