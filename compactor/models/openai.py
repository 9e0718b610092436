"""OpenAI-compatible chat completions through the official ``openai`` client (SPEC §7).

Works with any server speaking the API (OpenAI, Azure, vLLM, llama.cpp, Ollama, LiteLLM). The
client's hidden retries are off (``max_retries=0``): retry policy belongs to SPEC §6, so every
attempt is seen. Failures are raised as :class:`~compactor.errors.ModelError` with a ``kind`` the
retry policy can use.

Every byte from the server is treated as hostile:

* **One deadline per attempt.** ``timeout`` bounds the whole request (connect, send, headers and
  the complete body) with :func:`asyncio.timeout` around the SDK call, so a server that sends a
  byte every half second cannot keep a call alive past it (the SDK's own timeout is per read).
* **A capped body.** A response hook on the HTTP client decodes gzip/deflate itself and counts
  the *decoded* bytes as they stream in: past ``max_response_bytes`` (default 16 MiB) the
  connection is closed and the attempt fails (``too_large``). Error bodies, which the SDK reads
  whole before raising, go through the same cap, so a gzip bomb never inflates.
* **Reply shapes.** ``message.content`` may be a string or a list of text parts; any other shape
  is refused with a message that says what came.
* **Secrets.** The API key, the credentials in ``base_url`` and the values of the request's
  ``extra_headers`` never enter an error message, and are removed from the reply (a server that
  echoes its request headers does not get them into the summary).

Errors a server repeats whatever it is sent are marked ``persistent`` (the circuit breaker of
:mod:`compactor.summarize` opens on them): a connection that cannot be made (refused, no such
host), a refused key (401/403), an unknown model (404, ``model_not_found``), an exhausted quota.
A request whose *messages* the server's schema refuses (llama.cpp's server answers HTTP 500 "N
validation errors … Input should be a valid string" to ``content: null``; FastAPI servers 422
with ``literal_error``) is ``kind="validation"``, not transient: the summarizer then sends the
conversation as a transcript (``input_mode``, see :mod:`compactor.rendering`).
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import json
import math
import os
import re
import time
import urllib.parse
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, cast

import httpx2
import openai
import pydantic
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from compactor._util import MIN_FREE_TEXT_SECRET, redact, register_secret, url_credentials
from compactor.errors import ModelError
from compactor.models.base import openai_endpoint
from compactor.models.pool import pooled_client, request_slot
from compactor.models.registry import INPUT_MODES
from compactor.schema import (
    MEDIA_BLOCK_TYPES,
    MEDIA_PART_TYPES,
    AgenticMessage,
    Block,
    Message,
    ToolCall,
    Usage,
    make_assistant,
    message_kind,
)

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "OpenAIModel", "to_wire"]

DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
"""The largest response body (after gzip/deflate decoding) a call accepts: 16 MiB."""

_NO_KEY = "sk-no-key"
_DECODE_PIECE = 64 * 1024
"""Inflate at most this many bytes per step, so a bomb is caught before it fills memory."""
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
_VALIDATION_RE = re.compile(
    r"validation errors?\b|input should be|literal_error|string_type|extra_forbidden"
    r"|union_tag_invalid|extra inputs are not permitted|invalid (?:type|value) for '?messages"
    r"|roles? must alternate|(?:unexpected|invalid|unknown|unsupported) (?:message )?role"
    r"|(?:content|tool_calls?|tool_call_id)\W.{0,40}(?:must be a string|expected a string"
    r"|not (?:supported|allowed|permitted))",
    re.IGNORECASE | re.DOTALL,
)
"""What a server says when its request schema refuses a message field (pydantic, FastAPI,
OpenAI's ``Invalid type for 'messages[2].content'``, chat templates that refuse a role)."""

_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "context size",
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


def _seconds(value: str, scale: float = 1.0) -> float | None:
    """A non-negative finite number of seconds, or None (``inf``, ``nan``, not a number)."""
    try:
        seconds = float(value) * scale
    except ValueError:
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), as the server
    said them: the retry engine caps every wait at its ``max_delay``, so an absurd value (a
    billion seconds, a date in the year 9999) costs that cap and no more. ``inf``, ``nan`` and
    unparsable values count as not given."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        seconds = _seconds(value, 0.001)
        if seconds is not None:
            return seconds
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _seconds(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


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


def _body_int(err: Any, *names: str) -> int | None:
    """The first non-negative integer field of the error body among ``names`` (llama.cpp's
    ``llama-server`` puts ``n_ctx`` and ``n_prompt_tokens`` beside its context-size message)."""
    body = getattr(err, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    for scope in (inner, body):
        if not isinstance(scope, dict):
            continue
        for name in names:
            value = scope.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
    return None


def _unreachable(err: BaseException) -> bool:
    """Whether no connection could be made at all (refused, no such host, no route): a dead
    server, not a dropped reply."""
    seen: list[BaseException] = []
    inner: BaseException | None = err
    while inner is not None and inner not in seen and len(seen) < 8:
        seen.append(inner)
        if isinstance(inner, httpx2.ConnectError | ConnectionRefusedError):
            return True
        inner = inner.__cause__ or inner.__context__
    return False


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


class _BodyRefused(Exception):
    """The response body was refused while it streamed in (too large, or undecodable)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n:,} bytes"


class _CappedBody(httpx2.AsyncByteStream):
    """The response stream, decoded here (gzip/deflate) and cut off past ``limit`` bytes.

    Inflating works in pieces of at most 64 KiB and the count is checked after each, so a
    1 MB body that would inflate to 1 GB costs ``limit`` bytes of work and 64 KiB of memory.
    """

    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, encoding: str | None) -> None:
        self._inner = inner
        self._limit = limit
        self._encoding = encoding
        # 32 + 15: a zlib or a gzip header, detected; "deflate" may also be raw (tried next).
        self._inflate = zlib.decompressobj(47) if encoding is not None else None
        self._fed = False
        self._total = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for raw in self._inner:
            for piece in self._decode(raw) if raw else ():
                self._total += len(piece)
                if self._total > self._limit:
                    raise _BodyRefused(
                        f"response larger than {_size(self._limit)} (model.max_response_bytes)",
                        "too_large",
                    )
                yield piece

    def _decode(self, data: bytes) -> Iterator[bytes]:
        inflate = self._inflate
        if inflate is None:
            yield data
            return
        while True:
            try:
                out = inflate.decompress(data, _DECODE_PIECE)
            except zlib.error as err:
                if self._encoding == "deflate" and not self._fed:
                    self._fed = True  # no zlib header: raw deflate, as some servers send
                    inflate = self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise _BodyRefused(
                    f"malformed response: bad {self._encoding} body ({err})", "malformed"
                ) from err
            self._fed = True
            if not out:
                return
            yield out
            data = inflate.unconsumed_tail

    async def aclose(self) -> None:
        await self._inner.aclose()


def _cap_responses(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx response hook: every body (replies and error bodies alike) is decoded by
    :class:`_CappedBody`, never by the client, so its decoded size is counted as it arrives."""

    async def hook(response: httpx2.Response) -> None:
        values = response.headers.get_list("content-encoding", split_commas=True)
        encodings = [v.strip().lower() for v in values if v.strip().lower() not in ("", "identity")]
        if len(encodings) > 1 or (encodings and encodings[0] not in ("gzip", "x-gzip", "deflate")):
            raise _BodyRefused(
                f"malformed response: unsupported content-encoding {', '.join(encodings)!r}",
                "malformed",
            )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise _BodyRefused(
                f"response larger than {_size(limit)} (model.max_response_bytes): the server "
                f"announced {_size(int(length))}",
                "too_large",
            )
        if encodings:
            del response.headers["content-encoding"]  # decoded by _CappedBody, not again
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        response.stream = _CappedBody(stream, limit, encodings[0] if encodings else None)

    return hook


def _secrets_of(key: str | None, base_url: str | None, headers: Any) -> list[str]:
    """Every secret a call carries: the key, ``base_url``'s credentials (also as the Basic
    auth value the client derives from them) and the values of the extra headers (those of
    :data:`~compactor._util.MIN_FREE_TEXT_SECRET` characters or more: shorter ones are words)."""
    found: list[str] = []
    user, password = url_credentials(base_url)
    for part in (user, password):
        if part:
            found.extend({part, urllib.parse.unquote(part)})
    if user is not None or password is not None:
        pair = f"{urllib.parse.unquote(user or '')}:{urllib.parse.unquote(password or '')}"
        found.append(base64.b64encode(pair.encode()).decode())
    if isinstance(headers, dict):
        found.extend(str(v) for v in headers.values() if v is not None)
    found = [s for s in found if len(s) >= MIN_FREE_TEXT_SECRET]
    if key and key != _NO_KEY and len(key) >= 4:
        found.append(key)
    return found


def _scrub(text: str, secrets: list[str]) -> str:
    """``text`` without any of ``secrets`` (longest first), each replaced by ``***``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "***")
    return text


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
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        input_mode: str = "auto",
    ) -> None:
        if input_mode not in INPUT_MODES:
            raise ValueError(f"input_mode must be one of {INPUT_MODES}, got {input_mode!r}")
        self.model = name
        self.name = f"openai:{name}"
        self.base_url = base_url
        self.input_mode = input_mode
        """``messages`` (structured chat messages), ``transcript`` (the conversation rendered as
        text in one user message, which every chat server accepts) or ``auto`` (messages, and
        the transcript for the rest of the run once the server's schema refuses them)."""
        self.timeout = timeout
        """Seconds for one whole attempt: connect, send, and the complete response."""
        self.max_response_bytes = max_response_bytes
        """The largest response body accepted, counted after gzip/deflate decoding."""
        self._api_key = api_key
        register_secret(api_key)
        for part in url_credentials(base_url):
            if part is not None and len(part) >= MIN_FREE_TEXT_SECRET:
                register_secret(part)

    def __repr__(self) -> str:
        base_url = redact(self.base_url) if self.base_url else self.base_url
        return (
            f"OpenAIModel(name={self.model!r}, base_url={base_url!r}, timeout={self.timeout}, "
            f"input_mode={self.input_mode!r})"
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's),
        its credentials masked: part of the summary cache's key, so two servers never share a
        cached reply."""
        return openai_endpoint(self.base_url)

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
        key: str | list[str],
        *,
        kind: str,
        transient: bool,
        status: int | None = None,
        retry_after: float | None = None,
        partial_response: Any = None,
        persistent: bool = False,
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> ModelError:
        secrets = [key] if isinstance(key, str) else key
        message = redact(f"failed to call openai model {self.model!r}: {cause}", secrets)
        return ModelError(
            message,
            kind=kind,
            transient=transient,
            status=status,
            retry_after=retry_after,
            model=self.name,
            partial_response=partial_response,
            persistent=persistent,
            window=window,
            prompt_tokens=prompt_tokens,
        )

    def _classify(self, err: Exception, key: list[str]) -> ModelError:
        if isinstance(err, _BodyRefused):
            # Retrying may get a sane reply (a proxy's hiccup); another model may too.
            return self._fail(str(err), key, kind=err.kind, transient=True)
        if isinstance(err, TimeoutError):
            return self._fail(
                f"timed out after {self.timeout}s (the deadline for the whole request: connect, "
                "send and the complete response)",
                key,
                kind="timeout",
                transient=True,
            )
        if isinstance(err, openai.APITimeoutError):
            return self._fail(
                f"timed out after {self.timeout}s", key, kind="timeout", transient=True
            )
        if isinstance(err, openai.APIConnectionError):
            detail = _connection_detail(err)
            # Refused or no such host: the same next time (the circuit breaker opens). A
            # dropped or cut reply is a hiccup worth a retry.
            return self._fail(
                f"connection error{detail}",
                key,
                kind="connection",
                transient=True,
                persistent=_unreachable(err),
            )
        if isinstance(err, openai.APIResponseValidationError):
            return self._fail(
                f"malformed response: {_one_line(str(err.message))}",
                key,
                kind="malformed",
                transient=True,
            )
        if isinstance(err, openai.APIStatusError):
            code = err.status_code
            full = _body_message(err)
            detail = _one_line(full)
            cause = f"HTTP {code}: {detail}"
            lowered = full.lower() + " " + (_body_code(err) or "").lower()
            if code in (400, 413, 422) or (code >= 500 and "context" in lowered):
                if any(word in lowered for word in _CONTEXT_WORDS):
                    return self._fail(
                        cause,
                        key,
                        kind="context_length",
                        transient=False,
                        status=code,
                        window=_body_int(err, "n_ctx"),
                        prompt_tokens=_body_int(err, "n_prompt_tokens"),
                    )
            if code >= 400 and _VALIDATION_RE.search(full):
                # The server's schema refused a message field: sending the same again gets the
                # same answer, even as a 500 (llama.cpp's server).
                return self._fail(cause, key, kind="validation", transient=False, status=code)
            if code == 429:
                quota = _body_code(err) == "insufficient_quota"
                return self._fail(
                    cause,
                    key,
                    kind="rate_limit",
                    transient=not quota,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                    persistent=quota,
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
            if code == 404 or _body_code(err) == "model_not_found":
                return self._fail(
                    cause, key, kind="not_found", transient=False, status=code, persistent=True
                )
            if code in (400, 413, 422):
                return self._fail(cause, key, kind="bad_request", transient=False, status=code)
            if code in (401, 403):
                return self._fail(
                    cause, key, kind="auth", transient=False, status=code, persistent=True
                )
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
        # to_wire builds the wire dicts the TypedDicts describe
        wire = cast("list[ChatCompletionMessageParam]", to_wire(messages))
        secrets = _secrets_of(key, base_url, params.get("extra_headers"))
        for secret in secrets:
            register_secret(secret)
        limit = self.max_response_bytes

        def make_client() -> openai.AsyncOpenAI:
            http_client = openai.DefaultAsyncHttpxClient(
                timeout=self.timeout,
                # Only what _CappedBody decodes (the client would also offer br and zstd).
                headers={"accept-encoding": "gzip, deflate"},
                event_hooks={"response": [_cap_responses(limit)]},
            )
            return openai.AsyncOpenAI(
                api_key=key,
                base_url=base_url,
                timeout=self.timeout,
                max_retries=0,
                http_client=http_client,
            )

        async def create(client: openai.AsyncOpenAI) -> ChatCompletion:
            # The SDK's timeout is per read: a server that drips bytes never trips it. This is
            # the deadline for the whole attempt, body included.
            async with asyncio.timeout(self.timeout):
                completion: ChatCompletion = await client.chat.completions.create(
                    model=self.model, messages=wire, **params
                )
                return completion

        try:
            # Inside shared_clients(): reuse its client and connections, and hold one of its
            # request slots (a batch's --jobs bounds the requests in flight, not the files).
            async with request_slot():
                shared = pooled_client(("openai", base_url, key, self.timeout, limit), make_client)
                if shared is not None:
                    completion = await create(shared)
                else:
                    async with make_client() as client:
                        completion = await create(client)
        except ModelError:
            raise
        except (
            openai.OpenAIError,
            json.JSONDecodeError,
            pydantic.ValidationError,
            _BodyRefused,
            TimeoutError,
        ) as err:
            raise self._classify(err, secrets) from err
        return self._to_message(completion, kind, secrets)

    def _to_message(self, completion: Any, kind: type[Any], key: list[str]) -> Any:
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
                partial_response=self._partial(completion, choice, kind, key),
            )
        if finish == "length":
            raise self._fail(
                "the reply was cut off at the token limit (finish_reason 'length')",
                key,
                kind="length",
                transient=False,
                partial_response=self._partial(completion, choice, kind, key),
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
        text = self._content_text(getattr(wire_msg, "content", None), key)
        calls = [
            ToolCall(
                _scrub(str(c.id), key),
                _scrub(str(c.function.name), key),
                _scrub(str(c.function.arguments or ""), key),
            )
            for c in (getattr(wire_msg, "tool_calls", None) or [])
            if getattr(c, "function", None) is not None
        ]
        if not text.strip():
            raise self._fail("empty response: no text content", key, kind="empty", transient=True)
        # A server that echoes its request (headers, URL) must not get a secret into the summary.
        text = _scrub(text, key)
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
            reasoning = _scrub(reasoning, key)
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

    def _partial(self, completion: Any, choice: Any, kind: type[Any], key: list[str]) -> Any:
        """The text a stopped reply did carry, as an assistant message (None: no text), so
        that retry and failover policies see it with the error."""
        try:
            text = self._content_text(getattr(choice.message, "content", None), key)
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
        msg = make_assistant(kind, _scrub(text, key), usage)
        if isinstance(msg, Message):
            msg.finish_reason = getattr(choice, "finish_reason", None)
        else:
            msg.extra["finish_reason"] = getattr(choice, "finish_reason", None)
        return msg

    def _content_text(self, content: Any, key: list[str]) -> str:
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
                raise self._fail(
                    f"unsupported reply: content part {i} is {_one_line(what, 80)}; only text "
                    "parts ({'type': 'text', 'text': ...}) are accepted",
                    key,
                    kind="malformed",
                    transient=False,
                )
            return "".join(texts)
        raise self._fail(
            f"unsupported reply: content is a {type(content).__name__}, expected a string or a "
            "list of text parts",
            key,
            kind="malformed",
            transient=False,
        )


def _count(value: Any) -> int:
    """A usage count as a non-negative int (a server may send null, a float or a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if not math.isfinite(value):
        return 0
    return max(0, int(value))
