"""A ``git status`` digest is dated when a later call changed what it lists (blind check 53 W1).

cx-commit §5: "git status --short … → untracked (not committed): config/.agents/…, … and 79
more" although the calls after it staged, committed (``[windows d767d66] …``, 89 files) and
pushed exactly that tree, and the user's last question was whether they were committed: a
reader of §5 got the opposite answer. A digest (:data:`~.local_printed.UNTRACKED`,
:data:`~.local_printed.CHANGED`) followed by a successful ``git commit``, ``git stash``,
``git checkout``/``switch``, ``reset``, ``restore`` or ``clean`` is shown as the state before it
("(before commit d767d66, which ran later) untracked (not committed): …"), never as the current
one; a later ``git status`` replaces it anyway (:func:`~.local_printed.read_output`).

Commits the user made between turns are no calls (blind check 69 N4, cx_rtchess: "untracked (not
committed): ai.js, index.js, …" though HEAD moved three times after it). Where the reader saw the
harness's snapshots find HEAD moved (:data:`~compactor.schema.HEAD_MOVED_KEY`, Codex), a digest
before such moves and before any state-changing call is shown as "(before the 3 commits that
followed: HEAD 8570bc1 → b1547ad) untracked (not committed): …".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, shorten
from compactor.schema import HEAD_MOVED_KEY, AgenticMessage, Message

from .local_printed import CHANGED, UNTRACKED, Printed
from .local_session import Session

__all__ = ["DATED", "dated_status", "note_head_moves"]

DATED = "(before "
"""How a dated digest starts (:func:`~.local_listfit.fit_listing` fits the digest after it)."""
_CHANGES_RE = lazy_pattern(
    r"\bgit\s+(?:-C\s+\S+\s+)?(commit|stash(?!\s+(?:list|show)\b)|checkout|switch|reset|"
    r"restore|clean)\b[^;&|\n]*"
)
_HASH_RE = lazy_pattern(r"^\[[^\]\n]*?\b([0-9a-f]{7,40})\]", re.MULTILINE)
"""A commit's header line: ``[main 1a2b3c4] message`` (``[main (root-commit) 1a2b3c4]``)."""


HEADS = "head moves"
"""Key of :attr:`Session.earlier`: where HEAD moved, one ``index old new`` line a move."""


def note_head_moves(s: Session, items: Sequence[Message | AgenticMessage], start: int = 0) -> None:
    """Note on ``s.earlier`` the reader's marks of HEAD moving between turns in ``items`` (the
    first at index ``start``: a kept tail's follow the summarized messages), when a ``git
    status`` digest is among the outputs (nothing is looked at otherwise)."""
    if not any(o[3].startswith((UNTRACKED, CHANGED)) for o in s.outputs):
        return
    moves = [
        f"{i} {m[0] or '-'} {m[1]}"
        for i, msg in enumerate(items, start)
        if msg.extra
        and isinstance(m := msg.extra.get(HEAD_MOVED_KEY), list)
        and len(m) == 2
        and all(isinstance(x, str) for x in m)
    ]
    if moves:
        s.earlier[HEADS] = "\n".join([*s.earlier.get(HEADS, "").splitlines(), *moves])


def _moves_after(s: Session, index: int) -> str:
    """The label of the HEAD moves after ``index`` ("the 3 commits that followed: HEAD 8570bc1
    → b1547ad"); '' when HEAD did not move after it."""
    later = [ln.split() for ln in s.earlier.get(HEADS, "").splitlines()]
    later = [m for m in later if len(m) == 3 and int(m[0]) > index]
    if not later:
        return ""
    old, new = later[0][1], later[-1][2]
    what = (
        "the commit that followed" if len(later) == 1 else f"the {len(later)} commits that followed"
    )
    head = f"HEAD {new[:7]}" if old == "-" else f"HEAD {old[:7]} → {new[:7]}"
    return f"{what}: {head}"


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
        if (
            not event
            and found.startswith((UNTRACKED, CHANGED))
            and (moved := _moves_after(s, index))
        ):
            found = f"{DATED}{moved}) {found}"
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
