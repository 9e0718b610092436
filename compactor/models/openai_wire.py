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

from typing import TYPE_CHECKING

from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import one_line
from compactor.models.openai_body import RequestBody, request_body, to_wire
from compactor.models.sdk_call import (
    SdkErrors,
    count,
    partial_message,
    reply_message,
    scrub,
)
from compactor.schema import M, ToolCall, Usage

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletion
    from openai.types.chat.chat_completion import Choice

__all__ = ["RequestBody", "request_body", "to_message", "to_wire"]


_STOPS = {
    "content_filter": ("the reply was blocked by the content filter", ErrorKind.CONTENT_FILTER),
    "length": (
        "the reply was cut off at the token limit (finish_reason 'length')",
        ErrorKind.LENGTH,
    ),
}
"""``finish_reason`` of a stopped reply → its error's cause and kind."""


def to_message(completion: ChatCompletion, kind: type[M], errors: SdkErrors) -> M:
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
    stopped = _STOPS.get(finish) if isinstance(finish, str) else None
    if stopped is not None:
        cause, stop_kind = stopped
        raise errors.stopped(cause, stop_kind, _partial(completion, choice, kind, errors))
    wire_msg = choice.message
    errors.check_role(getattr(wire_msg, "role", None))
    text = _content_text(getattr(wire_msg, "content", None), errors)
    calls = [
        ToolCall(
            scrub(str(c.id), secrets),
            scrub(str(c.function.name), secrets),
            scrub(str(c.function.arguments or ""), secrets),
        )
        for c in (getattr(wire_msg, "tool_calls", None) or [])
        if getattr(c, "function", None) is not None
    ]
    if not text.strip():
        raise errors.fail("empty response: no text content", kind=ErrorKind.EMPTY, transient=True)
    reasoning = getattr(wire_msg, "reasoning_content", None)
    return reply_message(
        kind,
        scrub(text, secrets),
        reasoning=scrub(reasoning, secrets) if isinstance(reasoning, str) else None,
        usage=_usage(completion),
        finish=finish,
        calls=calls,
    )


def _usage(completion: ChatCompletion) -> Usage | None:
    u = getattr(completion, "usage", None)
    if u is None:
        return None
    return Usage(
        prompt_tokens=count(getattr(u, "prompt_tokens", 0)),
        completion_tokens=count(getattr(u, "completion_tokens", 0)),
        total_tokens=count(getattr(u, "total_tokens", 0)),
    )


def _partial(
    completion: ChatCompletion, choice: Choice, kind: type[M], errors: SdkErrors
) -> M | None:
    """The text a stopped reply did carry, as an assistant message (None: no text), so
    that retry and failover policies see it with the error."""
    try:
        text = _content_text(getattr(choice.message, "content", None), errors)
    except ModelError:
        return None
    finish = getattr(choice, "finish_reason", None)
    return partial_message(kind, text, _usage(completion), finish, errors.secrets)


def _content_text(content: object, errors: SdkErrors) -> str:
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
