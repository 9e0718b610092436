"""Section 7's lines for the open items of the agent's own task list (moved out of
:mod:`compactor.models.local` to make room)."""

from __future__ import annotations

from compactor.facts import cut

from .local_session import Session

__all__ = ["task_items"]


def task_items(s: Session, item: int, most: int) -> list[str]:
    """The open task-list items, ``most`` of them cut to ``item`` characters (none when none)."""
    open_tasks = s.open_tasks
    if not open_tasks:
        return []
    tool = open_tasks[0].tool
    done = len(s.tasks) - len(open_tasks)
    items = [f"Open items of the agent's task list ({tool}; {done} of {len(s.tasks)} done):"]
    items.extend(f"  [{t.status}] {cut(t.subject, item)}" for t in open_tasks[:most])
    if len(open_tasks) > most:  # a list shown in part says so (blind check 11)
        items.append(f"  ({len(open_tasks) - most} more)")
    return items
