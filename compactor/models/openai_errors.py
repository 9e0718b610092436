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

import re

import openai

from compactor._util import lazy_pattern
from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import body_code as _body_code
from compactor.models.http_common import body_int as _body_int
from compactor.models.http_common import body_message as _body_message
from compactor.models.http_common import one_line
from compactor.models.sdk_call import SdkErrors, SdkTypes

__all__ = ["CallErrors", "one_line"]

_VALIDATION_RE = lazy_pattern(
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


class CallErrors(SdkErrors):
    """The errors of one call to an OpenAI-compatible ``model``
    (:class:`~compactor.models.sdk_call.SdkErrors`): its HTTP statuses read as servers word
    them (context length, a schema's refusal, an exhausted quota, ``model_not_found``)."""

    __slots__ = ()
    provider = "openai"
    sdk = SdkTypes.of(openai, openai.OpenAIError)
    sdk_timeout_note = ""

    def status(self, err: Exception) -> ModelError:
        """The :class:`ModelError` of an ``openai.APIStatusError``."""
        assert isinstance(err, openai.APIStatusError)  # what classify hands here
        code = err.status_code
        full = _body_message(err)
        cause = f"HTTP {code}: {one_line(full)}"
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
        return self.by_status(
            code,
            cause,
            err.response.headers,
            quota=_body_code(err) == "insufficient_quota",
            not_found=_body_code(err) == "model_not_found",
            bad_request=(400, 413, 422),
        )
