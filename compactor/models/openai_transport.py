"""The HTTP side of an OpenAI-compatible call: one request body the caller serialised, sent
under a deadline for the whole attempt, body included (:func:`post_completion`).

The client it goes through (:func:`compactor.models.sdk_call.sdk_client`, shared with the
Anthropic backend) has the SDK's own retries off (retry policy belongs to
:mod:`compactor.pipeline.retry`), never follows a redirect, and decodes every response body
itself (replies and error bodies alike): a response hook
(:func:`compactor.models.http_common.cap_responses`) counts the *decoded* gzip/deflate bytes as
they stream in, and past ``model.max_response_bytes`` (default
:data:`~compactor.models.providers.DEFAULT_MAX_RESPONSE_BYTES`) the attempt fails with
:class:`~compactor.models.http_common.BodyRefused` (``too_large``), so a gzip bomb never
inflates.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Mapping

import openai
from openai.types.chat import ChatCompletion

__all__ = ["post_completion"]


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
