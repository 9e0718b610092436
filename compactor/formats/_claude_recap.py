"""Claude Code's own recap of where the work stands (blind check 63 N5).

Claude Code 2.1.x writes a ``system`` record of subtype ``away_summary`` when the user comes
back to an idle session: ``content`` is its own short recap ("Everything passes but nothing is
committed yet. Next: confirm whether to run the initial commit. (disable recaps in /config)").
The client never sends it to the model, so the reader kept it as metadata only.

:func:`add_recap` reads the LATEST such record of the main chain as one context message at the
end (:data:`RECAP_KEY` set, its record as the origin: the writers copy the line back as it was),
but only when no assistant work (a text or a call of a non-synthetic assistant record) follows
it: a recap the agent's later work overtook is stale. Its text reads ``<system-reminder>\\n
Claude Code's own recap at TIMESTAMP: …</system-reminder>``; the embedded summarizer quotes it
in section 8 as the harness's statement, never over its own facts.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.schema import AgenticMessage, Block

from . import _jsonl

__all__ = ["RECAP_HEAD", "RECAP_KEY", "add_recap"]

RECAP_KEY = "claude_recap"
"""``AgenticMessage.extra`` key of the message read from an ``away_summary`` record."""
RECAP_HEAD = "<system-reminder>\nClaude Code's own recap"
"""How the recap message's text starts."""


def _works(obj: dict[str, object]) -> bool:
    """An assistant record with a text or a call that is no harness's synthetic notice."""
    if obj.get("type") != "assistant" or obj.get("isApiErrorMessage"):
        return False
    body = obj.get("message")
    if not isinstance(body, dict) or body.get("model") == "<synthetic>":
        return False
    content = body.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and any(
        isinstance(b, dict)
        and (
            b.get("type") == "tool_use" or (b.get("type") == "text" and str(b.get("text")).strip())
        )
        for b in content
    )


def add_recap(
    lines: Sequence[_jsonl.Line],
    order: Sequence[int],
    messages: list[AgenticMessage],
    origin: list[list[int]],
) -> None:
    """Append the latest main-chain ``away_summary`` as a context message when no assistant
    work follows it (see the module doc)."""
    found = -1
    for at in range(len(order) - 1, -1, -1):
        obj = lines[order[at]].obj
        if obj.get("isSidechain"):
            continue
        if obj.get("type") == "system" and obj.get("subtype") == "away_summary":
            found = at
            break
        if _works(obj):
            return  # the agent worked after the latest recap (or there is none)
    if found < 0 or not messages:
        return
    rec = lines[order[found]].obj
    content = rec.get("content")
    if not isinstance(content, str) or not content.strip():
        return
    text = content.strip().removesuffix("(disable recaps in /config)").strip()
    stamp = rec.get("timestamp")
    when = f" at {stamp[:16].replace('T', ' ')}" if isinstance(stamp, str) and stamp else ""
    msg = AgenticMessage(
        "user", [Block("user_input_text", f"{RECAP_HEAD}{when}: {text}\n</system-reminder>")]
    )
    msg.extra["injected"] = True
    msg.extra[RECAP_KEY] = True
    messages.append(msg)
    origin.append([order[found]])
