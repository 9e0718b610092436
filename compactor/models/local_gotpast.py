"""A failure for a missing program that a later call got past (blind check 14, issue 28).

``chmod +x install.sh && psql --version && …`` failed with ``psql: command not found`` (exit
127); the next calls installed PostgreSQL and ``… && psql --version`` printed its version.
Section 4 said so, yet section 7 listed the chain as an "Unresolved failure". A failure whose
error names a program that is not there is fixed once a later call runs that program (in any
part of its chain) and does not fail: :func:`judge_got_past` marks it ``fixed``.
"""

from __future__ import annotations

import re

from compactor.facts import Call
from compactor.facts.outcomes import command_of, programs

from .local_session import ErrorFact, Session
from .local_text import call_line, code

__all__ = ["judge_got_past", "missing_program"]

_MISSING_RE = re.compile(
    r"(?:^|[\s:])([\w.+-]+): (?:command )?not found\b"
    r"|command not found: ([\w.+-]+)"
    r"|['\"]?([\w.+-]+)['\"]? is not recognized as",
    re.IGNORECASE,
)


def missing_program(err: ErrorFact) -> str:
    """The program the failure's error lines say is not there (``psql``), or ""."""
    for line in err.outcome.lines:
        found = _MISSING_RE.search(line)
        if found is not None:
            name = next(g for g in found.groups() if g)
            if name.lower() not in ("bash", "sh", "zsh", "line"):
                return name
    return ""


def _ran_it(call: Call, program: str, s: Session, flying: set[str]) -> bool:
    command = command_of(call)
    if command is None or call.id in s.failed_calls or call.id in flying:
        return False
    return program in programs(command)


def judge_got_past(s: Session) -> None:
    """Mark ``fixed`` each open failure for a missing program that a later call ran without
    failing (the program is there now)."""
    flying = {c.id for c in s.in_flight}
    for err in s.errors:
        if err.after:  # (a later attempt already judged: its verdict stands)
            continue
        program = missing_program(err)
        if not program:
            continue
        later = next(
            (c for c in s.calls if c.index > err.index and _ran_it(c, program, s, flying)), None
        )
        if later is not None:
            err.after, err.by = "fixed", call_line(later, 160)
            err.why = f"{code(program)} is there now and ran without failing"
