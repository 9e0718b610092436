"""Whether a tool result is the tool's or harness's own error (moved from outcomes.py to make room).

A sandbox or spawn failure (``<tool_use_error>``, ``exec error``, ``CreateProcess… failed``)
means the command could not be run: a failure whatever the command was. So does Codex's
"apply_patch verification failed" (the legacy ``shell`` tool's ``apply_patch <<PATCH``, whose
plain output has no exit code; blind check 33 N2): the patch changed nothing.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["TOOL_ERROR_RE", "tool_error"]

_TOOL_ERROR_STARTS = (
    r"<tool_use_error>|<error>|Error: |execution error:|(?:sandbox|spawn|exec) error\b"
    r"|(?i:failed to (?:spawn|execute|launch|start (?:the )?process|run (?:the )?command)\b)"
    r"|apply_patch verification failed\b"  # Codex's patch tool, with no exit code (check 33 N2)
)
TOOL_ERROR_RE = re.compile(
    rf"\A\s*(?:{_TOOL_ERROR_STARTS}|[^\n]{{0,200}}?\bCreateProcess\w* failed\b)"
)
"""A result that is the tool's or harness's own error (the command could not be run: a sandbox
or spawn failure) rather than the command's output: a failure whatever the command was."""
_TOOL_ERROR_START_RE = lazy_pattern(rf"\A\s*(?:{_TOOL_ERROR_STARTS})")
_CREATE_PROCESS = "CreateProcess"


def tool_error(text: str) -> bool:
    """``TOOL_ERROR_RE.match(text)``; its last branch, which reads up to 200 characters, only
    when ``CreateProcess`` stands where it can start (200 characters after the leading
    whitespace at most): most outputs are decided by their first characters."""
    lead = len(text) - len(text.lstrip())
    if _CREATE_PROCESS in text[: lead + 200 + len(_CREATE_PROCESS)]:
        return TOOL_ERROR_RE.match(text) is not None
    return _TOOL_ERROR_START_RE.match(text) is not None
