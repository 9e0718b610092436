"""How a failed OpenAI-compatible call becomes a :class:`~compactor.errors.ModelError`.

Each failure gets a ``kind`` the retry policy (SPEC §6) can use, and says whether it is worth
retrying (``transient``):

* a deadline passed, a dropped or cut connection, a malformed reply, a 408, 409, 429 or a 5xx:
  transient;
* a refusal the same request gets again (a 4xx, a content filter, a wrong role): not transient;
* a redirect (3xx): never followed, not transient, persistent (``kind="redirect"``, naming the
  ``Location`` it pointed to).

Errors a server repeats whatever it is sent are marked ``persistent`` (the circuit breaker of
:mod:`compactor.summarize` opens on them): a connection that cannot be made (refused, no such
host), a refused key (401/403), an unknown model (404, ``model_not_found``), an exhausted quota.
A request whose *messages* the server's schema refuses (llama.cpp's server answers HTTP 500 "N
validation errors … Input should be a valid string" to ``content: null``; FastAPI servers 422
with ``literal_error``) is ``kind="validation"``, not transient: the summarizer then sends the
conversation as a transcript (``input_mode``, see :mod:`compactor.rendering`). A context-length
refusal carries the window and the prompt's size when the server says them; a 429 or 5xx carries
its ``retry-after``, as the server said it.

The API key, the credentials in ``base_url`` and the values of the request's ``extra_headers``
never enter an error message: :class:`CallErrors` masks them in every message it builds.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any

import httpx2
import openai
import pydantic

from compactor._util import redact
from compactor.errors import ModelError
from compactor.models.openai_transport import BodyRefused, RedirectRefused

__all__ = ["CallErrors", "one_line"]

_VALIDATION_RE = re.compile(
    r"validation errors?\b|input should be|literal_error|string_type|extra_forbidden"
    r"|union_tag_invalid|extra inputs are not permitted|invalid (?:type|value) for '?messages"
    r"|roles? must alternate|(?:unexpected|invalid|unknown|unsupported) (?:message )?role"
    r"|(?:content|tool_calls?|tool_call_id)\W.{0,40}(?:must be a string|expected a string"
    r"|not (?:supported|allowed|permitted))",
    re.IGNORECASE | re.DOTALL,
)
"""What a server says when its request schema refuses a message field (pydantic, FastAPI,
OpenAI's ``Invalid type for 'messages[2].content'``, chat templates that refuse a role)."""

_CONTEXT_WORDS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "context size",
    "too many tokens",
    "prompt is too long",
    "exceeds the context",
)


def _seconds(value: str, scale: float = 1.0) -> float | None:
    """A non-negative finite number of seconds, or None (``inf``, ``nan``, not a number)."""
    try:
        seconds = float(value) * scale
    except ValueError:
        return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _retry_after(headers: Any) -> float | None:
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


def _body_message(err: Any) -> str:
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


def _body_int(err: Any, *names: str) -> int | None:
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


def _unreachable(err: BaseException) -> bool:
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


def _body_code(err: Any) -> str | None:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            code = inner.get("code") or inner.get("type")
            return str(code) if code is not None else None
    return None


def _connection_detail(err: BaseException) -> str:
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


