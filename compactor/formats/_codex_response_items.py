"""Codex response items ↔ messages (:mod:`.codex`): :class:`ItemReader` reads one ``response_item``
payload as a :class:`~compactor.schema.Message` (``message``, the tool calls and their outputs, a
sub-agent's message; a ``<goal_context>`` message as the user's objective), and :func:`render`
writes a message back as the Responses API items Codex writes for it. Apart from the rollout
reader and writer, which decide which records become messages and where the written items go.
"""

from __future__ import annotations

import json
import re

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.errors import TranscriptError
from compactor.schema import AgenticMessage, Message, Part, ToolCall, content_type

from . import _codex_agents, _jsonl
from ._codex_context import injected_user_text
from ._convert import as_chat
from .openai_chat import part_text

_GOAL_RE = lazy_pattern(
    r"\A\s*<goal_context>.*?<((?:untrusted_)?objective)>\s*(.*?)\s*</\1>", re.DOTALL
)
"""A thread-goal message (Codex ``goals/continuation.md``, ``objective_updated.md``): the
objective inside it is the user's own request (``/goal …``), not context Codex re-injects."""


def _output_text(output: JsonValue) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(
            str(i.get("text") or "") for i in output if isinstance(i, dict) and "text" in i
        )
    return json.dumps(output, ensure_ascii=False)


class ItemReader:
    """Reads one rollout's response items as messages, remembering each call's tool name."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tool_names: dict[str, str] = {}

    def message(self, line: int, item: JsonObject) -> Message | None:
        """A response item → Message, or None for items that are not messages."""
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            if not isinstance(role, str):
                raise TranscriptError(
                    self.path, line, "payload.role", f"must be a string, got {role!r}"
                )
            content = item.get("content")
            parts: list[Part] = []
            if isinstance(content, str):
                parts = [Part("text", content)]
            elif isinstance(content, list):
                for c in content:
                    if not isinstance(c, dict):
                        raise TranscriptError(
                            self.path, line, "payload.content", "items must be objects"
                        )
                    text = part_text(c)  # input_text, output_text, refusal, ...
                    if "text" in c or text is not None:
                        parts.append(Part("text", text or str(c.get("text") or "")))
                    elif c.get("type") == "input_image":
                        url = c.get("image_url")
                        parts.append(Part("image_url", url=url if isinstance(url, str) else None))
            elif content is not None:
                raise TranscriptError(
                    self.path,
                    line,
                    "payload.content",
                    f"must be a list, got {type(content).__name__}",
                )
            text = "\n".join(p.text or "" for p in parts if p.type == "text")
            msg = Message(role="system" if role == "developer" else role, content=text)
            if any(p.type != "text" for p in parts):
                msg.parts = parts
            if role == "developer":
                msg.extra["codex_role"] = "developer"
            goal = _GOAL_RE.match(text) if msg.role == "user" else None
            if goal is not None and goal.group(2):
                msg.content = goal.group(2)  # the objective, as the user typed it
                msg.extra["codex_goal"] = True
            elif msg.role == "user" and injected_user_text(text):
                msg.extra["injected"] = True
            return msg
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = str(item.get("call_id") or item.get("id") or "")
            name = str(item.get("name") or ("local_shell" if kind == "local_shell_call" else ""))
            self.tool_names[call_id] = name
            args = (
                item.get("arguments")
                if kind == "function_call"
                else item.get("action" if kind == "local_shell_call" else "input")
            )
            if not isinstance(args, str):
                args = json.dumps(args, ensure_ascii=False)
            msg = Message(role="assistant", tool_calls=[ToolCall(call_id, name, args)])
            if kind == "custom_tool_call":
                msg.extra["custom_tool"] = True
            return msg
        if kind in ("function_call_output", "custom_tool_call_output"):
            call_id = str(item.get("call_id") or "")
            msg = Message(
                role="tool",
                content=_output_text(item.get("output")),
                tool_call_id=call_id,
                tool_name=self.tool_names.get(call_id),
            )
            if kind == "custom_tool_call_output":
                msg.extra["custom_tool"] = True
            return msg
        if kind in _codex_agents.MESSAGE_ITEMS:  # a sub-agent's message (blind check 56 F1)
            return _codex_agents.agent_message(self.path, line, item)
        return None


def render(msg: Message | AgenticMessage) -> list[JsonObject]:
    """A message → Responses API items (an agentic one added by a finalizer: its text, tool
    calls and tool results as the items Codex writes for them)."""
    if content_type(msg) == "summary":
        text = _jsonl.message_text(msg)
        return [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        ]
    return [item for m in as_chat(msg) for item in _render_chat(m)]


def _render_chat(msg: Message) -> list[JsonObject]:
    text = _jsonl.message_text(msg)
    custom = bool(msg.extra.get("custom_tool"))
    if msg.role == "tool":
        kind = "custom_tool_call_output" if custom else "function_call_output"
        return [{"type": kind, "call_id": msg.tool_call_id or "", "output": text}]
    items: list[JsonObject] = []
    if text or msg.parts or not msg.tool_calls:
        role = "developer" if msg.role == "system" else msg.role
        part = "output_text" if role == "assistant" else "input_text"
        content: list[JsonObject] = [
            {"type": part, "text": p.text or ""}
            if p.type == "text"
            else {"type": "input_image", "image_url": p.url or ""}
            for p in msg.parts
            if p.type in ("text", "image_url")
        ] or [{"type": part, "text": text}]
        items.append({"type": "message", "role": role, "content": content})
    for call in msg.tool_calls:
        if custom:
            items.append(
                {
                    "type": "custom_tool_call",
                    "call_id": call.id,
                    "name": call.name,
                    "input": call.arguments,
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "name": call.name,
                    "arguments": call.arguments,
                    "call_id": call.id,
                }
            )
    return items
