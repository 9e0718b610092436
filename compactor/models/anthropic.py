"""Anthropic's Messages API through the official ``anthropic`` client.

The same contract as the OpenAI backend (:mod:`compactor.models.openai`), through the same code
(:mod:`compactor.models.sdk_call`): the client's hidden
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
from typing import cast

import anthropic
from anthropic.types import Message as AnthropicReply
from anthropic.types import MessageParam

from compactor._json import JsonObject, JsonValue
from compactor.models.anthropic_errors import AnthropicErrors
from compactor.models.anthropic_wire import to_message, to_request
from compactor.models.providers import ANTHROPIC
from compactor.models.sdk_call import SdkModel
from compactor.schema import M, message_kind

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel"]

DEFAULT_MAX_TOKENS = 8192
"""``max_tokens`` of a request whose options give none (the API requires one)."""

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


class AnthropicModel(SdkModel[anthropic.AsyncAnthropic]):
    """A model behind Anthropic's ``/v1/messages`` endpoint (settings, keys and the call:
    :class:`~compactor.models.sdk_call.SdkModel`)."""

    provider = ANTHROPIC
    no_key = "sk-ant-no-key"
    sdk_base_url = ANTHROPIC.default_base_url
    sdk_client = anthropic.AsyncAnthropic
    sdk_http_client = anthropic.DefaultAsyncHttpxClient
    errors = AnthropicErrors

    async def generate(self, messages: list[M], **options: JsonValue) -> M:
        """One Messages API call; returns an assistant message of the input's type."""
        base_url, key = self.resolve()
        kind: type[M] = message_kind(messages)
        params = _params(options)
        system, wire = to_request(messages)
        if system:
            params["system"] = system
        errors = self.call_errors(base_url, key, params)

        async def create(client: anthropic.AsyncAnthropic) -> AnthropicReply:
            async with asyncio.timeout(self.timeout):
                # to_request builds the wire dicts the SDK's TypedDicts describe
                messages_param = cast("list[MessageParam]", wire)
                return await client.messages.create(
                    model=self.model, messages=messages_param, **params
                )

        reply = await self.call(base_url, key, create, errors)
        return to_message(reply, kind, errors)