@dataclass(frozen=True, slots=True)
class CallErrors:
    """The errors of one call to ``model``: every message names it, ``secrets`` are masked out
    of every message, and ``timeout`` is the deadline a timeout reports."""

    model: str
    """The model's name at the server (``gpt-4o-mini``)."""
    name: str
    """The model's name in compact (``openai:gpt-4o-mini``): :attr:`ModelError.model`."""
    timeout: float
    """Seconds for one whole attempt."""
    secrets: list[str]
    """Every secret the call carries (key, URL credentials, extra header values)."""

    def fail(
        self,
        cause: str,
        *,
        kind: str,
        transient: bool,
        status: int | None = None,
        retry_after: float | None = None,
        partial_response: Any = None,
        persistent: bool = False,
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> ModelError:
        """``failed to call openai model '<model>': <cause>``, secrets masked, with its facts."""
        message = redact(f"failed to call openai model {self.model!r}: {cause}", self.secrets)
        return ModelError(
            message,
            kind=kind,
            transient=transient,
            status=status,
            retry_after=retry_after,
            model=self.name,
            partial_response=partial_response,
            persistent=persistent,
            window=window,
            prompt_tokens=prompt_tokens,
        )

    def classify(self, err: Exception) -> ModelError:
        """The :class:`ModelError` for what the client raised (``err``)."""
        if isinstance(err, RedirectRefused):
            # The server will redirect again whatever it is sent: the breaker opens.
            return self.fail(
                f"{err} (a redirect would send the transcript and the request's headers "
                "elsewhere; set base_url to the server that answers)",
                kind="redirect",
                transient=False,
                status=err.status,
                persistent=True,
            )
        if isinstance(err, BodyRefused):
            # Retrying may get a sane reply (a proxy's hiccup); another model may too.
            return self.fail(str(err), kind=err.kind, transient=True)
        if isinstance(err, TimeoutError):
            return self.fail(
                f"timed out after {self.timeout}s (the deadline for the whole request: connect, "
                "send and the complete response)",
                kind="timeout",
                transient=True,
            )
        if isinstance(err, openai.APITimeoutError):
            return self.fail(f"timed out after {self.timeout}s", kind="timeout", transient=True)
        if isinstance(err, openai.APIConnectionError):
            detail = _connection_detail(err)
            # Refused or no such host: the same next time (the circuit breaker opens). A
            # dropped or cut reply is a hiccup worth a retry.
            return self.fail(
                f"connection error{detail}",
                kind="connection",
                transient=True,
                persistent=_unreachable(err),
            )
        if isinstance(err, openai.APIResponseValidationError):
            return self.fail(
                f"malformed response: {one_line(str(err.message))}",
                kind="malformed",
                transient=True,
            )
        if isinstance(err, openai.APIStatusError):
            code = err.status_code
            full = _body_message(err)
            detail = one_line(full)
            cause = f"HTTP {code}: {detail}"
            lowered = full.lower() + " " + (_body_code(err) or "").lower()
            if code in (400, 413, 422) or (code >= 500 and "context" in lowered):
                if any(word in lowered for word in _CONTEXT_WORDS):
                    return self.fail(
                        cause,
                        kind="context_length",
                        transient=False,
                        status=code,
                        window=_body_int(err, "n_ctx"),
                        prompt_tokens=_body_int(err, "n_prompt_tokens"),
                    )
            if code >= 400 and _VALIDATION_RE.search(full):
                # The server's schema refused a message field: sending the same again gets the
                # same answer, even as a 500 (llama.cpp's server).
                return self.fail(cause, kind="validation", transient=False, status=code)
            if code == 429:
                quota = _body_code(err) == "insufficient_quota"
                return self.fail(
                    cause,
                    kind="rate_limit",
                    transient=not quota,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                    persistent=quota,
                )
            if code >= 500:
                return self.fail(
                    cause,
                    kind="server",
                    transient=True,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code in (408, 409):
                # a request timeout, a lock conflict: the same request may go through next
                # time (the openai SDK retries both too)
                return self.fail(
                    cause,
                    kind="timeout" if code == 408 else "conflict",
                    transient=True,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code == 404 or _body_code(err) == "model_not_found":
                return self.fail(
                    cause, kind="not_found", transient=False, status=code, persistent=True
                )
            if code in (400, 413, 422):
                return self.fail(cause, kind="bad_request", transient=False, status=code)
            if code in (401, 403):
                return self.fail(cause, kind="auth", transient=False, status=code, persistent=True)
            return self.fail(cause, kind="other", transient=False, status=code)
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return self.fail(
                f"malformed response: {type(err).__name__}: {one_line(str(err))}",
                kind="malformed",
                transient=True,
            )
        return self.fail(
            f"{type(err).__name__}: {one_line(str(err))}", kind="other", transient=False
        )
