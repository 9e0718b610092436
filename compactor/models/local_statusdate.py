"""A ``git status`` digest is dated when a later call changed what it lists (blind check 53 W1).

cx-commit §5: "git status --short … → untracked (not committed): config/.agents/…, … and 79
more" although the calls after it staged, committed (``[windows d767d66] …``, 89 files) and
pushed exactly that tree, and the user's last question was whether they were committed: a
reader of §5 got the opposite answer. A digest (:data:`~.local_printed.UNTRACKED`,
:data:`~.local_printed.CHANGED`) followed by a successful ``git commit``, ``git stash``,
``git checkout``/``switch``, ``reset``, ``restore`` or ``clean`` is shown as the state before it
("(before commit d767d66, which ran later) untracked (not committed): …"), never as the current
one; a later ``git status`` replaces it anyway (:func:`~.local_printed.read_output`).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, shorten

from .local_printed import CHANGED, UNTRACKED, Printed
from .local_session import Session

__all__ = ["DATED", "dated_status"]

DATED = "(before "
"""How a dated digest starts (:func:`~.local_listfit.fit_listing` fits the digest after it)."""
_CHANGES_RE = lazy_pattern(
    r"\bgit\s+(?:-C\s+\S+\s+)?(commit|stash(?!\s+(?:list|show)\b)|checkout|switch|reset|"
    r"restore|clean)\b[^;&|\n]*"
)
_HASH_RE = lazy_pattern(r"^\[[^\]\n]*?\b([0-9a-f]{7,40})\]", re.MULTILINE)
"""A commit's header line: ``[main 1a2b3c4] message`` (``[main (root-commit) 1a2b3c4]``)."""


def dated_status(s: Session) -> list[Printed]:
    """``s.outputs`` with each ``git status`` digest that a later successful state-changing git
    call followed labelled as the state before that call."""
    outputs = s.outputs
    if not any(o[3].startswith((UNTRACKED, CHANGED)) for o in outputs):
        return outputs
    texts = {r.call_id: r.text for e in s.entries for r in e.results}
    later = [
        (c.index, event)
        for c in s.calls
        if c.id in texts and c.id not in s.failed_calls and (event := _event(c, texts[c.id]))
    ]
    dated: list[Printed] = []
    for index, score, line, found in outputs:
        event = next((ev for i, ev in later if i > index), "")
        if event and found.startswith((UNTRACKED, CHANGED)):
            found = f"{DATED}{event}, which ran later) {found}"
        dated.append((index, score, line, found))
    return dated


def _event(call: Call, result: str) -> str:
    """What a state-changing git call did, named for the label ("" when it is none)."""
    match = _CHANGES_RE.search(command_of(call) or "")
    if match is None:
        return ""
    if match.group(1) == "commit" and (head := _HASH_RE.search(result)) is not None:
        return f"commit {head.group(1)}"
    return f"`{shorten(' '.join(match.group(0).split()), 60)}`"
