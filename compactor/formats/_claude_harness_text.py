"""Text blocks Claude Code writes beside tool results in one user record (blind check 60 W2).

A user record that answers tool calls (``tool_result`` blocks) holds no typed prompt: the user's
words come in a record of their own. A text block riding in such a record is the harness's
(ToolSearch's "Tool loaded.", an interruption marker): it is kept in the history and written
back as it was, but it is never read as a request nor listed among the user's messages.
"""

from __future__ import annotations

from compactor.schema import HARNESS_TEXT_KEY, AgenticMessage

__all__ = ["mark_harness_text"]


def mark_harness_text(msg: AgenticMessage) -> None:
    """Mark ``msg`` (a user record's message) when its text blocks sit beside tool results."""
    types = {b.type for b in msg.blocks}
    if "function_tool_result" in types and "user_input_text" in types:
        msg.extra[HARNESS_TEXT_KEY] = True
