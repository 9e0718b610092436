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
retry policy belongs to :mod:`compactor.pipeline.retry`), and :func:`post_completion` sends one
request body the caller serialised, under a deadline for the whole attempt, body included.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Mapping

import openai
from openai.types.chat import ChatCompletion

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
    "make_client",
    "post_completion",
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


async def post_completion(
    client: openai.AsyncOpenAI,
    *,
    body: Iterable[bytes],
    length: int,
    headers: Mapping[str, str] | None,
    deadline: float,
) -> ChatCompletion:
    """One chat completion of a request body serialised by the caller (``body``: its pieces,
    ``length`` bytes in all), ended ``deadline`` seconds after it starts whatever the server
    does.

    The SDK's documented route for a body it should not build (``client.post`` with
    ``content=``): its headers, auth (the bearer key, as ``create()`` sends it), error types and
    response parsing, without ``create()``'s TypedDict walk over every message and its
    ``json.dumps`` of the body (about 10 s for a 21,775-message history). Retries stay off (the
    client's ``max_retries=0``): :mod:`compactor.pipeline.retry` is the one retry owner. The body
    goes out piece by piece with its length announced (no chunked encoding): the event loop's write
    buffer holds a piece, not a second copy of a 50 MB body.

    The SDK's timeout is per read: a server that drips bytes never trips it. This is the
    deadline for the whole attempt (connect, send, headers and the complete body): a
    :class:`TimeoutError` when it passes."""
    sized = {"Content-Length": str(length)}
    options: openai.RequestOptions = {
        "security": {"bearer_auth": True},
        "headers": {**sized, **headers} if headers else sized,
    }
    async with asyncio.timeout(deadline):
        completion: ChatCompletion = await client.post(
            "/chat/completions", cast_to=ChatCompletion, content=_pieces(body), options=options
        )
        return completion


async def _pieces(body: Iterable[bytes]) -> AsyncIterator[bytes]:
    for piece in body:
        yield piece
