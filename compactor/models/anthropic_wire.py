"""The Messages API wire format: compact's messages out, Anthropic's reply back in.

:func:`to_request` turns a history (:class:`~compactor.schema.Message` or
:class:`~compactor.schema.AgenticMessage`) into the request's ``system`` text and its
``messages``: system and developer messages go to ``system``; tool calls and tool results are
written as text (a request that carries ``tool_use`` blocks must declare its tools, and a
summarizer declares none); consecutive turns of one role are merged into one message of text
blocks; empty text is dropped (the API refuses empty text blocks); a conversation that does not
start with a user turn gets one.

:func:`to_message` turns the reply into an assistant message of the input's type, treating every
field as hostile, as the OpenAI backend does: text blocks are joined (thinking blocks become
reasoning), ``stop_reason: max_tokens`` is a cut reply (``kind="length"``, its partial text on
the error, like ``finish_reason: length``), ``refusal`` a ``content_filter`` refusal, a role
other than ``assistant`` is ``wrong_role``, no text is ``empty``; the call's secrets are removed
from the reply, usage counts are non-negative integers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compactor._json import JsonObject
from compactor.errors import ErrorKind
from compactor.models.http_common import one_line
from compactor.models.sdk_call import (
    SdkErrors,
    count,
    partial_message,
    reply_message,
    scrub,
)
from compactor.schema import AgenticMessage, M, Message, Usage, blocks_text, parts_text

if TYPE_CHECKING:
    from anthropic.types import Message as AnthropicReply

__all__ = ["FINISH_REASONS", "to_message", "to_request"]

FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}
"""``stop_reason`` → the ``finish_reason`` an assistant message records (as OpenAI names it)."""

_CUT = ("the reply was cut off at the token limit", ErrorKind.LENGTH, "length")
_STOPS = {
    "max_tokens": _CUT,
    "model_context_window_exceeded": _CUT,
    "refusal": ("the model refused to answer", ErrorKind.CONTENT_FILTER, "content_filter"),
}
"""``stop_reason`` of a stopped reply → its error's cause and kind, and its partial's
``finish_reason``."""

_OPENING = "(the conversation so far)"


def _call_text(name: str, arguments: str) -> str:
    return f"[tool call {name or 'tool'}({arguments or '{}'})]"


def _turns(msg: Message | AgenticMessage) -> list[tuple[str, str]]:
    """``(role, text)`` turns of one message; role ``system`` goes to the system prompt."""
    if isinstance(msg, AgenticMessage):
        if msg.role == "system":
            return [("system", blocks_text(msg.blocks))]
        if msg.role == "assistant":
            texts = [blocks_text([b for b in msg.blocks if b.type != "function_tool_call"])]
            texts += [
                _call_text(b.name or "", b.arguments or "")
                for b in msg.blocks
                if b.type == "function_tool_call"
            ]
            return [("assistant", "\n".join(t for t in texts if t))]
        turns = [
            ("user", f"[{b.name or 'tool'} result]\n{blocks_text(b.content)}")
            for b in msg.blocks
            if b.type == "function_tool_result"
        ]
        rest = [b for b in msg.blocks if b.type != "function_tool_result"]
        return [*turns, ("user", blocks_text(rest))]
    if msg.role in ("system", "developer"):
        return [("system", parts_text(msg))]
    if msg.role == "assistant":
        texts = [parts_text(msg)] + [_call_text(c.name, c.arguments) for c in msg.tool_calls]
        return [("assistant", "\n".join(t for t in texts if t))]
    if msg.role == "tool":
        label = msg.tool_name or msg.name or "tool"
        return [("user", f"[{label} result]\n{parts_text(msg)}")]
    return [("user", parts_text(msg))]


def to_request(
    messages: list[Message] | list[AgenticMessage],
) -> tuple[str, list[JsonObject]]:
    """``(system, messages)`` of a Messages API request for a history."""
    system: list[str] = []
    wire: list[JsonObject] = []
    for msg in messages:
        for role, text in _turns(msg):
            if not text.strip():
                continue
            if role == "system":
                system.append(text)
            elif wire and wire[-1]["role"] == role:
                wire[-1]["content"].append({"type": "text", "text": text})
            else:
                wire.append({"role": role, "content": [{"type": "text", "text": text}]})
    if not wire or wire[0]["role"] != "user":
        wire.insert(0, {"role": "user", "content": [{"type": "text", "text": _OPENING}]})
    return "\n\n".join(system), wire


def _usage(reply: AnthropicReply) -> Usage | None:
    u = getattr(reply, "usage", None)
    if u is None:
        return None
    prompt = sum(
        count(getattr(u, name, 0))
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    completion = count(getattr(u, "output_tokens", 0))
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def _texts(reply: AnthropicReply, errors: SdkErrors) -> tuple[str, str]:
    """``(text, reasoning)`` of the reply's content blocks; a block that is neither text nor
    thinking (a ``tool_use`` no request asked for, an image) is refused as malformed."""
    content = getattr(reply, "content", None)
    if not isinstance(content, list):
        raise errors.fail(
            f"malformed response: content is a {type(content).__name__}, expected a list of "
            "content blocks",
            kind=ErrorKind.MALFORMED,
            transient=True,
        )
    texts: list[str] = []
    thoughts: list[str] = []
    for i, block in enumerate(content):
        btype = getattr(block, "type", None)
        if btype == "text" and isinstance(getattr(block, "text", None), str):
            texts.append(block.text)
        elif btype == "thinking" and isinstance(getattr(block, "thinking", None), str):
            thoughts.append(block.thinking)
        elif btype != "redacted_thinking":
            raise errors.fail(
                f"unsupported reply: content block {i} is of type {one_line(repr(btype), 80)}; "
                "only text and thinking blocks are accepted",
                kind=ErrorKind.MALFORMED,
                transient=False,
            )
    return "".join(texts), "\n".join(thoughts)


def _partial(reply: AnthropicReply, kind: type[M], errors: SdkErrors, finish: str) -> M | None:
    """The text a stopped reply did carry, as an assistant message (None: no text)."""
    try:
        text, _ = _texts(reply, errors)
    except Exception:  # noqa: BLE001 - a partial is a courtesy; its absence is not an error
        return None
    return partial_message(kind, text, _usage(reply), finish, errors.secrets)


def to_message(reply: AnthropicReply, kind: type[M], errors: SdkErrors) -> M:
    """The assistant message (of type ``kind``) a Messages API reply carries, or the
    :class:`~compactor.errors.ModelError` of a reply that is not one (raised)."""
    stop = getattr(reply, "stop_reason", None)
    finish = FINISH_REASONS.get(stop, stop) if isinstance(stop, str) else None
    stopped = _STOPS.get(stop) if isinstance(stop, str) else None
    if stopped is not None:
        what, stop_kind, stop_finish = stopped
        partial = _partial(reply, kind, errors, stop_finish)
        raise errors.stopped(f"{what} (stop_reason {stop!r})", stop_kind, partial)
    errors.check_role(getattr(reply, "role", None))
    text, reasoning = _texts(reply, errors)
    if not text.strip():
        raise errors.fail("empty response: no text content", kind=ErrorKind.EMPTY, transient=True)
    return reply_message(
        kind,
        scrub(text, errors.secrets),
        reasoning=scrub(reasoning, errors.secrets),
        usage=_usage(reply),
        finish=finish,
        calls=[],
    )
