"""A "no such file" that came from the call's working directory is no fact about the file.

Blind check 20 (a Codex 0.44 rollout): ``cat .codex/prompts/implement.md`` ran with
``"workdir": ".codex"``, so the path resolved below ``.codex/.codex``; it failed with "No such
file or directory" and the summary kept it as "a fact it established", although the same
command run two calls later from the repository root printed the file. When the same command
(the same tool and words) later succeeded in another directory, and the failure names a relative
path of the command, the failed probe looked in the wrong place: it is reported as fixed by that
later call, with where each ran. A failure about the place itself ("not a git repository") stays
a fact about that place (blind check 15).
"""

from __future__ import annotations

import posixpath

from compactor.facts import Call

from .local_records import ErrorFact
from .local_retries import signature
from .local_session import Session
from .local_text import call_line
from .local_workdir import PLACE, place_of, without_place

__all__ = ["found_elsewhere", "looked_up_as"]


def found_elsewhere(s: Session, err: ErrorFact) -> bool:
    """Mark ``err`` fixed when a later call of the same command succeeded in another directory
    (``err``'s own directory known); True when it did."""
    mine = place_of(err.signature[2])
    if not mine:
        return False
    same = without_place(err.signature[2])
    said = " ".join(err.outcome.lines)
    if not any(_relative(t) and t in said for t in same):
        return False  # not a relative path the command names ("not a git repository": a fact)
    later = next((c for c in s.calls if _same_elsewhere(s, err, c, same, mine)), None)
    if later is None:
        return False
    theirs = place_of(signature(later)[2]).removeprefix(PLACE)
    err.after, err.by = "fixed", call_line(later, 160)
    there = f"in {theirs}" if theirs else "without that directory"
    err.why = (
        f"the failed one ran in {mine.removeprefix(PLACE)}, the path is there when run {there}"
    )
    return True


def _same_elsewhere(
    s: Session, err: ErrorFact, call: Call, same: frozenset[str], mine: str
) -> bool:
    if call.index <= err.index or call.id in s.failed_calls or call.id not in s.answered:
        return False
    if call.command is None:
        return False
    sig = signature(call)
    return sig[0] == err.signature[0] and without_place(sig[2]) == same and place_of(sig[2]) != mine


def _relative(target: str) -> bool:
    """Whether a signature target is a relative path (it depends on the directory)."""
    return bool(target) and not target.startswith(("$ ", "pid ", "/", "~", PLACE))


def looked_up_as(err: ErrorFact) -> str:
    """For a "not found" of a relative path that starts with the name of the directory the call
    ran in (``workdir .codex``, ``cat .codex/prompts/x.md``): `` (it ran in .codex: the path was
    looked up as .codex/.codex/prompts/x.md)``, else "". The file may well exist from the folder
    above; the fact is only about the doubled path (blind check 20)."""
    mine = place_of(err.signature[2]).removeprefix(PLACE)
    if not mine:
        return ""
    said = " ".join(err.outcome.lines)
    base = posixpath.basename(mine.rstrip("/"))
    for target in sorted(without_place(err.signature[2])):  # (a set: one order each run)
        if _relative(target) and target.startswith(base + "/") and target in said:
            return f" (it ran in {mine}: the path was looked up as {posixpath.join(mine, target)})"
    return ""
