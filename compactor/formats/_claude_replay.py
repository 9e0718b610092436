"""A prompt the Agent SDK logs twice (blind check 60 N7).

A Claude desktop "Cowork" audit log (Agent SDK stream-json: ``user``/``assistant``/``system``/
``result`` records with ``session_id``) holds each prompt the user sent twice: once as it was
sent, then again after the session's ``system/init``, echoed back (``isReplay: true``, the same
``uuid``). Read as two messages, every prompt counted twice and looked sent again. The echo (a
user record marked ``isReplay`` or bearing the uuid of the prompt before it, with the same
content, no assistant record in between: the same turn) is left out of the history; the record
stays in the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonValue

from . import _jsonl

__all__ = ["without_replays"]


def _is_prompt(content: JsonValue) -> bool:
    """A user record's content that is a prompt, not tool results."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def without_replays(lines: Sequence[_jsonl.Line], steps: list[int]) -> list[int]:
    """``steps`` (record indexes in history order) without the echoes of a prompt."""
    if not any(lines[i].obj.get("isReplay") is True for i in steps):
        return steps  # (a Claude Code session: nothing to look at)
    kept: list[int] = []
    last: tuple[JsonValue, JsonValue] | None = None  # (uuid, content) of this turn's prompt
    for i in steps:
        rec = lines[i].obj
        kind = rec.get("type")
        if kind == "assistant":
            last = None
        elif kind == "user":
            body = rec.get("message")
            content = body.get("content") if isinstance(body, dict) else None
            if _is_prompt(content):
                echo = rec.get("isReplay") is True or (
                    last is not None and rec.get("uuid") == last[0]
                )
                if echo and last is not None and content == last[1]:
                    continue
                last = (rec.get("uuid"), content)
        kept.append(i)
    return kept
