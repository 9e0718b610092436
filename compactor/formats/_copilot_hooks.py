"""The ``hook.*`` events a Copilot CLI session keeps for each tool call, and which of them go
when their call's result goes or changes (blind check 74 N6).

A ``preToolUse`` / ``postToolUse`` hook is logged as a ``hook.start`` event whose
``data.input`` names the tool (``toolName``), its arguments (``toolArgs``) and, after the call,
its whole result (``toolResult``: ``textResultForLlm``, ``sessionLog`` and more, each a full
copy of the output), then a ``hook.end`` with the same ``hookInvocationId``. The events name no
``toolCallId``, so a hook is paired with its call by tool name and arguments, in order: the
n-th hook of a kind with the same name and arguments belongs to the n-th such call.

In se_drain (Copilot CLI, 1.2 MB) the summary's output was 1.13 MB, 963 KB of it hook events:
117 of the 159 results reduce had cleared still stood verbatim in them, so a credential in a
cleared result would survive ``compact``. A hook of a call the new history no longer holds
goes, as its ``tool.execution_start`` does; a hook of a call whose result was changed (cleared,
truncated) goes too, as that result's UI copies do. Hooks that pair with no call (another
kind, a sub-agent's, arguments the reader cannot match) stay in place.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message, loads_json

from ._jsonl import Line

__all__ = ["hooks_of"]

_START, _END = "hook.start", "hook.end"
_TOOL_HOOKS = frozenset({"preToolUse", "postToolUse"})


def _key(name: str, args: JsonValue) -> tuple[str, bytes]:
    """A call's tool name and its arguments in one spelling (keys sorted, strings parsed)."""
    if isinstance(args, str):
        try:
            args = loads_json(args)
        except ValueError:
            return name, args.encode("utf-8", "surrogatepass")
    try:
        return name, orjson.dumps(args, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not JSON (cannot happen for parsed text): match nothing
        return name, b"\0"


def _calls(messages: Sequence[Message | AgenticMessage]) -> Iterable[tuple[str, str, str]]:
    """(call id, tool name, arguments) of every call, in order."""
    for msg in messages:
        if isinstance(msg, AgenticMessage):
            for b in msg.blocks:
                if b.type == "function_tool_call" and b.call_id:
                    yield b.call_id, b.name or "", b.arguments or ""
        else:
            for c in msg.tool_calls:
                yield c.id, c.name, c.arguments


def _hook(obj: JsonObject) -> tuple[str, JsonObject] | None:
    """(hook kind, its ``data``) of a tool hook's ``hook.start`` event of the main agent."""
    data = obj.get("data")
    if obj.get("type") != _START or "agentId" in obj or not isinstance(data, dict):
        return None
    kind = data.get("hookType")
    return (kind, data) if isinstance(kind, str) and kind in _TOOL_HOOKS else None


def hooks_of(
    lines: Sequence[Line], messages: Sequence[Message | AgenticMessage], calls: set[str]
) -> set[int]:
    """The lines of the hook events (start and end) that belong to one of ``calls``."""
    if not calls:
        return set()
    order: dict[tuple[str, bytes], list[str]] = defaultdict(list)
    for call_id, name, arguments in _calls(messages):
        order[_key(name, arguments)].append(call_id)
    queues: dict[tuple[str, tuple[str, bytes]], deque[str]] = {}
    out: set[int] = set()
    invocations: set[str] = set()
    for i, ln in enumerate(lines):
        obj = ln.obj
        if obj.get("type") == _END:
            ended = obj.get("data")
            which = ended.get("hookInvocationId") if isinstance(ended, dict) else None
            if isinstance(which, str) and which in invocations:
                out.add(i)
            continue
        hook = _hook(obj)
        if hook is None:
            continue
        kind, data = hook
        given = data.get("input")
        if not isinstance(given, dict) or not isinstance(tool := given.get("toolName"), str):
            continue
        key = _key(tool, given.get("toolArgs", {}))
        queue = queues.setdefault((kind, key), deque(order.get(key, ())))
        if not queue:
            continue  # more hooks than calls with these arguments: not paired
        if queue.popleft() in calls:
            out.add(i)
            invocation = data.get("hookInvocationId")
            if isinstance(invocation, str):
                invocations.add(invocation)
    return out
