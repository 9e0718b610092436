"""A Claude Code tool result whose visible text is a stub (BENCH49 W1, issue 28).

cc-strato: ``GIT_TRACE=1 git stash 2>&1 | tail -10`` returned the model-visible ``content`` "ok"
while the record's structured result (``toolUseResult``: Bash's ``stdout``, ``stderr``,
``interrupted``, ``isImage``, ``noOutputExpected``; ../shared/transcripts/FORMATS.md §1.3) held
"trace: built-in: git stash\\nerror: could not write index". The summary called the call
"succeeded" and the workaround of the three ``git stash`` failures before it.
:func:`note_tool_output` carries the recorded output on the message (``extra[TOOL_OUTPUT_KEY]``,
never written back) when the visible text is a bare stub, so the summarizer reads what the
command printed; the record and the text the client re-sends stay as they were.
"""

from __future__ import annotations

from compactor._json import JsonObject
from compactor.schema import TOOL_OUTPUT_KEY, AgenticMessage, Block

__all__ = ["note_tool_output"]

_STUBS = frozenset({"", "ok", "(no content)", "(no output)", "done"})
"""Visible result texts that say nothing of what the command printed."""
_STREAMS = ("stdout", "stderr")


def note_tool_output(rec: JsonObject, msg: AgenticMessage) -> None:
    """Note on ``msg`` the output ``rec``'s ``toolUseResult`` recorded for its one tool result
    when that result's visible text is a stub (module docstring)."""
    structured = rec.get("toolUseResult")
    if not isinstance(structured, dict):
        return
    results = [b for b in msg.blocks if b.type == "function_tool_result"]
    if len(results) != 1 or not results[0].call_id:
        return
    if _visible(results[0]).strip().lower() not in _STUBS:
        return
    parts = [
        v.strip("\n") for k in _STREAMS if isinstance(v := structured.get(k), str) and v.strip()
    ]
    if structured.get("interrupted") is True:
        parts.append("[Request interrupted by user]")
    if parts:
        msg.extra[TOOL_OUTPUT_KEY] = {results[0].call_id: "\n".join(parts)}


def _visible(block: Block) -> str:
    return "\n".join(b.text or "" for b in block.content if b.type != "reasoning")
