"""What every HTTP model backend shares, whatever its SDK: the response body cap, the refused
redirect, the secrets a call carries (:func:`call_secrets`), and reading a failed call
(``retry-after``, the error body's message, what broke a connection). Moved out of the openai
modules so that another backend (Anthropic's) uses the same code without importing the openai
SDK; this module imports only the HTTP client.

Every response body (replies and error bodies alike, which the SDKs read whole before raising)
is decoded here, not by the HTTP client: a response hook (:func:`cap_responses`) replaces the
body stream with a :class:`CappedBody` that decodes gzip/deflate itself and counts the
*decoded* bytes as they stream in. Past the limit (``model.max_response_bytes``) the
connection is closed and the attempt fails with :class:`BodyRefused` (``too_large``), so a gzip
bomb never inflates; an encoding other than gzip/deflate, or a body that does not decode, is
refused as ``malformed``. :func:`refuse_redirects` refuses every 3xx (:class:`RedirectRefused`).
"""

from __future__ import annotations

import base64
import email.utils
import math
import time
import urllib.parse
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping

import httpx2

from compactor._json import JsonObject
from compactor._util import (
    MIN_FREE_TEXT_SECRET,
    is_query_secret_name,
    url_credentials,
    url_secrets,
)
from compactor.errors import ErrorKind

__all__ = [
    "BodyRefused",
    "CappedBody",
    "RedirectRefused",
    "body_code",
    "body_int",
    "body_message",
    "call_secrets",
    "cap_responses",
    "connection_detail",
    "one_line",
    "refuse_redirects",
    "retry_after_seconds",
    "unreachable",
]

_DECODE_PIECE = 64 * 1024


def call_secrets(
    key: str | None, base_url: str | None, params: JsonObject, *, no_key: str
) -> list[str]:
    """Every secret a call carries: the key (unless it is the backend's ``no_key`` stand-in),
    ``base_url``'s credentials (userinfo, also as the Basic auth value a client derives from it,
    and ``?api-key=``-like query values), the values of the extra headers and the credentials in
    ``extra_query`` / ``extra_body`` (those of :data:`~compactor._util.MIN_FREE_TEXT_SECRET`
    characters or more: shorter ones are words)."""
    found: list[str] = url_secrets(base_url)
    user, password = url_credentials(base_url)
    if user is not None or password is not None:
        pair = f"{urllib.parse.unquote(user or '')}:{urllib.parse.unquote(password or '')}"
        found.append(base64.b64encode(pair.encode()).decode())
    headers = params.get("extra_headers")
    if isinstance(headers, dict):
        found.extend(str(v) for v in headers.values() if v is not None)
    for extra in (params.get("extra_query"), params.get("extra_body")):
        if isinstance(extra, dict):
            found.extend(
                v for k, v in extra.items() if isinstance(v, str) and is_query_secret_name(k)
            )
    found = [s for s in found if len(s) >= MIN_FREE_TEXT_SECRET]
    if key and key != no_key and len(key) >= 4:
        found.append(key)
    return found


"""Inflate at most this many bytes per step, so a bomb is caught before it fills memory."""


class BodyRefused(Exception):
    """The response body was refused while it streamed in (too large, or undecodable)."""

    def __init__(self, message: str, kind: ErrorKind) -> None:
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
                        ErrorKind.TOO_LARGE,
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
                    f"malformed response: bad {self._encoding} body ({err})", ErrorKind.MALFORMED
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
                ErrorKind.MALFORMED,
            )
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            raise BodyRefused(
                f"response larger than {_size(limit)} (model.max_response_bytes): the server "
                f"announced {_size(int(length))}",
                ErrorKind.TOO_LARGE,
            )
        if encodings:
            del response.headers["content-encoding"]  # decoded by CappedBody, not again
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        response.stream = CappedBody(stream, limit, encodings[0] if encodings else None)

    return hook


def _seconds(value: str, scale: float = 1.0) -> float | None:
    """A non-negative finite number of seconds, or None (``inf``, ``nan``, not a number)."""
    try:
        seconds = float(value) * scale
    except ValueError:
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
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


def body_message(err: object) -> str:
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


def body_int(err: object, *names: str) -> int | None:
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


def unreachable(err: BaseException) -> bool:
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


def body_code(err: object) -> str | None:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            code = inner.get("code") or inner.get("type")
            return str(code) if code is not None else None
    return None


def connection_detail(err: BaseException) -> str:
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
            return f" ({type(e).__name__}: {one_line(str(e))})"
    return f" ({type(seen[0]).__name__})" if seen else ""


def one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
