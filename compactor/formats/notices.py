"""How a harness opens the notices it writes into a session as user text (public: ``facts/``
reads them to tell a background job's end from a user's words).

Claude Code writes a background task's, shell's or async agent's end as a user message (or a
queued one) that opens with one of :data:`NOTICE_TAGS`: ``<task-notification>`` (2.1.x),
``<agent-notification>`` (2.0.x, an async agent) and ``<bash-notification>`` (2.0.x, a
background shell).
"""

from __future__ import annotations

__all__ = ["NOTICE_TAGS"]

NOTICE_TAGS = ("<task-notification>", "<agent-notification>", "<bash-notification>")
"""How a CLI's notification that a background task, shell or async agent stopped opens."""
