"""A rerun of the same command that got past a failure and failed with another error (blind
check 37, W1).

cx-oidc: ``docker compose run --rm api python manage.py migrate`` failed in the sandbox
("permission denied while trying to connect to the Docker daemon socket"); the very next call,
the same command run outside the sandbox (escalated), reached Django and failed for another
reason (a missing certificate). A later call of another command (the same migrate with other
``-e`` overrides) was rejected by the user, and section 4 said of the first failure "Not fixed:
the user rejected a later …": the rejected call inherited it. The socket denial was past: the
escalation got past it, and only the newer error was open.

:func:`judge_new_error` settles such a failure as ``got past``: the first later failure of the
same command (:func:`compactor.facts.samecommand.core_command`: a wrapper, ``cd``, environment
assignments or a runner aside) whose error is another one (neither error line holds the other,
numbers aside) supersedes it; what came after that rerun is the rerun's own story. A rerun that
the user stopped or rejected, or that failed with the same error, settles nothing.

Blind check 78 W2 (sh_whichkey): ``cd ~/x && …`` and ``cd /home/u/x && …`` both failed with
"ERROR: cd to '<path>' was blocked …", the paths differing; section 4 said the rerun "got past
this error, then failed with another". The errors compare with quoted text, paths and ids
(hex, UUIDs) aside, as numbers were already.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import STOPPED, cut
from compactor.facts.samecommand import core_command

from .local_records import ErrorFact
from .local_session import Session
from .local_text import code, quote

__all__ = ["GOT_PAST", "got_past_line", "judge_new_error"]

GOT_PAST = "got past"
"""The ``after`` of a failure a rerun of the same command got past (then failed otherwise)."""
_OPEN = ("", "failed again", "interrupted")
"""Verdicts a later rerun's new error overrides: none, failed again, a later call refused."""
_ENDED = (STOPPED, "The user rejected")
_DIGITS_RE = lazy_pattern(r"\d+")
_VARIABLE_RE = lazy_pattern(
    r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`"  # a quoted name, path or value
    r"|(?<![\w/~.])[~.]?/[^\s'\",;:)]*"  # a path
    r"|[\w.-]*/[\w.-]*/[^\s'\",;:)]*"  # a relative path with two separators
    r"|\b[0-9a-f]{8,}(?:-[0-9a-f]{4,})*\b"  # an id: a hash, a UUID
)
_ERROR_CHARS = 200
_WORDS = 12  # letters an error line keeps, paths aside, to be compared without them


def _command(err: ErrorFact) -> str:
    return next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")


def _plain(line: str) -> str:
    """The error line with its paths, quoted names, ids and numbers made alike."""
    folded = line.casefold()
    alike = _VARIABLE_RE.sub("…", folded)
    if sum(c.isalpha() for c in alike) < _WORDS:  # the line is little but a path: keep it
        alike = folded
    return " ".join(_DIGITS_RE.sub("#", alike).split())


def _other_error(first: ErrorFact, later: ErrorFact) -> bool:
    """Whether ``later`` failed with another error than ``first`` (numbers aside)."""
    mine, theirs = first.outcome.lines, later.outcome.lines
    if not mine or not theirs or first.outcome.stand_in or later.outcome.stand_in:
        return False
    one, two = [_plain(x) for x in mine], [_plain(x) for x in theirs]
    return not any(a in b or b in a for a in one for b in two)


def judge_new_error(s: Session) -> None:
    """Settle as :data:`GOT_PAST` each failure whose first later failed rerun of the same
    command failed with another error."""
    shells = [e for e in s.errors if e.signature[0] == "shell" and _command(e)]
    if len(shells) < 2:
        return
    cores = {id(e): core_command(_command(e)) for e in shells}
    for n, err in enumerate(shells):
        if err.after not in _OPEN or err.outcome.lines[:1] == () or not cores[id(err)]:
            continue
        if err.outcome.lines[0].startswith(_ENDED):
            continue
        rerun = next((e for e in shells[n + 1 :] if cores[id(e)] == cores[id(err)]), None)
        if rerun is None or rerun.outcome.lines[:1] == ():
            continue
        if rerun.outcome.lines[0].startswith(_ENDED) or not _other_error(err, rerun):
            continue
        err.after, err.by = GOT_PAST, cut(rerun.call, 160)
        err.why = cut(rerun.outcome.lines[0], _ERROR_CHARS)


def got_past_line(err: ErrorFact, width: int) -> str:
    """Section 4's line for a failure a rerun got past."""
    return (
        f"  Got past it: {code(err.by)}, the same command run again, got past this error, then "
        f"failed with another ({quote(err.why, width)}), listed on its own."
    )
