"""The four record types of an oh-my-opencode hook transcript: one owner for
:mod:`.opencode_hooks` (the reader) and :mod:`._opencode_hooks_write` (the writer), so each
imports it at the top and neither the other."""

from __future__ import annotations

__all__ = ["ASSISTANT", "CALL", "RECORD_TYPES", "RESULT", "USER"]

USER, ASSISTANT, CALL, RESULT = "user", "assistant", "tool_use", "tool_result"
RECORD_TYPES = frozenset({USER, ASSISTANT, CALL, RESULT})
