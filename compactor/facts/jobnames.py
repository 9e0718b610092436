"""Stops by a program's name (blind check 74 W2): ``pkill NAME``, ``killall NAME``, ``taskkill /IM
NAME.exe``, ``Stop-Process -Name NAME``, ``Get-Process -Name NAME | Stop-Process``.

A successful stop by name ends every process of that program, so every background job of it
started before the stop is over (se_drain: a daemon started with ``$proc = Start-Process
-FilePath …\\engram.exe … -PassThru``, known by its pid 17160, then "Stop any remaining engram
processes": ``Get-Process -Name engram | ForEach-Object { Stop-Process … }``; the summary called
it still running, "do not start it again"). :func:`started_programs` names what a start command
runs (the programs of its segments and a ``Start-Process`` target, no path, no ``.exe``),
:func:`stopped_programs` what a stop command ends by name. ``pkill -f PATTERN`` matches the
whole command line: :func:`stops_by_name` then asks whether the start command holds the pattern.
A stop by pid (``kill 17160``, ``Stop-Process -Id``) is not read here (:mod:`.jobs` does).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import programs

__all__ = ["started_programs", "stopped_programs", "stops_by_name"]

_NAME = r"[\"']?([\w][\w.+\-]{0,80})[\"']?"
_START_PROCESS_RE = lazy_pattern(
    r"\bStart-Process\s+(?:-FilePath\s+)?[\"']?([^\s\"';|]+)", re.IGNORECASE
)
"""A PowerShell ``Start-Process`` and the program it starts (``-FilePath`` or first word)."""
_PKILL_RE = lazy_pattern(
    r"\b(pkill|killall)((?:\s+-{1,2}\w[\w-]*(?:\s+(?:\d+|[A-Z]+))?)*)\s+"
    r"(?:\"([^\"\n]{1,120})\"|'([^'\n]{1,120})'|([^\s;&|\"']{1,120}))"
)
"""``pkill``/``killall`` with its flags (a signal: ``-9``, ``-s KILL``) and its name or pattern."""
_TASKKILL_RE = lazy_pattern(r"\btaskkill\b[^\n;|&]*?/IM\s+" + _NAME, re.IGNORECASE)
_BY_NAME_RE = lazy_pattern(r"(?:\s-(?:Process)?Name|\bGet-Process)\s+(?!-)" + _NAME, re.IGNORECASE)
"""A process name in a PowerShell command that stops processes: ``Stop-Process -Name N``,
``Get-Process N | Stop-Process``, ``Get-Process -Name N | ForEach-Object { Stop-Process … }``."""


def _base(word: str) -> str:
    """A program word without its path, quotes and ``.exe``, lower-case."""
    name = word.strip("'\"()").rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
    return name[:-4] if name.endswith(".exe") else name


def started_programs(command: str) -> frozenset[str]:
    """The programs a start command runs (lower-case, no path or ``.exe``)."""
    names = {_base(p) for p in programs(command)}
    names.update(_base(m.group(1)) for m in _START_PROCESS_RE.finditer(command))
    return frozenset(n for n in names if n)


def stopped_programs(command: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """What a command stops by name: the program names, and the ``pkill -f`` patterns."""
    names: set[str] = set()
    patterns: list[str] = []
    for m in _PKILL_RE.finditer(command):
        word = m.group(3) or m.group(4) or m.group(5) or ""
        flags = m.group(2).split()
        if "-f" in flags or "--full" in flags:
            patterns.append(word)
        else:
            names.add(_base(word))
    names.update(_base(m.group(1)) for m in _TASKKILL_RE.finditer(command))
    if "stop-process" in command.lower():
        names.update(_base(m.group(1)) for m in _BY_NAME_RE.finditer(command))
    names.discard("")
    return frozenset(names), tuple(p for p in patterns if len(p) >= 3)


def stops_by_name(stop: str, start: str, started: frozenset[str]) -> bool:
    """Whether the command ``stop`` ends, by name, the process the command ``start`` started
    (``started``: :func:`started_programs` of it)."""
    names, patterns = stopped_programs(stop)
    if names & started:
        return True
    return any(p in start for p in patterns)
