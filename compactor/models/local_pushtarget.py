"""Which remote and branch a ``git push`` went to, so that one push's failure is judged only
against pushes of the same (remote, branch) (fix57a 2, issue 28).

A bare ``git push`` that succeeded (``3f2a1b0..9c8d7e6  main -> main``, or "Everything
up-to-date") was reported as contradicted by a LATER push of another branch or remote that
failed (``git push origin release`` rejected), and a later failed push of the same branch was
hidden when a push of another branch succeeded after it. :func:`push_target` reads the target
from the command (``git push REMOTE SRC:DST``) and, for what it leaves open, from the output (a
``src -> dst`` line) or from the session (a bare push goes to the current branch's upstream: the
branch a ``git commit``, ``git checkout``/``switch`` or ``git status`` output named last);
:func:`same_target` compares two (an unknown part matches any; the upstream is ``origin``
unless a push named another remote).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of

from .local_session import Session

__all__ = ["Target", "output_of", "push_target", "same_target"]

Target = tuple[str, str]
"""(remote, branch): ``""`` for a part nothing names (a bare push's remote: the upstream)."""

_PUSH_ARGS_RE = lazy_pattern(r"\bgit\b[^|;&\n]*?\bpush\b([^|;&\n]*)")
_ARROW_RE = lazy_pattern(
    r"^\s*(?:[+\-*=!]\s+)?(?:\[[^\]]+\]\s+|\S+\.\.\.?\S+\s+)?(\S+) -> (\S+)", re.M
)
_BRANCH_RE = lazy_pattern(
    r"^\[([\w./\-]+)(?: \(root-commit\))? [0-9a-f]{7,40}\]|^On branch ([\w./\-]+)|"
    r"^Switched to (?:a new )?branch '([\w./\-]+)'|^Already on '([\w./\-]+)'",
    re.M,
)
_UPSTREAM = "origin"
_LOOK_BACK = 400
"""Entries before a bare push read for the current branch."""


def push_target(s: Session, call: Call, output: str) -> Target:
    """The (remote, branch) ``call`` (a ``git push``) went to (the module docstring)."""
    found = _PUSH_ARGS_RE.search(command_of(call) or "")
    words = [w.strip("'\"") for w in found.group(1).split()] if found else []
    words = [w for w in words if not w.startswith("-") and w not in ("2>&1", "&>")]
    remote = words[0] if words else ""
    branch = words[1].rsplit(":", 1)[-1].lstrip("+") if len(words) > 1 else ""
    if not branch and (arrow := _ARROW_RE.search(output)):
        branch = arrow.group(2)
    if not branch and remote in ("", _UPSTREAM):
        branch = _current_branch(s, call.index)
    return remote, branch.removeprefix("refs/heads/")


def same_target(one: Target, two: Target) -> bool:
    """Whether two pushes went to the same remote and branch (a part unknown matches)."""
    remote = one[0] == two[0] or {one[0] or _UPSTREAM, two[0] or _UPSTREAM} == {_UPSTREAM}
    return remote and (not one[1] or not two[1] or one[1] == two[1])


def _current_branch(s: Session, before: int) -> str:
    """The branch the latest output before entry ``before`` names as the current one."""
    for entry in reversed(s.entries[max(0, before - _LOOK_BACK) : before]):
        if entry.role != "user":
            continue
        for result in entry.results:
            text = result.text[:2_000]
            if "[" in text or "branch" in text or "Already on" in text:
                for m in reversed(list(_BRANCH_RE.finditer(text))):
                    return next(g for g in m.groups() if g)
    return ""


def output_of(s: Session, call: Call) -> str:
    """The text of ``call``'s result ('' when none came back)."""
    for entry in s.entries[call.index : call.index + _LOOK_BACK]:
        for result in entry.results:
            if result.call_id == call.id:
                return result.text
    return ""
