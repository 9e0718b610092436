"""The Copilot event types the conversation is made of: one owner for :mod:`.copilot` (the
reader) and :mod:`._copilot_write` (the writer), so each imports it at the top and neither the
other."""

from __future__ import annotations

__all__ = ["ASSISTANT", "RESULT", "START", "SYSTEM", "USER"]

USER, ASSISTANT, RESULT, SYSTEM = (
    "user.message",
    "assistant.message",
    "tool.execution_complete",
    "system.message",
)
START = "tool.execution_start"
