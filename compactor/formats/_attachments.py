"""Claude Code ``attachment`` records read as messages (FORMATS.md §1): the context text of an
attachment, and the user's own message in a ``queued_command`` one.

A message the user types while the agent works is queued; when the agent takes it mid-turn,
Claude Code stores it only as ``{"type": "attachment", "attachment": {"type":
"queued_command", "prompt": ..., "commandMode": "prompt"}}`` (``prompt``: a string or a list of
content blocks) and sends it to the model as a user message (not a meta one) with the prompt's
text. A queued command of another origin (a task notification, a coordinator, a peer) or one
marked ``isMeta`` is sent as meta context, like the other attachments.
"""

from __future__ import annotations

import json

from compactor._json import JsonValue

__all__ = ["attachment_text", "queued_prompt"]


def attachment_text(attachment: JsonValue) -> str:
    """An ``attachment`` record's payload as the context text a summarizer can read."""
    if not isinstance(attachment, dict):
        return f"<system-reminder>\nattachment: {json.dumps(attachment, ensure_ascii=False)}\n"
    kind = attachment.get("type")
    lines = [f"attachment {kind if isinstance(kind, str) else '?'}"]
    for key, value in attachment.items():
        if key == "type":
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {text}")
    return "<system-reminder>\n" + "\n".join(lines) + "\n</system-reminder>"


def queued_prompt(attachment: JsonValue) -> list[str] | None:
    """The text blocks of a ``queued_command`` the user typed (Claude Code sends their text
    as the user's message), or None: not a queued command of the user's, or no text in it."""
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return None
    origin = attachment.get("origin")
    if origin is None and attachment.get("commandMode") == "task-notification":
        return None
    if origin is not None and not (isinstance(origin, dict) and origin.get("kind") == "human"):
        return None
    if attachment.get("isMeta") or "batchedRelayPrompts" in attachment:
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, str):
        texts = [prompt]
    elif isinstance(prompt, list):
        texts = [
            b["text"]
            for b in prompt
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return None
    return texts if any(t.strip() for t in texts) else None
