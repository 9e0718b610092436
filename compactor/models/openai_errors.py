"""How a failed OpenAI-compatible call becomes a :class:`~compactor.errors.ModelError`.

Each failure gets a ``kind`` the retry policy (SPEC §6) can use, and says whether it is worth
retrying (``transient``):

* a deadline passed, a dropped or cut connection, a malformed reply, a 408, 409, 429 or a 5xx:
  transient;
* a refusal the same request gets again (a 4xx, a content filter, a wrong role): not transient;
* a redirect (3xx): never followed, not transient, persistent (``kind="redirect"``, naming the
  ``Location`` it pointed to).

Errors a server repeats whatever it is sent are marked ``persistent`` (the circuit breaker of
:mod:`compactor.pipeline.summarize` opens on them): a connection that cannot be made (refused, no
such host), a refused key (401/403), an unknown model (404, ``model_not_found``), an exhausted
quota. A request whose *messages* the server's schema refuses (llama.cpp's server answers HTTP 500
"N validation errors … Input should be a valid string" to ``content: null``; FastAPI servers 422
with ``literal_error``) is ``kind="validation"``, not transient: the summarizer then sends the
conversation as a transcript (``input_mode``, see :mod:`compactor.pipeline.rendering`). A
context-length refusal carries the window and the prompt's size when the server says them; a 429 or
5xx carries its ``retry-after``, as the server said it.

The API key, the credentials in ``base_url`` and the values of the request's ``extra_headers``
never enter an error message: :class:`CallErrors` masks them in every message it builds.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import openai
import pydantic

from compactor._util import redact
from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import body_code as _body_code
from compactor.models.http_common import body_int as _body_int
from compactor.models.http_common import body_message as _body_message
from compactor.models.http_common import connection_detail as _connection_detail
from compactor.models.http_common import one_line
from compactor.models.http_common import retry_after_seconds as _retry_after
from compactor.models.http_common import unreachable as _unreachable
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


_LIMIT_RES = (  # the window, as servers word it (moved from compactor.pipeline.replies)
    re.compile(r"maximum context length is ([\d,]+) tokens", re.IGNORECASE),
    re.compile(r"context (?:length|window|size)(?: limit)? (?:of|is) ([\d,]+)", re.IGNORECASE),
    re.compile(r"available context size \(([\d,]+) tokens\)", re.IGNORECASE),
    re.compile(r"exceeds? (?:the )?context window of ([\d,]+)", re.IGNORECASE),
    re.compile(r"tokens > ([\d,]+) maximum", re.IGNORECASE),
)


_PROMPT_RES = (
    re.compile(r"your messages resulted in ([\d,]+) tokens", re.IGNORECASE),  # OpenAI
    re.compile(r"\(([\d,]+) in the messages", re.IGNORECASE),  # llama-cpp-python
    re.compile(r"requested tokens \(([\d,]+)\)", re.IGNORECASE),  # llama.cpp (python)
    re.compile(r"request \(([\d,]+) tokens\)", re.IGNORECASE),  # llama.cpp server
    re.compile(r"prompt is too long: ([\d,]+) tokens", re.IGNORECASE),  # Anthropic
)


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


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
        kind: ErrorKind,
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
                kind=ErrorKind.REDIRECT,
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
                kind=ErrorKind.TIMEOUT,
                transient=True,
            )
        if isinstance(err, openai.APITimeoutError):
            return self.fail(
                f"timed out after {self.timeout}s", kind=ErrorKind.TIMEOUT, transient=True
            )
        if isinstance(err, openai.APIConnectionError):
            detail = _connection_detail(err)
            # Refused or no such host: the same next time (the circuit breaker opens). A
            # dropped or cut reply is a hiccup worth a retry.
            return self.fail(
                f"connection error{detail}",
                kind=ErrorKind.CONNECTION,
                transient=True,
                persistent=_unreachable(err),
            )
        if isinstance(err, openai.APIResponseValidationError):
            return self.fail(
                f"malformed response: {one_line(str(err.message))}",
                kind=ErrorKind.MALFORMED,
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
                        kind=ErrorKind.CONTEXT_LENGTH,
                        transient=False,
                        status=code,
                        window=_body_int(err, "n_ctx") or _first_number(_LIMIT_RES, full),
                        prompt_tokens=_body_int(err, "n_prompt_tokens")
                        or _first_number(_PROMPT_RES, full),
                    )
            if code >= 400 and _VALIDATION_RE.search(full):
                # The server's schema refused a message field: sending the same again gets the
                # same answer, even as a 500 (llama.cpp's server).
                return self.fail(cause, kind=ErrorKind.VALIDATION, transient=False, status=code)
            if code == 429:
                quota = _body_code(err) == "insufficient_quota"
                return self.fail(
                    cause,
                    kind=ErrorKind.RATE_LIMIT,
                    transient=not quota,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                    persistent=quota,
                )
            if code >= 500:
                return self.fail(
                    cause,
                    kind=ErrorKind.SERVER,
                    transient=True,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code in (408, 409):
                # a request timeout, a lock conflict: the same request may go through next
                # time (the openai SDK retries both too)
                return self.fail(
                    cause,
                    kind=ErrorKind.TIMEOUT if code == 408 else ErrorKind.CONFLICT,
                    transient=True,
                    status=code,
                    retry_after=_retry_after(err.response.headers),
                )
            if code == 404 or _body_code(err) == "model_not_found":
                return self.fail(
                    cause, kind=ErrorKind.NOT_FOUND, transient=False, status=code, persistent=True
                )
            if code in (400, 413, 422):
                return self.fail(cause, kind=ErrorKind.BAD_REQUEST, transient=False, status=code)
            if code in (401, 403):
                return self.fail(
                    cause, kind=ErrorKind.AUTH, transient=False, status=code, persistent=True
                )
            return self.fail(cause, kind=ErrorKind.OTHER, transient=False, status=code)
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return self.fail(
                f"malformed response: {type(err).__name__}: {one_line(str(err))}",
                kind=ErrorKind.MALFORMED,
                transient=True,
            )
        return self.fail(
            f"{type(err).__name__}: {one_line(str(err))}", kind=ErrorKind.OTHER, transient=False
        )
