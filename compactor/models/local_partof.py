"""A later call that redoes only a part of a failed chain is no workaround (blind check 18 brief).

``git add -A && git push`` failed (the push was rejected); the next call ``git add -A``
succeeded, and section 4 said "Worked around by `git add -A`": the failure's goal program was
taken from the chain's first step, which the later call shares. The step that failed is one the
later call does not run. :func:`only_a_part` tells that shape: the later chain shares working
steps with the failed one, the failed chain has a working step (not a read) the later one does
not share, and no other step of the later chain runs that step's program (``git push --force``
would; ``git status`` or ``git commit`` does not).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.commands import is_reading_program, programs
from compactor.facts.shellwrap import inner_command

from .local_gotpast import Steps, chain_steps

__all__ = ["only_a_part"]

_STEP_TOOLS = frozenset(
    "git docker kubectl systemctl npm pnpm yarn bun cargo go uv poetry dotnet mvn gradle".split()
)
"""Programs whose second word names the step (``git push``, ``npm run``)."""


_QUOTED_RE = lazy_pattern(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
"""A quoted word (a regex's ``|`` in ``grep -E 'a|b'`` is no pipe)."""


_SEPARATORS_RE = lazy_pattern(r"[|;&\n]")


def _masked(quoted: re.Match[str]) -> str:
    return _SEPARATORS_RE.sub("_", quoted.group(0))


def _steps(call: Call) -> Steps:
    """The working steps of the call's chain (:func:`chain_steps`), quoted words kept whole
    (a quoted ``|``, ``;`` or ``&`` separates nothing)."""
    return chain_steps(_QUOTED_RE.sub(_masked, inner_command(call) or ""))


def _program(step: tuple[str, ...]) -> tuple[str, ...]:
    return step[:2] if step[0] in _STEP_TOOLS else step[:1]


def _works(step: tuple[str, ...]) -> bool:
    names = programs(" ".join(step))
    return bool(names) and not all(is_reading_program(n) for n in names)


def only_a_part(failed: Call, later: Call) -> bool:
    """Whether ``later`` redoes only steps of the failed chain that are not the one left undone
    (module docstring)."""
    if failed.command is None or later.command is None:
        return False
    mine = _steps(failed)
    if len(mine) < 2:
        return False
    theirs = _steps(later)
    shared = set(mine) & set(theirs)
    if not shared:
        return False
    undone = {_program(st) for st in mine if st not in shared and _works(st)}
    if not undone:
        return False  # the failed chain's other steps only read: the later one did its work
    return not any(_program(st) in undone for st in theirs if st not in shared)
