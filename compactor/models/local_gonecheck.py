"""A check that a path the agent had just removed is gone is no failure, nor is a script that
stopped on purpose a crash (fix57a 1 and 4, issue 28).

``rm -rf build/`` in one call, then ``ls build`` (or ``ls build 2>&1``, ``stat build``) in a
later one: ``ls`` exits 2 with "No such file or directory". That answer CONFIRMS the removal; the
summary listed it as a failed call ("Not retried afterwards") and, as the last call, section 7
as an "Unresolved failure", which would have a resuming agent recreate the folder. The same
check in the removing command itself (``rm -rf X && ls X``) is judged by the outcome
(:func:`compactor.facts.absence.confirms_removal`).

By shape (:func:`judge_gone_checks`): every error line of a failed call says a path is missing
that the call lists or tests (:func:`compactor.facts.absence.missing_checked`), and the
latest earlier call that names that path removed it (:func:`compactor.facts.absence.removed_paths`),
within the last :data:`_LOOK_BACK` calls. A check of a path no call removed (``ls dist``), or one
a call between them may have made again, stays a failure.

:func:`judge_on_purpose`: a script that refused by design and said so ("Refusing to …",
"Aborting: …", "Dry run: nothing written", exit 2 with its usage message:
:mod:`compactor.facts.deliberate`) stopped on purpose; section 4 lists its words as the step's
outcome (what was refused and why), section 7 no "Unresolved failure".
"""

from __future__ import annotations

from compactor.facts import Call, cut
from compactor.facts.absence import missing_checked, removed_paths, says_missing

from .local_again import CONFIRMED_GONE, ON_PURPOSE, OPEN
from .local_records import ErrorFact
from .local_session import Session

__all__ = ["judge_gone_checks", "judge_on_purpose"]

_LOOK_BACK = 12
"""Calls before the check that may hold the removal ("right after": a few calls at most)."""


def judge_on_purpose(s: Session) -> None:
    """Mark :data:`ON_PURPOSE` each open failure whose output says the script stopped on
    purpose (fix57a 4: "Refusing to …", "Aborting: …", "Dry run: nothing written", exit 2 with
    its usage): what it refused and why is the step's outcome, not a crash to fix."""
    for err in s.errors:
        if err.after in OPEN and err.outcome.on_purpose and err.outcome.lines:
            err.after, err.by, err.why = ON_PURPOSE, "", err.outcome.lines[0]


def judge_gone_checks(s: Session) -> None:
    """Mark :data:`CONFIRMED_GONE` each open failure that only checked that a path an earlier
    call removed is gone (the module docstring); :attr:`ErrorFact.why` names the removal."""
    for err in s.errors:
        lines = err.outcome.lines
        if err.after not in OPEN or not lines or not all(says_missing(x) for x in lines):
            continue
        call = _call_of(s, err)
        if call is None or not call.command:
            continue
        before = [c for c in s.calls if c.index < call.index][-_LOOK_BACK:]
        removal = _removal(call.command, lines, before)
        if removal:
            err.after, err.by = CONFIRMED_GONE, ""
            err.why = f"it confirmed that the earlier `{cut(removal, 120)}` removed what it checked"


def _call_of(s: Session, err: ErrorFact) -> Call | None:
    """The failed call ``err`` records (the latest failed call up to its result that runs the
    command its call line shows)."""
    found = None
    for call in s.calls:
        if call.index > err.index:
            break
        if call.id in s.failed_calls and call.command and call.command[:40] in err.call:
            found = call
    return found


def _removal(command: str, lines: tuple[str, ...], before: list[Call]) -> str:
    """The command of the latest call in ``before`` that names the paths ``lines`` say are
    missing, when it removed them all; '' otherwise."""
    said = [missing_checked(command, x) for x in lines]
    if not all(said):
        return ""  # a line that names no path the call checked: another failure
    missing = frozenset().union(*said)
    for call in reversed(before):
        earlier = call.command or _written(call)
        if not any(path in earlier for path in missing):
            continue
        return earlier if missing <= removed_paths(call.command) else ""
    return ""  # (a call that named the path and did not remove it may have made it again)


def _written(call: Call) -> str:
    """The file a file-writing tool call names (``Write``'s ``file_path``), if any."""
    path = call.args.get("file_path") or call.args.get("path")
    return path if isinstance(path, str) else ""
