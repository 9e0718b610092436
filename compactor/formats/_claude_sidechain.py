"""The tools each inline sub-agent called (blind check 68, W4).

Claude Code 1.0.x wrote a ``Task`` sub-agent's conversation into the session file (records with
``isSidechain``: its prompt as a user record without parent, then its own calls); the reader
leaves them out of the main history. :func:`note_subagent_tools` puts the names of the tools each
one called on the message holding the ``Task`` call that ran it (matched by its prompt), under
:data:`~compactor.schema.SUBAGENT_TOOLS_KEY`: a sub-agent told to search, seen only reading,
wrote no file.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from compactor._json import JsonObject
from compactor.schema import SUBAGENT_TOOLS_KEY, AgenticMessage, Message

from ._jsonl import Line

__all__ = ["note_subagent_tools"]

_KINDS = ("user", "assistant")


def _prompt(rec: JsonObject) -> str:
    """The text a sidechain's first record holds (its prompt); '' when none."""
    body = rec.get("message")
    content = body.get("content") if isinstance(body, dict) else None
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        ).strip()
    return ""


def _tool_names(rec: JsonObject) -> list[str]:
    body = rec.get("message")
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, list):
        return []
    return [
        b["name"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("name"), str)
    ]


def _by_prompt(lines: Sequence[Line]) -> dict[str, set[str]]:
    """Each inline sub-agent's prompt → the tools it called (records in file order: a parent
    comes before its children)."""
    root_of: dict[str, str] = {}
    prompts: dict[str, str] = {}
    tools: dict[str, set[str]] = {}
    for ln in lines:
        rec = ln.obj
        if rec.get("isSidechain") is not True or rec.get("type") not in _KINDS:
            continue
        uid, parent = rec.get("uuid"), rec.get("parentUuid")
        if not isinstance(uid, str):
            continue
        root = root_of.get(parent) if isinstance(parent, str) else None
        if root is None:
            root = uid
            prompts[uid] = _prompt(rec)
        root_of[uid] = root
        tools.setdefault(root, set()).update(_tool_names(rec))
    out: dict[str, set[str]] = {}
    for root, prompt in prompts.items():
        if prompt:
            out.setdefault(prompt, set()).update(tools.get(root, ()))
    return out


def note_subagent_tools(
    lines: Sequence[Line], messages: Sequence[Message | AgenticMessage]
) -> None:
    """Mark each message's sub-agent calls whose conversation ``lines`` hold inline with the
    tools it called (see the module doc)."""
    found = _by_prompt(lines)
    if not found:
        return
    for msg in messages:
        if not isinstance(msg, AgenticMessage):
            continue
        for block in msg.blocks:
            if block.type != "function_tool_call" or not block.call_id or not block.arguments:
                continue
            if '"prompt"' not in block.arguments:
                continue
            try:
                args = orjson.loads(block.arguments)
            except orjson.JSONDecodeError:
                continue
            prompt = args.get("prompt") if isinstance(args, dict) else None
            if isinstance(prompt, str) and (names := found.get(prompt.strip())) is not None:
                marks = msg.extra.setdefault(SUBAGENT_TOOLS_KEY, {})
                if isinstance(marks, dict):
                    marks[block.call_id] = sorted(names)
