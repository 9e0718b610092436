"""OpenAI-compatible chat completions through the official ``openai`` client (SPEC §7).

Works with any server speaking the API (OpenAI, Azure, vLLM, llama.cpp, Ollama, LiteLLM). The
client's hidden retries are off (``max_retries=0``): retry policy belongs to SPEC §6, so every
attempt is seen. Failures are raised as :class:`~compactor.errors.ModelError` with a ``kind`` the
retry policy can use.

This module owns :class:`OpenAIModel`: its settings, where the key and the base URL come from,
and one call from messages to a reply. Every byte from the server is treated as hostile, by the
modules the call goes through:

* :mod:`compactor.models.openai_wire`: messages to the wire; reply shapes (a string or a list of
  text parts, nothing else) back to an assistant message, secrets removed from it.
* :mod:`compactor.models.openai_transport`: **one deadline per attempt** (``timeout`` bounds
  connect, send, headers and the complete body, so a server that sends a byte every half second
  cannot keep a call alive past it; the SDK's own timeout is per read) and **a capped body**
  (decoded gzip/deflate bytes counted as they stream in, error bodies too: past
  ``max_response_bytes``, default 16 MiB, the attempt fails as ``too_large``).
* :mod:`compactor.models.openai_errors`: what went wrong, as a ``kind``, ``transient`` and
  ``persistent`` (the circuit breaker's cue), with every secret masked.

**Secrets.** The API key, the credentials in ``base_url`` and the values of the request's
``extra_headers`` never enter an error message, and are removed from the reply (a server that
echoes its request headers does not get them into the summary).
"""

from __future__ import annotations

import json
import os
from typing import Any

import openai
import pydantic
from openai.types.chat import ChatCompletion

from compactor._json import JsonObject
from compactor._util import (
    MIN_FREE_TEXT_SECRET,
    redact,
    register_secret,
    url_secrets,
)
from compactor.errors import ErrorKind, ModelError
from compactor.models.base import openai_endpoint
from compactor.models.http_common import call_secrets
from compactor.models.openai_body import RequestBody, request_body, request_params
from compactor.models.openai_errors import CallErrors
from compactor.models.openai_transport import (
    BodyRefused,
    RedirectRefused,
    make_client,
    post_completion,
)
from compactor.models.openai_wire import to_message
from compactor.models.pool import pooled_client, request_slot
from compactor.models.registry import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, INPUT_MODES
from compactor.schema import message_kind

__all__ = ["OpenAIModel"]

_NO_KEY = "sk-no-key"


def _params(options: JsonObject) -> JsonObject:
    return request_params(options)


def _secrets_of(key: str | None, base_url: str | None, params: JsonObject) -> list[str]:
    """Every secret a call carries (:func:`compactor.models.http_common.call_secrets`)."""
    return call_secrets(key, base_url, params, no_key=_NO_KEY)


class OpenAIModel:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    remote = True
    """Secret masking is on by default for it: even a loopback proxy may forward to a cloud."""
    readonly_input = True
    """``generate`` only reads its messages: the pipeline hands it the history, not a copy."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
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
        for part in url_secrets(base_url):
            if len(part) >= MIN_FREE_TEXT_SECRET:
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
                    kind=ErrorKind.AUTH,
                    model=self.name,
                )
            key = _NO_KEY
        return base_url, key

    def request_body(self, messages: list[Any], **options: Any) -> RequestBody:
        """The JSON body of the request :meth:`generate` sends for ``messages``
        (:class:`~compactor.models.openai_wire.RequestBody`): the summary cache keys on its
        bytes (``sha256``), and :meth:`send_body` sends them as they are."""
        return request_body(self.model, messages, _params(options))

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        """One chat completion; returns an assistant message of the input's type."""
        body = self.request_body(messages, **options)
        return await self.send_body(body, message_kind(messages), **options)

    async def send_body(self, body: RequestBody, kind: type[Any], **options: Any) -> Any:
        """One chat completion of a body from :meth:`request_body` (``options`` as given to
        it: only ``extra_headers`` is read here); returns an assistant message of ``kind``."""
        base_url, key = self._resolve()
        params = _params(options)
        headers = params.get("extra_headers")
        secrets = _secrets_of(key, base_url, params)
        for secret in secrets:
            register_secret(secret)
        errors = CallErrors(model=self.model, name=self.name, timeout=self.timeout, secrets=secrets)
        limit = self.max_response_bytes

        def new_client() -> openai.AsyncOpenAI:
            return make_client(api_key=key, base_url=base_url, timeout=self.timeout, limit=limit)

        async def create(client: openai.AsyncOpenAI) -> ChatCompletion:
            return await post_completion(
                client,
                body=body.pieces(),
                length=body.length,
                headers=headers if isinstance(headers, dict) else None,
                deadline=self.timeout,
            )

        try:
            # Inside shared_clients(): reuse its client and connections, and hold one of its
            # request slots (a batch's --jobs bounds the requests in flight, not the files).
            async with request_slot():
                shared = pooled_client(("openai", base_url, key, self.timeout, limit), new_client)
                if shared is not None:
                    completion = await create(shared)
                else:
                    async with new_client() as client:
                        completion = await create(client)
        except ModelError:
            raise
        except (
            openai.OpenAIError,
            json.JSONDecodeError,
            pydantic.ValidationError,
            BodyRefused,
            RedirectRefused,
            TimeoutError,
        ) as err:
            raise errors.classify(err) from err
        return to_message(completion, kind, errors)
