"""What a Claude Code file says of the session that no message of its history carries (blind
check 33): the permission mode it was last in, and whether the user interrupted the last turn
before its own compaction.

* Claude Code 2.1.x writes ``{"type": "permission-mode", "permissionMode": "plan"}`` records
  when the mode changes, and the ``permissionMode`` of each user record: the latest one is the
  mode the session resumes in. In ``plan`` mode the agent may not edit files; it presents its
  plan with ``ExitPlanMode`` for the user's approval first. The mode is put on the history's
  last message (:data:`~compactor.schema.PERMISSION_MODE_KEY`).
* The records before a ``compact_boundary`` are no part of the history: when the last user
  record before it is the CLI's ``[Request interrupted by user]`` notice (the ``/compact``
  command's own records skipped), the work the compaction's summary lists as pending is the
  work the user stopped, then replaced with a new request (:data:`INTERRUPTED_BEFORE_KEY` on
  the summary message).
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import INTERRUPTED_BEFORE_KEY, PERMISSION_MODE_KEY, AgenticMessage

from . import _jsonl
from ._claude_texts import content_texts

__all__ = ["interrupted_before", "last_mode", "mark_modes"]

_INTERRUPT = "[Request interrupted by user"
_CLI_TEXTS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-",
    "Caveat: The messages below",
)
"""How the records of a local command (``/compact``) the CLI wrote begin: not the user's turn."""
_LOOK_BACK = 400  # records before the boundary looked at for the last user turn


def last_mode(lines: Sequence[_jsonl.Line]) -> str:
    """The permission mode of the newest record that carries one ('' when none does)."""
    for ln in reversed(lines):
        mode = ln.obj.get("permissionMode")
        if isinstance(mode, str) and mode and not ln.obj.get("isSidechain"):
            return mode
    return ""


def interrupted_before(lines: Sequence[_jsonl.Line], start: int) -> bool:
    """Whether the last user turn before the history's start (line index ``start``, the line
    after a compaction boundary) is the CLI's notice that the user interrupted it."""
    for i in range(start - 1, max(-1, start - 1 - _LOOK_BACK), -1):
        rec = lines[i].obj
        kind = rec.get("type")
        if kind not in ("user", "assistant") or rec.get("isSidechain") or rec.get("isMeta"):
            continue
        if kind == "assistant":
            return False
        body = rec.get("message")
        content = body.get("content") if isinstance(body, dict) else ""
        texts = [t.lstrip() for t in content_texts(content, tool_results=True)]
        if any(t.startswith(_INTERRUPT) for t in texts):
            return True
        if any(t and not t.startswith(_CLI_TEXTS) for t in texts):
            return False
    return False


def mark_modes(
    messages: list[AgenticMessage], lines: Sequence[_jsonl.Line], start: int
) -> list[AgenticMessage]:
    """``messages``, the last marked with the session's last permission mode and the summary
    of the compaction that starts the history marked when the user interrupted the turn before."""
    if not messages:
        return messages
    if mode := last_mode(lines):
        messages[-1].extra[PERMISSION_MODE_KEY] = mode
    if start > 0 and interrupted_before(lines, start):
        for msg in messages[:8]:
            if msg.extra.get("compact_summary"):
                msg.extra[INTERRUPTED_BEFORE_KEY] = True
                break
    return messages
