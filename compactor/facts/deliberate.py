"""A script that stops on purpose and says so (fix57a 4, issue 28).

``python scripts/migrate.py`` printed "Refusing to migrate: the database has 3 pending writes;
stop the app first." (exit 0 or 1), or "Aborting: prod.db is the production database", or "Dry
run: nothing written", or exited 2 with its usage message ("usage: migrate.py …" then
"migrate.py: error: the following arguments are required: --db"). The summary said either "no
tool result … printed an error line" (the step's outcome dropped: a resuming agent would take
the migration as done) or "failed … Not retried" (a crash to fix). Neither: the script refused
by design, and what it refused and why is the step's outcome.

:func:`deliberate_stop` finds the line that says so, by shape: a line among the output's first
:data:`_HEAD` or last :data:`_TAIL` non-blank lines that starts (after a short ``[tag]``,
``ERROR:`` or ``prog:`` prefix) with "Refusing to", "Refused", "Aborting", "Aborted:", "Not
proceeding", "Dry run" / "Dry-run" saying nothing was written or changed (or what would be), or,
for exit code 2, a usage message (its "error:" line when it has one). "Aborted (core dumped)" is
a crash, not a refusal.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["deliberate_stop", "is_deliberate_stop", "may_stop"]

_PREFIX = r"^\s*(?:\[[\w .:\-]{1,30}\]\s*|(?:error|fatal|warning|note)\s*:\s*|[\w.\-]{1,40}:\s+)?"
_STOP_RE = lazy_pattern(
    _PREFIX + r"(?:refus(?:ing|ed?) (?:to\b|:)|refused\b|aborting\b|aborted\s*[:.,\-—]|"
    r"not proceeding\b|dry[- ]run\b(?=.*\b(?:nothing|no (?:changes?|files?|rows?|writes?)|"
    r"would|not (?:written|applied|changed|saved))\b))",
    re.IGNORECASE,
)
_USAGE_RE = lazy_pattern(r"^\s*usage:\s+\S", re.IGNORECASE)
_USAGE_ERROR_RE = lazy_pattern(r"^[\w.\-]+: error: .+$")
_HEAD = 2
_TAIL = 5
_LINE = 300
_ENDS = 1_500
_HINTS = ("efus", "EFUS", "bort", "BORT", "ry run", "ry-run", "RY RUN", "RY-RUN", "proceeding")
"""What every stop line holds: an output without one is not read further."""
"""Characters of an output's start and end that hold its first and last lines."""
_LOW_HINTS = tuple(dict.fromkeys(hint.lower() for hint in _HINTS))
"""The hints lower-cased (an ASCII hint's lower-case form is in the lower-cased text)."""


def is_deliberate_stop(line: str) -> bool:
    """Whether ``line`` says the script stopped on purpose ("Refusing to …", "Aborting: …")."""
    return _STOP_RE.match(line[:_LINE]) is not None


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def may_stop(text: str, code: int | None) -> bool:
    """Whether ``text`` may hold a stop line: a few substring searches (most outputs: no)."""
    if code == 2 and ("sage:" in text or "SAGE:" in text):
        return True
    low = text.lower()  # a hint's lower-case form is in it too: five scans rule most out
    return any(map(low.__contains__, _LOW_HINTS)) and any(map(text.__contains__, _HINTS))


def deliberate_stop(text: str, code: int | None) -> str:
    """The line of a command's output ``text`` (exit code ``code``, its harness header off)
    that says it stopped on purpose, or '' (the module docstring). Only the output's first and
    last lines are read (a few KB, whatever its size)."""
    if not may_stop(text, code):
        return ""
    usage = code == 2 and ("sage:" in text or "SAGE:" in text)
    head = _lines(text[:_ENDS])
    tail = _lines(text[len(text) - _ENDS :])[-_TAIL:] if len(text) > _ENDS else head[-_TAIL:]
    if usage and any(_USAGE_RE.match(ln) for ln in head[:_TAIL]):
        said = next((ln for ln in [*head, *tail] if _USAGE_ERROR_RE.match(ln)), "")
        return (said or next(ln for ln in head if _USAGE_RE.match(ln)))[:_LINE]
    return next((ln[:_LINE] for ln in [*head[:_HEAD], *tail] if is_deliberate_stop(ln)), "")
