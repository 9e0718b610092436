"""One item of the agent's plan (moved from :mod:`.local_session`, which holds them)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DONE_STATUSES", "Task"]

DONE_STATUSES = frozenset({"completed", "complete", "done", "cancelled", "canceled", "deleted"})


@dataclass(slots=True)
class Task:
    """One item of the agent's plan."""

    key: str
    subject: str
    status: str
    tool: str

    @property
    def done(self) -> bool:
        return self.status.lower().replace(" ", "_") in DONE_STATUSES
