"""A failure fixed after the agent changed configuration: the change is named (blind check 66
N4, issue 28).

cx-arch: ``git commit`` failed (signing); the agent ran ``git config commit.gpgsign false``,
then the commit succeeded. Section 4 said "Fixed: a later … git commit succeeded", hiding HOW:
commit signing is now off in the user's repository, a side effect the user never approved.
:func:`judge_config_fixes` records in ``ErrorFact.via`` the last successful configuration
change (``git config KEY VALUE``, ``npm/pnpm/yarn/pip config set``, ``export X=…``, ``chmod``,
an append to a dotfile) that ran between a ``fixed`` failure and the call that fixed it;
:func:`via_line` names it in the Fixed line, and calls a repository or user configuration change
(git, npm, pip config, a dotfile) a standing change.
"""

from __future__ import annotations

import bisect
import re
from itertools import islice

from compactor._util import lazy_pattern
from compactor.facts.samecommand import unwrapped

from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line, code

__all__ = ["judge_config_fixes", "via_line"]

_FAR = 400
"""Entries after a failure within which the call that fixed it is looked for."""
_STANDING_RE = lazy_pattern(
    r"(?:^|[;&|(]\s*|\s)(?:git\s+(?:-C\s+\S+\s+)?config\s+(?!(?:--get|--list|-l\b|--show))"
    r"(?:--(?:global|local|system|worktree)\s+)?(?:--unset(?:-all)?\s+[\w.-]+|[\w.-]+\s+\S+)"
    r"|(?:npm|pnpm|yarn|pip3?|uv|poetry|conda)\s+config\s+(?:set|unset|delete|--set|--add)\b"
    r"|>>?\s*\S*\.(?:npmrc|gitconfig|bashrc|zshrc|profile|bash_profile|pypirc|yarnrc))"
)
"""A command that changes repository or user configuration, which stays after the session."""
_SESSION_RE = lazy_pattern(r"(?:^|[;&|(]\s*)(?:export\s+[A-Za-z_]\w*=|chmod\s+\S)")
"""A command that changes the environment or a file's mode (``export X=…``, ``chmod +x``)."""
_HINTS_RE = lazy_pattern(r"config|export|chmod|>>?\s*\S*rc\b|>>?\s*\S*profile")
"""Words one of the changes above needs (a cheap test before splitting a command)."""


def _change(command: str) -> tuple[str, bool] | None:
    """The configuration change ``command`` makes (its part), and whether it is a standing one."""
    for part in re.split(r"\s*(?:&&|\|\||;|\n)\s*", command):
        part = part.strip()
        if _STANDING_RE.search(part) is not None:
            return part, True
        if _SESSION_RE.search(part) is not None:
            return part, False
    return None


def judge_config_fixes(s: Session) -> None:
    """Record the configuration change made before each ``fixed`` failure's fix (docstring)."""
    fixed = [e for e in s.errors if e.after in ("fixed", "fixed by editing") and e.by]
    if not fixed:
        return
    changes = [
        (c.index, found)
        for c in s.calls
        if c.command
        and _HINTS_RE.search(c.command) is not None  # most commands change no configuration
        and c.id not in s.failed_calls
        and (found := _change(unwrapped(c.command))) is not None
    ]
    if not changes:
        return
    starts = [c.index for c in s.calls]
    lines: dict[str, str] = {}  # each call's line, made once
    for err in fixed:
        if changes[-1][0] <= err.index:
            continue
        rerun = None
        for c in islice(s.calls, bisect.bisect_right(starts, err.index), None):
            if c.index - err.index > _FAR:
                break
            if c.id not in lines:
                lines[c.id] = call_line(c, 160)
            if lines[c.id] == err.by:
                rerun = c
                break
        if rerun is None:
            continue
        between = [ch for at, ch in changes if err.index < at < rerun.index]
        if between:
            part, standing = between[-1]
            err.via = ("standing " if standing else "") + part


def via_line(line: str, err: ErrorFact, width: int) -> str:
    """``line`` (the Fixed line of ``err``) naming the configuration change made before the fix."""
    if not err.via or not line.lstrip().startswith("Fixed"):
        return line
    standing = err.via.startswith("standing ")
    part = err.via.removeprefix("standing ")
    named = code(part if len(part) <= width else part[: width - 1] + "…")
    note = (
        " (a standing configuration change, still in effect; the user did not ask for it)"
        if standing
        else ""
    )
    return f"{line.rstrip().rstrip('.')}, after {named}{note}."
