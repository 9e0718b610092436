"""Anthropic's Messages API through the official ``anthropic`` client.

The same contract as the OpenAI backend (:mod:`compactor.models.openai`): the client's hidden
retries are off (``max_retries=0``, retry belongs to :mod:`compactor.pipeline.retry`), a redirect is
never followed, every response body is capped at ``max_response_bytes`` decoded bytes
(:mod:`compactor.models.http_common`), one deadline bounds a whole attempt, failures are
:class:`~compactor.errors.ModelError` with a ``kind`` (:mod:`compactor.models.anthropic_errors`),
and the key (sent in a request header), the credentials in ``base_url`` and the values of
``extra_headers`` are masked in every message and removed from the reply.

The request: the system and developer messages as ``system``, the rest as ``messages`` of text
blocks (:mod:`compactor.models.anthropic_wire`), and ``max_tokens`` (required by the API): the
request's ``max_tokens`` / ``max_completion_tokens`` option, else :data:`DEFAULT_MAX_TOKENS`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import anthropic
import pydantic
from anthropic.types import MessageParam

from compactor._json import JsonObject
from compactor._util import (
    MIN_FREE_TEXT_SECRET,
    redact,
    register_secret,
    url_secrets,
)
from compactor.errors import ErrorKind, ModelError
from compactor.models.anthropic_errors import AnthropicErrors
from compactor.models.anthropic_wire import to_message, to_request
from compactor.models.http_common import (
    BodyRefused,
    RedirectRefused,
    call_secrets,
    cap_responses,
    refuse_redirects,
)
from compactor.models.pool import pooled_client, request_slot
from compactor.models.providers import ANTHROPIC, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT
from compactor.schema import message_kind

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel"]

DEFAULT_MAX_TOKENS = 8192
"""``max_tokens`` of a request whose options give none (the API requires one)."""

_NO_KEY = "sk-ant-no-key"
_OPTIONS = frozenset(
    {
        "temperature",
        "top_p",
        "top_k",
        "max_tokens",
        "stop_sequences",
        "metadata",
        "thinking",
        "extra_body",
        "extra_headers",
        "extra_query",
    }
)

_BODY_OPTIONS = ("temperature", "top_p", "top_k")
"""Options sent in the request body (``extra_body``), not as the SDK's keywords."""


def _secrets_of(key: str | None, base_url: str | None, params: JsonObject) -> list[str]:
    """Every secret a call carries (:func:`compactor.models.http_common.call_secrets`)."""
    return call_secrets(key, base_url, params, no_key=_NO_KEY)


def _params(options: JsonObject) -> JsonObject:
    """The request's parameters from the model options: ``max_completion_tokens`` counts as
    ``max_tokens``, ``stop`` as ``stop_sequences``; other chat-completions options are
    dropped."""
    params = {k: v for k, v in options.items() if k in _OPTIONS and v is not None}
    if "max_tokens" not in params and options.get("max_completion_tokens") is not None:
        params["max_tokens"] = options["max_completion_tokens"]
    stop = options.get("stop")
    if "stop_sequences" not in params and stop is not None:
        params["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
    params.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    # Sampling settings the SDK's signature does not take (it names only the request's core
    # fields) go in the body as the API reads them.
    body = {k: params.pop(k) for k in _BODY_OPTIONS if k in params}
    if body:
        extra = params.get("extra_body")
        params["extra_body"] = {**body, **(extra if isinstance(extra, dict) else {})}
    return params


class AnthropicModel:
    """A model behind Anthropic's ``/v1/messages`` endpoint."""

    remote = True

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
        self.model = name
        self.name = f"{ANTHROPIC.prefix}:{name}"
        self.base_url = base_url
        self.input_mode = input_mode
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._api_key = api_key
        register_secret(api_key)
        for part in url_secrets(base_url):
            if len(part) >= MIN_FREE_TEXT_SECRET:
                register_secret(part)

    def __repr__(self) -> str:
        base_url = redact(self.base_url) if self.base_url else self.base_url
        return f"AnthropicModel(name={self.model!r}, base_url={base_url!r}, timeout={self.timeout})"

    @property
    def endpoint(self) -> str:
        """The base URL requests go to, credentials masked (part of the summary cache's key)."""
        return ANTHROPIC.endpoint(self.base_url)

    def _resolve(self) -> tuple[str, str]:
        base_url = self.base_url or ANTHROPIC.env_base_url() or ANTHROPIC.default_base_url or ""
        key = self._api_key or ANTHROPIC.env_key() or None
        register_secret(key)
        if key is None:
            if not (self.base_url or ANTHROPIC.env_base_url()):
                raise ModelError(
                    f"no API key: set {ANTHROPIC.key_env} or model.api_key",
                    kind=ErrorKind.AUTH,
                    model=self.name,
                )
            key = _NO_KEY
        return base_url, key

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        """One Messages API call; returns an assistant message of the input's type."""
        base_url, key = self._resolve()
        kind = message_kind(messages)
        params = _params(options)
        system, wire = to_request(messages)
        if system:
            params["system"] = system
        secrets = _secrets_of(key, base_url, params)
        for secret in secrets:
            register_secret(secret)
        errors = AnthropicErrors(
            model=self.model, name=self.name, timeout=self.timeout, secrets=secrets
        )
        limit = self.max_response_bytes

        def new_client() -> anthropic.AsyncAnthropic:
            http_client = anthropic.DefaultAsyncHttpxClient(
                timeout=self.timeout,
                headers={"accept-encoding": "gzip, deflate"},
                follow_redirects=False,
                event_hooks={"response": [refuse_redirects, cap_responses(limit)]},
            )
            return anthropic.AsyncAnthropic(
                api_key=key,
                base_url=base_url,
                timeout=self.timeout,
                max_retries=0,
                http_client=http_client,
            )

        async def create(client: anthropic.AsyncAnthropic) -> Any:
            async with asyncio.timeout(self.timeout):
                # to_request builds the wire dicts the SDK's TypedDicts describe
                messages_param = cast("list[MessageParam]", wire)
                return await client.messages.create(
                    model=self.model, messages=messages_param, **params
                )

        try:
            async with request_slot():
                pool_key = (ANTHROPIC.prefix, base_url, key, self.timeout, limit)
                shared = pooled_client(pool_key, new_client)
                if shared is not None:
                    reply = await create(shared)
                else:
                    async with new_client() as client:
                        reply = await create(client)
        except ModelError:
            raise
        except (
            anthropic.AnthropicError,
            json.JSONDecodeError,
            pydantic.ValidationError,
            BodyRefused,
            RedirectRefused,
            TimeoutError,
        ) as err:
            raise errors.classify(err) from err
        return to_message(reply, kind, errors)
