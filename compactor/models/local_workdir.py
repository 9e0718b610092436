"""Where a shell call ran, for telling a retry from a run elsewhere (issue 28).

Blind check 15 (a Codex 0.77 rollout): ``git status -sb`` failed with exit 128 ("not a git
repository") in the call's ``workdir``; the same command later succeeded with another ``workdir``
(a repository below it), and the summary said "Fixed: a later git status -sb succeeded" although
the first place still was no repository. A call's directory is its ``workdir`` / ``cwd`` argument
(Codex's shell tools), moved by a leading ``cd DIR &&`` or PowerShell's ``Set-Location -Path
DIR;`` (blind check 33: the directory is no target the command names); :func:`place` gives it as
a signature target (``@ /dir``) and :func:`same_place` tells two apart. A call whose directory is
not known (no argument, no leading ``cd``) matches any.
"""

from __future__ import annotations

import posixpath

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.samecommand import leading_cd

__all__ = ["PLACE", "place", "place_of", "same_place", "without_place"]

PLACE = "@ "
"""Prefix of the signature target that names the directory a call ran in."""
_DIR_KEYS = ("workdir", "cwd")
_DRIVE_RE = lazy_pattern(r"[A-Za-z]:[\\/]")


def place(call: Call, command: str) -> str:
    """The directory the call's command ran in as a signature target, or "" when unknown."""
    args = call.args
    where = next((v for k in _DIR_KEYS if isinstance(v := args.get(k), str) and v), "")
    moved = leading_cd(command)[0]  # `cd DIR &&`, `Set-Location -Path DIR;` (blind check 33)
    if moved and not moved.startswith(("~", "$", "-")):
        if _DRIVE_RE.match(moved):  # a Windows path: C:\\Users\\x
            where = moved
        else:
            where = posixpath.normpath(posixpath.join(where, moved)) if where else moved
    return PLACE + where.rstrip("/\\") if where else ""


def place_of(targets: frozenset[str]) -> str:
    """The directory target of a shell signature's targets (``@ /dir``), or "" when unknown."""
    for t in targets:
        if t.startswith(PLACE):
            return t
    return ""


def same_place(failed: frozenset[str], later: frozenset[str]) -> bool:
    """Whether two shell signatures' targets may name the same directory (either unknown: yes)."""
    mine = place_of(failed)
    if not mine:
        return True
    theirs = place_of(later)
    return not theirs or theirs == mine


def without_place(targets: frozenset[str]) -> frozenset[str]:
    """The targets without the directory (it is no shared target of two commands)."""
    return frozenset(t for t in targets if not t.startswith(PLACE)) if targets else targets
