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
retry policy belongs to :mod:`compactor.retry`), and :func:`post_completion` sends one request
body the caller serialised, under a deadline for the whole attempt, body included.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Mapping

import httpx2
import openai
from openai.types.chat import ChatCompletion

__all__ = [
    "BodyRefused",
    "CappedBody",
    "RedirectRefused",
    "cap_responses",
    "make_client",
    "post_completion",
]

_DECODE_PIECE = 64 * 1024
"""Inflate at most this many bytes per step, so a bomb is caught before it fills memory."""


class BodyRefused(Exception):
    """The response body was refused while it streamed in (too large, or undecodable)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class RedirectRefused(Exception):
    """The server answered with a redirect, which is never followed: a client that follows
    it sends the transcript and every custom header (``api-key``, ``extra_headers``: httpx
    strips only ``Authorization``) to the ``Location`` host, and a chat completion is a POST
    that no redirect should move."""

    def __init__(self, status: int, location: str) -> None:
        target = repr(location) if location else "no Location"
        super().__init__(f"HTTP {status} redirect to {target} not followed")
        self.status = status
        self.location = location


async def refuse_redirects(response: httpx2.Response) -> None:
    """An httpx response hook: a 3xx is refused (:class:`RedirectRefused`) before the client
    could follow it, and its connection is closed."""
    if 300 <= response.status_code < 400:
        location = response.headers.get("location", "")
        await response.aclose()
        raise RedirectRefused(response.status_code, location)


def _size(n: int) -> str:
    return f"{n / (1 << 20):g} MiB" if n >= 1 << 20 else f"{n:,} bytes"


class CappedBody(httpx2.AsyncByteStream):
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
                    raise BodyRefused(
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
                raise BodyRefused(
                    f"malformed response: bad {self._encoding} body ({err})", "malformed"
                ) from err
            self._fed = True
            if not out:
                return
            yield out
            data = inflate.unconsumed_tail

    async def aclose(self) -> None:
        await self._inner.aclose()


def cap_responses(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx response hook: every body (replies and error bodies alike) is decoded by
    :class:`CappedBody`, never by the client, so its decoded size is counted as it arrives."""

    async def hook(response: httpx2.Response) -> None:
        values = response.headers.get_list("content-encoding", split_commas=True)
        encodings = [v.strip().lower() for v in values if v.strip().lower() not in ("", "identity")]
        if len(encodings) > 1 or (encodings and encodings[0] not in ("gzip", "x-gzip", "deflate")):
            raise BodyRefused(
                f"malformed response: unsupported content-encoding {', '.join(encodings)!r}",
                "malformed",
            )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise BodyRefused(
                f"response larger than {_size(limit)} (model.max_response_bytes): the server "
                f"announced {_size(int(length))}",
                "too_large",
            )
        if encodings:
            del response.headers["content-encoding"]  # decoded by CappedBody, not again
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        response.stream = CappedBody(stream, limit, encodings[0] if encodings else None)

    return hook


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
    client's ``max_retries=0``): :mod:`compactor.retry` is the one retry owner. The body goes
    out piece by piece with its length announced (no chunked encoding): the event loop's write
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
