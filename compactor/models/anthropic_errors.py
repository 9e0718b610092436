"""How a failed Messages API call becomes a :class:`~compactor.errors.ModelError`.

The same kinds as the OpenAI backend (:mod:`compactor.models.openai_errors`), read from
Anthropic's error types:

* a deadline passed, a dropped or cut connection, a malformed reply, a 429 (``retry-after``), a
  5xx or a 529 ``overloaded_error``: transient;
* 400 ``prompt is too long: N tokens > M maximum`` (and ``input length and max_tokens exceed
  context limit: N + R > M``), 413 ``request_too_large``: ``context_length``, with the window and
  the prompt's size as typed fields (``window``, ``prompt_tokens``);
* 401/403 (a refused key), 404 (an unknown model), 402 (billing): not transient, persistent
  (the circuit breaker opens at once); any other 4xx: ``bad_request``;
* a redirect (3xx): never followed, persistent (``kind=ErrorKind.REDIRECT``).

The API key (sent in a request header), the credentials in ``base_url`` and the values of the
request's ``extra_headers`` never enter an error message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import anthropic
import pydantic

from compactor._util import redact
from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import (
    BodyRefused,
    RedirectRefused,
    body_code,
    body_message,
    connection_detail,
    one_line,
    retry_after_seconds,
    unreachable,
)

__all__ = ["AnthropicErrors", "context_numbers"]

_TOO_LONG = re.compile(r"prompt is too long:\s*([\d,]+)\s*tokens\s*>\s*([\d,]+)", re.IGNORECASE)
_EXCEED = re.compile(
    r"input length and `?max_tokens`? exceed context limit:\s*([\d,]+)\s*\+\s*[\d,]+\s*>\s*"
    r"([\d,]+)",
    re.IGNORECASE,
)


def context_numbers(message: str) -> tuple[int, int] | None:
    """``(prompt_tokens, window)`` of Anthropic's context-length refusal, or None."""
    for pattern in (_TOO_LONG, _EXCEED):
        found = pattern.search(message)
        if found:
            prompt, window = (int(g.replace(",", "")) for g in found.groups())
            return prompt, window
    return None


def _own_refusal(err: BaseException) -> Exception | None:
    """The :class:`RedirectRefused` / :class:`BodyRefused` of compact's response hooks under
    ``err`` (the SDK wraps what a hook raises in an ``APIConnectionError``), or None."""
    seen: list[BaseException] = []
    inner: BaseException | None = err
    while inner is not None and inner not in seen and len(seen) < 8:
        seen.append(inner)
        if isinstance(inner, RedirectRefused | BodyRefused):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None


@dataclass(frozen=True, slots=True)
class AnthropicErrors:
    """The errors of one call to ``model``: every message names it, ``secrets`` are masked out
    of every message, and ``timeout`` is the deadline a timeout reports."""

    model: str
    """The model's name at the server (``claude-sonnet-4-5``)."""
    name: str
    """The model's name in compact (``anthropic:claude-sonnet-4-5``)."""
    timeout: float
    secrets: list[str]

    def fail(self, cause: str, *, kind: ErrorKind, transient: bool, **facts: Any) -> ModelError:
        """``failed to call anthropic model '<model>': <cause>``, secrets masked."""
        message = redact(f"failed to call anthropic model {self.model!r}: {cause}", self.secrets)
        return ModelError(message, kind=kind, transient=transient, model=self.name, **facts)

    def classify(self, err: Exception) -> ModelError:
        """The :class:`ModelError` for what the client raised (``err``)."""
        err = _own_refusal(err) or err
        if isinstance(err, RedirectRefused):
            return self.fail(
                f"{err} (a redirect would send the transcript and the request's headers "
                "elsewhere; set base_url to the server that answers)",
                kind=ErrorKind.REDIRECT,
                transient=False,
                status=err.status,
                persistent=True,
            )
        if isinstance(err, BodyRefused):
            return self.fail(str(err), kind=err.kind, transient=True)
        if isinstance(err, TimeoutError | anthropic.APITimeoutError):
            return self.fail(
                f"timed out after {self.timeout}s (the deadline for the whole request: connect, "
                "send and the complete response)",
                kind=ErrorKind.TIMEOUT,
                transient=True,
            )
        if isinstance(err, anthropic.APIConnectionError):
            return self.fail(
                f"connection error{connection_detail(err)}",
                kind=ErrorKind.CONNECTION,
                transient=True,
                persistent=unreachable(err),
            )
        if isinstance(err, anthropic.APIResponseValidationError):
            return self.fail(
                f"malformed response: {one_line(str(err.message))}",
                kind=ErrorKind.MALFORMED,
                transient=True,
            )
        if isinstance(err, anthropic.APIStatusError):
            return self._status(err)
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return self.fail(
                f"malformed response: {type(err).__name__}: {one_line(str(err))}",
                kind=ErrorKind.MALFORMED,
                transient=True,
            )
        return self.fail(
            f"{type(err).__name__}: {one_line(str(err))}", kind=ErrorKind.OTHER, transient=False
        )

    def _status(self, err: anthropic.APIStatusError) -> ModelError:
        code = err.status_code
        full = body_message(err)
        cause = f"HTTP {code}: {one_line(full)}"
        etype = body_code(err) or ""
        numbers = context_numbers(full)
        if code in (400, 413) and (numbers is not None or etype == "request_too_large"):
            prompt, window = numbers if numbers is not None else (None, None)
            return self.fail(
                cause,
                kind=ErrorKind.CONTEXT_LENGTH,
                transient=False,
                status=code,
                window=window,
                prompt_tokens=prompt,
            )
        retry_after = retry_after_seconds(err.response.headers)
        if code == 429:
            return self.fail(
                cause,
                kind=ErrorKind.RATE_LIMIT,
                transient=True,
                status=code,
                retry_after=retry_after,
            )
        if code >= 500 or etype in ("overloaded_error", "api_error"):
            return self.fail(
                cause, kind=ErrorKind.SERVER, transient=True, status=code, retry_after=retry_after
            )
        if code in (408, 409):
            # a request timeout, a lock conflict: the same request may go through next time (the
            # SDK retries both too)
            kind = ErrorKind.TIMEOUT if code == 408 else ErrorKind.CONFLICT
            return self.fail(cause, kind=kind, transient=True, status=code, retry_after=retry_after)
        if code == 404:
            return self.fail(
                cause, kind=ErrorKind.NOT_FOUND, transient=False, status=code, persistent=True
            )
        if code in (401, 403):
            return self.fail(
                cause, kind=ErrorKind.AUTH, transient=False, status=code, persistent=True
            )
        if code == 402:
            return self.fail(
                cause, kind=ErrorKind.OTHER, transient=False, status=code, persistent=True
            )
        if 400 <= code < 500:
            return self.fail(cause, kind=ErrorKind.BAD_REQUEST, transient=False, status=code)
        return self.fail(cause, kind=ErrorKind.OTHER, transient=False, status=code)
