"""The HTTP side of an OpenAI-compatible call: a client whose response bodies are capped.

Every response body (replies and error bodies alike, which the SDK reads whole before raising) is
decoded here, not by the HTTP client: a response hook (:func:`cap_responses`) replaces the body
stream with a :class:`CappedBody` that decodes gzip/deflate itself and counts the *decoded*
bytes as they stream in. Past the limit (``model.max_response_bytes``, default
:data:`~compactor.models.registry.DEFAULT_MAX_RESPONSE_BYTES`) the connection is closed and the
attempt fails with
:class:`BodyRefused` (``too_large``), so a gzip bomb never inflates; an encoding other than
gzip/deflate, or a body that does not decode, is refused as ``malformed``.

:func:`make_client` builds the SDK client around that HTTP client (the SDK's own retries off:
retry policy belongs to :mod:`compactor.retry`), and :func:`create_completion` makes one
request under a deadline for the whole attempt, body included.
"""

from __future__ import annotations

import asyncio
from typing import Any

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from compactor.models.http_common import (
    BodyRefused,
    CappedBody,
    RedirectRefused,
    cap_responses,
    refuse_redirects,
)

__all__ = [
    "BodyRefused",
    "CappedBody",
    "RedirectRefused",
    "cap_responses",
    "create_completion",
    "make_client",
]


def make_client(
    *, api_key: str, base_url: str | None, timeout: float, limit: int
) -> openai.AsyncOpenAI:
    """An SDK client without hidden retries that never follows a redirect
    (:func:`refuse_redirects`) and whose every response body is capped at ``limit`` decoded
    bytes (see :func:`cap_responses`)."""
    http_client = openai.DefaultAsyncHttpxClient(
        timeout=timeout,
        # Only what CappedBody decodes (the client would also offer br and zstd).
        headers={"accept-encoding": "gzip, deflate"},
        # A redirect is never followed (the SDK's client would): see RedirectRefused.
        follow_redirects=False,
        event_hooks={"response": [refuse_redirects, cap_responses(limit)]},
    )
    return openai.AsyncOpenAI(
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=0,
        http_client=http_client,
    )


async def create_completion(
    client: openai.AsyncOpenAI,
    *,
    model: str,
    messages: list[ChatCompletionMessageParam],
    deadline: float,
    params: dict[str, Any],
) -> ChatCompletion:
    """One chat completion, ended ``deadline`` seconds after it starts whatever the server does.

    The SDK's timeout is per read: a server that drips bytes never trips it. This is the
    deadline for the whole attempt (connect, send, headers and the complete body): a
    :class:`TimeoutError` when it passes."""
    async with asyncio.timeout(deadline):
        completion: ChatCompletion = await client.chat.completions.create(
            model=model, messages=messages, **params
        )
        return completion
