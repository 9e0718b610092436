"""OpenAI-compatible chat completions through the official ``openai`` client (SPEC §7).

Works with any server speaking the API (OpenAI, Azure, vLLM, llama.cpp, Ollama, LiteLLM). The
client's hidden retries are off (``max_retries=0``): retry policy belongs to SPEC §6, so every
attempt is seen. Failures are raised as :class:`~compactor.errors.ModelError` with a ``kind`` the
retry policy can use.

This module owns :class:`OpenAIModel`: one call from messages to a reply (its settings, where
the key and the base URL come from, and the call through the SDK's client are
:class:`~compactor.models.sdk_call.SdkModel`'s, shared with the Anthropic backend).

Every byte from the server is treated as hostile, by the modules the call goes through:

* :mod:`compactor.models.openai_wire`: messages to the wire; reply shapes (a string or a list of
  text parts, nothing else) back to an assistant message, secrets removed from it.
* :mod:`compactor.models.openai_transport`: **one deadline per attempt** (``timeout`` bounds
  connect, send, headers and the complete body, so a server that sends a byte every half second
  cannot keep a call alive past it; the SDK's own timeout is per read) and **a capped body**
  (decoded gzip/deflate bytes counted as they stream in, error bodies too: past
  ``max_response_bytes``, default 16 MiB, the attempt fails as ``too_large``).
* :mod:`compactor.models.openai_errors`: what went wrong, as a ``kind``, ``transient`` and
  ``persistent`` (the circuit breaker's cue), with every secret masked (what both backends read
  alike: :class:`~compactor.models.sdk_call.SdkErrors`).

**Secrets.** The API key, the credentials in ``base_url`` and the values of the request's
``extra_headers`` never enter an error message, and are removed from the reply (a server that
echoes its request headers does not get them into the summary).
"""

from __future__ import annotations

import openai
from openai.types.chat import ChatCompletion

from compactor._json import JsonObject, JsonValue
from compactor.models.openai_body import RequestBody, request_body, request_params
from compactor.models.openai_errors import CallErrors
from compactor.models.openai_transport import post_completion
from compactor.models.openai_wire import to_message
from compactor.models.providers import OPENAI
from compactor.models.sdk_call import SdkModel
from compactor.schema import AgenticMessage, M, Message, message_kind

__all__ = ["OpenAIModel"]


def _params(options: JsonObject) -> JsonObject:
    return request_params(options)


class OpenAIModel(SdkModel[openai.AsyncOpenAI]):
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint (settings, keys
    and the call: :class:`~compactor.models.sdk_call.SdkModel`)."""

    readonly_input = True
    """``generate`` only reads its messages: the pipeline hands it the history, not a copy."""
    provider = OPENAI
    no_key = "sk-no-key"
    sdk_client = openai.AsyncOpenAI
    sdk_http_client = openai.DefaultAsyncHttpxClient
    errors = CallErrors

    def request_body(
        self, messages: list[Message] | list[AgenticMessage], **options: JsonValue
    ) -> RequestBody:
        """The JSON body of the request :meth:`generate` sends for ``messages``
        (:class:`~compactor.models.openai_wire.RequestBody`): the summary cache keys on its
        bytes (``sha256``), and :meth:`send_body` sends them as they are."""
        return request_body(self.model, messages, _params(options))

    async def generate(self, messages: list[M], **options: JsonValue) -> M:
        """One chat completion; returns an assistant message of the input's type."""
        body = self.request_body(messages, **options)
        kind: type[M] = message_kind(messages)
        return await self.send_body(body, kind, **options)

    async def send_body(self, body: RequestBody, kind: type[M], **options: JsonValue) -> M:
        """One chat completion of a body from :meth:`request_body` (``options`` as given to
        it: only ``extra_headers`` is read here); returns an assistant message of ``kind``."""
        base_url, key = self.resolve()
        params = _params(options)
        headers = params.get("extra_headers")
        errors = self.call_errors(base_url, key, params)

        async def create(client: openai.AsyncOpenAI) -> ChatCompletion:
            return await post_completion(
                client,
                body=body.pieces(),
                length=body.length,
                headers=headers if isinstance(headers, dict) else None,
                deadline=self.timeout,
            )

        completion = await self.call(base_url, key, create, errors)
        return to_message(completion, kind, errors)
