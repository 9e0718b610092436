"""A "Killed …" line a command printed on purpose, not the shell's report of a process that died
of SIGKILL (blind check 27, W1).

``kill -9 2119063 2>/dev/null; echo "Killed root process 2119063"`` prints its own report of the
kill; the result had no error flag and no exit code, yet the word "killed" made its line an
error line and the summary said the kill "failed". The shell's own report has fixed shapes: a
bare ``Killed`` line, macOS's ``Killed: 9``, bash's ``line 1: 4242 Killed      python x.py``,
a job table's ``[1]+  Killed   …``, zsh's ``zsh: killed     python x.py``; Go's ``signal:
killed``. Those stay failures. A line that only holds the word "killed" (no other error word),
printed by a call not flagged as failed whose command kills (``kill``, ``pkill``, ``killall``,
``taskkill``, ``fuser -k``) or itself prints the word (``echo``/``printf`` of it, not after
``||``), went on; so does a bare ``Killed`` the command itself echoes. A line that names the
pid it killed (``Killed PID 33964``, ``Killed process 4242``: a cleanup script run before a
restart, ``.\\cleanup.ps1; ssh -f …``, blind check 62 W2) is its own report of a kill whatever
the command's words: no shell reports a SIGKILL in that order.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .shellwrap import inner_command
from .text import Call

__all__ = ["ERROR_WORDS", "own_kill_report", "sigkill_report"]

_SIGKILL_RE = lazy_pattern(
    r"^(?:Killed(?::?\s*9)?"  # a bare "Killed", macOS "Killed: 9"
    r"|(?:\S+: )?(?:line \d+: )?\d+ Killed\b.*"  # bash: "bash: line 1: 4242 Killed  python x"
    r"|\S+: (?:line )?\d+: Killed\b.*"  # dash: "sh: 1: Killed"
    r"|\[\d+\][+-]?\s+Killed\b.*"  # a job table: "[1]+  Killed   python x"
    r"|(?:zsh|bash|sh|fish): killed\b.*"  # zsh: "zsh: killed     python x"
    r"|.*\bsignal: killed"  # Go's exec: "signal: killed"
    r"|.*\b(?:killed by signal|OOM[- ]?kill(?:ed|er)\b|SIGKILL\b).*"
    r")$",
    re.IGNORECASE,
)
"""The shapes in which a shell, a runtime or the kernel reports a process killed by SIGKILL."""
_KILLS_RE = lazy_pattern(
    r"(?:^|[\s;&|(`])(?:sudo\s+)?(?:kill|pkill|killall|taskkill|fuser\s+(?:-\w+\s+)*-k\w*)\b"
    r"|Stop-Process\b",
    re.IGNORECASE,
)
"""A command that kills processes (``kill -9 N``, ``pkill -f x``, ``… | xargs kill``)."""
_NAMES_PID_RE = lazy_pattern(
    r"^\W*(?:successfully\s+)?killed\s+(?:old\s+|stale\s+|previous\s+)?"
    r"(?:pid|process(?:es)?|processo)\b[\s:#=]*\d+",
    re.IGNORECASE,
)
"""A line that names the pid a command's own cleanup killed (``Killed PID 33964``)."""
_ECHO_RE = lazy_pattern(r"\b(?:echo|printf|Write-(?:Host|Output))\b([^\n;&|]*)", re.IGNORECASE)
"""A command's own printing (``echo "Killed root process N"``): its text."""
ERROR_WORDS = (
    "rror",
    "xception",
    "ail",
    "atal",
    "anic",
    "ritical",
    "not found",
    "denied",
    "not permitted",
    "timed out",
    "egmentation",
    "emory",
)
"""Words of an error line (lower-cased, cut so that any case of their first letter holds them),
shared with :data:`compactor.facts.outcomes._ERROR_HINTS`, which extends them."""
_OTHER_ERROR_WORDS = (*ERROR_WORDS, "o such", "annot")
"""Words that make a line more than a report of a kill (``kill: (N) - No such process``): the
shared ones, with "o such" and "annot" wider than the hints' "o such file" and "annot find"
(any "no such …", "cannot …" is more than a kill); never "illed" (the kill report's own word)."""


def sigkill_report(line: str) -> bool:
    """Whether ``line`` is a shell's, runtime's or kernel's report of a SIGKILL."""
    return _SIGKILL_RE.match(line.strip()) is not None


def _echoed(command: str) -> list[str]:
    """The texts ``command`` prints itself, lower-cased, quotes aside; not those after ``||``
    (``run || echo "killed by the timeout"`` reports a failure of ``run``)."""
    return [
        m.group(1).strip().strip("'\"").strip().lower()
        for m in _ECHO_RE.finditer(command)
        if not command[: m.start()].rstrip().endswith("||")
    ]


def own_kill_report(call: Call | None, lines: list[str]) -> bool:
    """Whether the error-like ``lines`` of a call not flagged as failed are only its own report
    of a kill: each says "killed" and nothing else error-like, and either the command prints
    that very line itself, or the line has no SIGKILL report's shape and the command kills
    processes or prints the word "killed" (module docstring)."""
    if call is None or not lines:
        return False
    command = inner_command(call)
    if not command:
        return False
    prints = "echo" in command or "print" in command or "Write-" in command
    echoed = _echoed(command) if prints else []
    kills = any("killed" in e for e in echoed) or _KILLS_RE.search(command) is not None
    if not kills and not all(_NAMES_PID_RE.match(line.strip()) for line in lines):
        return False
    for line in lines:
        low = line.lower()
        if "killed" not in low or any(w in low.replace("killed", " ") for w in _OTHER_ERROR_WORDS):
            return False
        if sigkill_report(line) and low.strip() not in echoed:
            return False
    return True
