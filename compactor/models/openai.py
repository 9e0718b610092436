"""OpenAI-compatible chat completions through the official ``openai`` client (SPEC §7).

Works with any server speaking the API (OpenAI, Azure, vLLM, llama.cpp, Ollama, LiteLLM). The
client's hidden retries are off (``max_retries=0``): retry policy belongs to SPEC §6, so every
attempt is seen. Failures are raised as :class:`~compactor.errors.ModelError` with a ``kind`` the
retry policy can use; the API key never enters a message.
"""

from __future__ import annotations

import email.utils
import json
import os
import time
from typing import Any

import openai
import pydantic
from openai.types.chat import ChatCompletion

from compactor._util import redact, register_secret
from compactor.errors import ModelError
from compactor.models.pool import pooled_client
from compactor.schema import (
    MEDIA_BLOCK_TYPES,
    MEDIA_PART_TYPES,
    AgenticMessage,
    Block,
    Message,
    ToolCall,
    Usage,
    message_kind,
)

__all__ = ["OpenAIModel", "to_wire"]

_NO_KEY = "sk-no-key"
_OPTIONS = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "reasoning_effort",
        "extra_body",
        "extra_headers",
    }
)
_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "exceeds the context",
)


def _placeholder(kind: str) -> str:
    """``image_url`` / ``user_input_image`` / ``assistant_gen_image`` → ``[image]``."""
    base = kind.removesuffix("_url").rsplit("_", 1)[-1]
    return f"[{base}]"


def _part_text(msg: Message, *, reasoning: bool = False) -> str:
    texts: list[str] = []
    for part in msg.parts:
        if part.type == "text" and part.text:
            texts.append(part.text)
        elif part.type in MEDIA_PART_TYPES:
            texts.append(_placeholder(part.type))
    return "\n".join(texts) if texts else msg.content


def _blocks_text(blocks: list[Block]) -> str:
    texts: list[str] = []
    for block in blocks:
        if block.type in ("user_input_text", "assistant_gen_text") and block.text:
            texts.append(block.text)
        elif block.type in MEDIA_BLOCK_TYPES:
            texts.append(_placeholder(block.type))
        elif block.type == "function_tool_result":
            texts.append(_blocks_text(block.content))
    return "\n".join(texts)


def _wire_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments or "{}"},
    }


def _message_to_wire(msg: Message) -> list[dict[str, Any]]:
    if msg.role == "tool":
        text = _part_text(msg)
        if msg.tool_call_id:
            return [{"role": "tool", "tool_call_id": msg.tool_call_id, "content": text}]
        label = msg.tool_name or msg.name or "tool"
        return [{"role": "user", "content": f"[{label} result]\n{text}"}]
    if msg.role == "assistant":
        out: dict[str, Any] = {"role": "assistant"}
        text = _part_text(msg)
        out["content"] = text if text or not msg.tool_calls else None
        if msg.tool_calls:
            out["tool_calls"] = [_wire_call(c.id, c.name, c.arguments) for c in msg.tool_calls]
        return [out]
    role = msg.role if msg.role in ("system", "user", "developer") else "user"
    out = {"role": role, "content": _part_text(msg)}
    if msg.name and role == "user":
        out["name"] = msg.name
    return [out]


