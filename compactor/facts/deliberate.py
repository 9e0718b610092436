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

__all__ = ["deliberate_stop", "is_deliberate_stop"]

_PREFIX = r"^\s*(?:\[[\w .:\-]{1,30}\]\s*|(?:error|fatal|warning|note)\s*:\s*|[\w.\-]{1,40}:\s+)?"
_STOP_RE = lazy_pattern(
    _PREFIX + r"(?:refus(?:ing|ed?) (?:to\b|:)|refused\b|aborting\b|aborted\s*[:.,\-—]|"
    r"not proceeding\b|dry[- ]run\b(?=.*\b(?:nothing|no (?:changes?|files?|rows?|writes?)|"
    r"would|not (?:written|applied|changed|saved))\b))",
    re.IGNORECASE,
)
_USAGE_RE = lazy_pattern(r"^\s*usage:\s+\S", re.IGNORECASE)
_USAGE_ERROR_RE = lazy_pattern(r"^[\w.\-]+: error: .+$")
_HINTS = ("efus", "EFUS", "bort", "BORT", "ry run", "ry-run", "RY RUN", "RY-RUN", "proceeding")
_HEAD = 2
_TAIL = 5
_LINE = 300


def is_deliberate_stop(line: str) -> bool:
    """Whether ``line`` says the script stopped on purpose ("Refusing to …", "Aborting: …")."""
    return _STOP_RE.search(line[:_LINE]) is not None


def deliberate_stop(text: str, code: int | None) -> str:
    """The line of a command's output ``text`` (exit code ``code``) that says it stopped on
    purpose, or '' (the module docstring)."""
    if code == 2 and ("usage:" in text or "Usage:" in text or "USAGE:" in text):
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        if any(_USAGE_RE.match(ln) for ln in lines[:_TAIL]):
            said = next((ln for ln in lines if _USAGE_ERROR_RE.match(ln)), "")
            return (said or next(ln for ln in lines if _USAGE_RE.match(ln)))[:_LINE]
    if not any(h in text for h in _HINTS):
        return ""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    ends = lines[:_HEAD] + lines[max(_HEAD, len(lines) - _TAIL) :]
    return next((ln[:_LINE] for ln in ends if is_deliberate_stop(ln)), "")
