"""The chat-completions wire format: compact's messages out, the server's reply back in.

:func:`to_wire` turns a history (:class:`~compactor.schema.Message` or
:class:`~compactor.schema.AgenticMessage`) into chat-completions messages: text parts are joined,
media become ``[image]`` placeholders, tool calls and results keep their ids (a result without
one becomes a user message). :class:`RequestBody` is the whole request, serialised (orjson) a
message at a time whenever it is read: the bytes sent, and the bytes the summary cache keys on.

:func:`to_message` turns a completion into an assistant message of the input's type, treating
every field as hostile:

* **Reply shapes.** ``message.content`` may be a string or a list of text parts; any other shape
  is refused with a message that says what came. No choices, or no text, is ``empty``.
* **Stopped replies.** ``finish_reason`` ``content_filter`` or ``length`` is a failed attempt
  whose partial text rides along as the error's ``partial_response``; a role other than
  ``assistant`` is ``wrong_role``.
* **Secrets.** The call's secrets are removed from the reply (a server that echoes its request
  headers does not get them into the summary); usage counts are non-negative integers whatever
  the server sent.
"""

from __future__ import annotations

import math
from typing import Any

from compactor._json import JsonObject
from compactor.errors import ErrorKind, ModelError
from compactor.models.openai_body import RequestBody, request_body, to_wire
from compactor.models.openai_errors import CallErrors, one_line
from compactor.schema import (
    AgenticMessage,
    Block,
    Message,
    ToolCall,
    Usage,
    make_assistant,
)

__all__ = ["RequestBody", "request_body", "to_message", "to_wire"]


def _scrub(text: str, secrets: list[str]) -> str:
    """``text`` without any of ``secrets`` (longest first), each replaced by ``***``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "***")
    return text


def to_message(completion: Any, kind: type[Any], errors: CallErrors) -> Any:
    """The assistant message (of type ``kind``) a completion carries, or the
    :class:`~compactor.errors.ModelError` of a reply that is not one (raised)."""
    secrets = errors.secrets
    choices = getattr(completion, "choices", None)
    if not isinstance(choices, list):
        raise errors.fail(
            f"malformed response: {one_line(repr(completion))}",
            kind=ErrorKind.MALFORMED,
            transient=True,
        )
    if not choices:
        raise errors.fail("empty response: no choices", kind=ErrorKind.EMPTY, transient=True)
    choice = choices[0]
    finish = getattr(choice, "finish_reason", None)
    if finish == "content_filter":
        # Asking the same model again gives the same verdict; another model may answer.
        raise errors.fail(
            "the reply was blocked by the content filter",
            kind=ErrorKind.CONTENT_FILTER,
            transient=False,
            partial_response=_partial(completion, choice, kind, errors),
        )
    if finish == "length":
        raise errors.fail(
            "the reply was cut off at the token limit (finish_reason 'length')",
            kind=ErrorKind.LENGTH,
            transient=False,
            partial_response=_partial(completion, choice, kind, errors),
        )
    wire_msg = choice.message
    role = getattr(wire_msg, "role", None)
    if isinstance(role, str) and role != "assistant":
        # A server that answers as "user" or "tool" is broken or misconfigured (a chat
        # template problem): retrying the same model repeats it; another model may answer.
        raise errors.fail(
            f"the reply has role {role!r}, expected 'assistant'",
            kind=ErrorKind.WRONG_ROLE,
            transient=False,
        )
    text = _content_text(getattr(wire_msg, "content", None), errors)
    calls = [
        ToolCall(
            _scrub(str(c.id), secrets),
            _scrub(str(c.function.name), secrets),
            _scrub(str(c.function.arguments or ""), secrets),
        )
        for c in (getattr(wire_msg, "tool_calls", None) or [])
        if getattr(c, "function", None) is not None
    ]
    if not text.strip():
        raise errors.fail("empty response: no text content", kind=ErrorKind.EMPTY, transient=True)
    # A server that echoes its request (headers, URL) must not get a secret into the summary.
    text = _scrub(text, secrets)
    usage = None
    u = getattr(completion, "usage", None)
    if u is not None:
        usage = Usage(
            prompt_tokens=_count(getattr(u, "prompt_tokens", 0)),
            completion_tokens=_count(getattr(u, "completion_tokens", 0)),
            total_tokens=_count(getattr(u, "total_tokens", 0)),
        )
    reasoning = getattr(wire_msg, "reasoning_content", None)
    if isinstance(reasoning, str):
        reasoning = _scrub(reasoning, secrets)
    if kind is AgenticMessage:
        blocks: list[Block] = []
        if isinstance(reasoning, str) and reasoning:
            blocks.append(Block("reasoning", reasoning))
        blocks.append(Block("assistant_gen_text", text))
        blocks.extend(
            Block("function_tool_call", call_id=c.id, name=c.name, arguments=c.arguments)
            for c in calls
        )
        extra: JsonObject = {"finish_reason": finish} if finish else {}
        return AgenticMessage(role="assistant", blocks=blocks, usage=usage, extra=extra)
    msg = Message(
        role="assistant",
        content=text,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish,
        reasoning_content=reasoning if isinstance(reasoning, str) and reasoning else None,
    )
    return msg


def _partial(completion: Any, choice: Any, kind: type[Any], errors: CallErrors) -> Any:
    """The text a stopped reply did carry, as an assistant message (None: no text), so
    that retry and failover policies see it with the error."""
    try:
        text = _content_text(getattr(choice.message, "content", None), errors)
    except ModelError:
        return None
    if not text.strip():
        return None
    usage = None
    u = getattr(completion, "usage", None)
    if u is not None:
        usage = Usage(
            prompt_tokens=_count(getattr(u, "prompt_tokens", 0)),
            completion_tokens=_count(getattr(u, "completion_tokens", 0)),
            total_tokens=_count(getattr(u, "total_tokens", 0)),
        )
    msg = make_assistant(kind, _scrub(text, errors.secrets), usage)
    if isinstance(msg, Message):
        msg.finish_reason = getattr(choice, "finish_reason", None)
    else:
        msg.extra["finish_reason"] = getattr(choice, "finish_reason", None)
    return msg


def _content_text(content: Any, errors: CallErrors) -> str:
    """``message.content`` as text: a string, or a list of text parts (joined); any other
    shape is refused (the same server sends the same shape again: not transient)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for i, part in enumerate(content):
            ptype = part.get("type") if isinstance(part, dict) else None
            if ptype == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
                continue
            what = f"type {ptype!r}" if ptype is not None else f"a {type(part).__name__}"
            raise errors.fail(
                f"unsupported reply: content part {i} is {one_line(what, 80)}; only text "
                "parts ({'type': 'text', 'text': ...}) are accepted",
                kind=ErrorKind.MALFORMED,
                transient=False,
            )
        return "".join(texts)
    raise errors.fail(
        f"unsupported reply: content is a {type(content).__name__}, expected a string or a "
        "list of text parts",
        kind=ErrorKind.MALFORMED,
        transient=False,
    )


def _count(value: Any) -> int:
    """A usage count as a non-negative int (a server may send null, a float or a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if not math.isfinite(value):
        return 0
    return max(0, int(value))