def _agentic_to_wire(msg: AgenticMessage) -> list[dict[str, Any]]:
    if msg.role == "assistant":
        text = _blocks_text([b for b in msg.blocks if b.type != "function_tool_call"])
        calls = [
            _wire_call(b.call_id or "", b.name or "", b.arguments or "")
            for b in msg.blocks
            if b.type == "function_tool_call"
        ]
        out: dict[str, Any] = {"role": "assistant", "content": text if text or not calls else None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    if msg.role == "system":
        return [{"role": "system", "content": _blocks_text(msg.blocks)}]
    wire: list[dict[str, Any]] = []
    for block in msg.blocks:
        if block.type == "function_tool_result":
            text = _blocks_text(block.content)
            if block.call_id:
                wire.append({"role": "tool", "tool_call_id": block.call_id, "content": text})
            else:
                wire.append({"role": "user", "content": f"[{block.name or 'tool'} result]\n{text}"})
    rest = [b for b in msg.blocks if b.type != "function_tool_result"]
    if rest or not wire:
        wire.append({"role": "user", "content": _blocks_text(rest)})
    return wire


def to_wire(messages: list[Message] | list[AgenticMessage]) -> list[dict[str, Any]]:
    """Chat-completions wire messages for a history (media become ``[image]`` placeholders)."""
    wire: list[dict[str, Any]] = []
    for msg in messages:
        if isinstance(msg, AgenticMessage):
            wire.extend(_agentic_to_wire(msg))
        else:
            wire.extend(_message_to_wire(msg))
    return wire


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return max(0.0, float(value) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _body_message(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    response = getattr(err, "response", None)
    text = ""
    if response is not None:
        try:
            text = response.text
        except Exception:  # noqa: BLE001 - the body may be unreadable; the status still tells
            text = ""
    return text or str(getattr(err, "message", "")) or type(err).__name__


def _body_code(err: Any) -> str | None:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            code = inner.get("code") or inner.get("type")
            return str(code) if code is not None else None
    return None


def _connection_detail(err: BaseException) -> str:
    """What went wrong under an ``APIConnectionError``: the first cause with a message.

    The client's own exceptions often say nothing (``ReadError('')``); the OS error at the bottom
    of the chain does (``[Errno 104] Connection reset by peer``).
    """
    seen: list[BaseException] = []
    inner = err.__cause__ or err.__context__
    while inner is not None and inner not in seen and len(seen) < 8:
        seen.append(inner)
        inner = inner.__cause__ or inner.__context__
    if any(isinstance(e, ConnectionResetError) for e in seen):
        return " (connection reset by peer)"
    for e in seen:
        if str(e):
            return f" ({type(e).__name__}: {_one_line(str(e))})"
    return f" ({type(seen[0]).__name__})" if seen else ""


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class OpenAIModel:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    remote = True
    """Secret masking is on by default for it: even a loopback proxy may forward to a cloud."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.model = name
        self.name = f"openai:{name}"
        self.base_url = base_url
        self.timeout = timeout
        self._api_key = api_key

    def __repr__(self) -> str:
        return (
            f"OpenAIModel(name={self.model!r}, base_url={self.base_url!r}, timeout={self.timeout})"
        )

    def _resolve(self) -> tuple[str | None, str]:
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = self._api_key or os.environ.get("OPENAI_API_KEY") or None
        register_secret(key)
        if key is None:
            if base_url is None:
                raise ModelError(
                    "no API key: set OPENAI_API_KEY or model.api_key",
                    kind="auth",
                    model=self.name,
                )
            key = _NO_KEY
        return base_url, key

    def _fail(
        self,
        cause: str,
        key: str,
        *,
        kind: str,
        transient: bool,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> ModelError:
        message = redact(f"failed to call openai model {self.model!r}: {cause}", [key])
        return ModelError(
            message,
            kind=kind,
            transient=transient,
            status=status,
            retry_after=retry_after,
            model=self.name,
        )

    def _classify(self, err: Exception, key: str) -> ModelError:
        if isinstance(err, openai.APITimeoutError):
            return self._fail(
                f"timed out after {self.timeout}s", key, kind="timeout", transient=True
            )
        if isinstance(err, openai.APIConnectionError):
            detail = _connection_detail(err)
            return self._fail(f"connection error{detail}", key, kind="connection", transient=True)
        if isinstance(err, openai.APIResponseValidationError):
            return self._fail(
                f"malformed response: {_one_line(str(err.message))}",
                key,
                kind="malformed",
                transient=True,
            )
        if isinstance(err, openai.APIStatusError):
            code = err.status_code
            detail = _one_line(_body_message(err))
            cause = f"HTTP {code}: {detail}"
            if code == 429:
                quota = _body_code(err) == "insufficient_quota"
                return self._fail(
                    cause,
                    key,
                    kind="rate_limit",
                    transient=not quota,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code >= 500:
                return self._fail(
                    cause,
                    key,
                    kind="server",
                    transient=True,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code == 408:
                return self._fail(cause, key, kind="timeout", transient=True, status=code)
            if code in (400, 413, 422):
                lowered = detail.lower() + " " + (_body_code(err) or "").lower()
                if any(word in lowered for word in _CONTEXT_WORDS):
                    kind = "context_length"
                else:
                    kind = "bad_request"
                return self._fail(cause, key, kind=kind, transient=False, status=code)
            if code in (401, 403):
                return self._fail(cause, key, kind="auth", transient=False, status=code)
            if code == 404:
                return self._fail(cause, key, kind="not_found", transient=False, status=code)
            return self._fail(cause, key, kind="other", transient=False, status=code)
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return self._fail(
                f"malformed response: {type(err).__name__}: {_one_line(str(err))}",
                key,
                kind="malformed",
                transient=True,
            )
        return self._fail(
            f"{type(err).__name__}: {_one_line(str(err))}", key, kind="other", transient=False
        )

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        """One chat completion; returns an assistant message of the input's type."""
        base_url, key = self._resolve()
        kind = message_kind(messages)
        params = {k: v for k, v in options.items() if k in _OPTIONS and v is not None}
        # What chat.completions.create() sends, through the client's documented raw-request
        # route: create() first runs its TypedDict transform over every wire message (already
        # plain JSON here), 1-1.5 ms per call and ~50 ms on the first one. Auth, headers, errors
        # and the parsed ChatCompletion are the same.
        body: dict[str, Any] = {"model": self.model, "messages": to_wire(messages)}
        request: openai.RequestOptions = {"security": {"bearer_auth": True}}
        for name, value in params.items():
            if name == "extra_body":
                request["extra_json"] = value
            elif name == "extra_headers":
                request["headers"] = value
            else:
                body[name] = value

        def make_client() -> openai.AsyncOpenAI:
            return openai.AsyncOpenAI(
                api_key=key, base_url=base_url, timeout=self.timeout, max_retries=0
            )

        async def post(client: openai.AsyncOpenAI) -> ChatCompletion:
            return await client.post(
                "/chat/completions", body=body, cast_to=ChatCompletion, options=request
            )

        try:
            shared = pooled_client(("openai", base_url, key, self.timeout), make_client)
            if shared is not None:  # inside shared_clients(): reuse its client and connections
                completion = await post(shared)
            else:
                async with make_client() as client:
                    completion = await post(client)
        except ModelError:
            raise
        except (openai.OpenAIError, json.JSONDecodeError, pydantic.ValidationError) as err:
            raise self._classify(err, key) from err
        return self._to_message(completion, kind, key)

    def _to_message(self, completion: Any, kind: type[Any], key: str) -> Any:
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list):
            raise self._fail(
                f"malformed response: {_one_line(repr(completion))}",
                key,
                kind="malformed",
                transient=True,
            )
        if not choices:
            raise self._fail("empty response: no choices", key, kind="empty", transient=True)
        choice = choices[0]
        finish = getattr(choice, "finish_reason", None)
        if finish == "content_filter":
            # Asking the same model again gives the same verdict; another model may answer.
            raise self._fail(
                "the reply was blocked by the content filter",
                key,
                kind="content_filter",
                transient=False,
            )
        if finish == "length":
            raise self._fail(
                "the reply was cut off at the token limit (finish_reason 'length')",
                key,
                kind="length",
                transient=False,
            )
        wire_msg = choice.message
        role = getattr(wire_msg, "role", None)
        if isinstance(role, str) and role != "assistant":
            # A server that answers as "user" or "tool" is broken or misconfigured (a chat
            # template problem): retrying the same model repeats it; another model may answer.
            raise self._fail(
                f"the reply has role {role!r}, expected 'assistant'",
                key,
                kind="wrong_role",
                transient=False,
            )
        text = wire_msg.content or ""
        calls = [
            ToolCall(c.id, c.function.name, c.function.arguments or "")
            for c in (wire_msg.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        if not text.strip():
            raise self._fail("empty response: no text content", key, kind="empty", transient=True)
        usage = None
        if completion.usage is not None:
            u = completion.usage
            usage = Usage(
                prompt_tokens=u.prompt_tokens or 0,
                completion_tokens=u.completion_tokens or 0,
                total_tokens=u.total_tokens or 0,
            )
        reasoning = getattr(wire_msg, "reasoning_content", None)
        if kind is AgenticMessage:
            blocks: list[Block] = []
            if isinstance(reasoning, str) and reasoning:
                blocks.append(Block("reasoning", reasoning))
            blocks.append(Block("assistant_gen_text", text))
            blocks.extend(
                Block("function_tool_call", call_id=c.id, name=c.name, arguments=c.arguments)
                for c in calls
            )
            extra: dict[str, Any] = {"finish_reason": finish} if finish else {}
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
