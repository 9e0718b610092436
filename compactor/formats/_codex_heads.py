"""Where a Codex rollout's snapshots show HEAD moved between turns (blind check 69 N4).

Codex writes a ``ghost_snapshot`` item at a turn's start: an undo commit whose ``parent`` is the
repository's HEAD then. cx_rtchess's user committed three times between turns, never by a call:
the parents moved ``8570bc1 → c9fa1a6 → 95c378e → b1547ad`` while the summary quoted a
``git status -sb`` from before as "untracked (not committed): ai.js, …". :func:`note_head_moves`
marks the first message after each snapshot whose parent differs from the snapshot before
(:data:`~compactor.schema.HEAD_MOVED_KEY`); the summarizer dates such a status
(:mod:`compactor.models.local_statusdate`).
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import HEAD_MOVED_KEY, Message

from ._jsonl import Line

__all__ = ["note_head_moves"]


def note_head_moves(
    messages: Sequence[Message], origin: Sequence[Sequence[int]], lines: Sequence[Line]
) -> None:
    """Mark ``messages[k]`` with ``[old, new]`` when a snapshot among the records it was read
    with (``origin[k]``: the items before it that are no message) found HEAD at ``new`` and the
    snapshot before at ``old`` (``""``: no commit yet)."""
    head: str | None = None  # None: no snapshot yet
    for k, indexes in enumerate(origin):
        if len(indexes) < 2:
            continue  # the message's own record alone (or an event): no snapshot with it
        for i in indexes:
            payload = lines[i].obj.get("payload")
            if type(payload) is not dict or payload.get("type") != "ghost_snapshot":
                continue
            ghost = payload.get("ghost_commit")
            parent = ghost.get("parent") if isinstance(ghost, dict) else None
            if not isinstance(parent, str) or not parent:
                head = "" if head is None else head  # no commit yet (or none read): no move
                continue
            if head is not None and parent != head:
                messages[k].extra[HEAD_MOVED_KEY] = [head, parent]
            head = parent
