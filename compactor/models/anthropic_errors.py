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

import re

import anthropic

from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import body_code, body_message, one_line
from compactor.models.sdk_call import SdkErrors, SdkTypes

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


class AnthropicErrors(SdkErrors):
    """The errors of one call to an Anthropic ``model``
    (:class:`~compactor.models.sdk_call.SdkErrors`): its HTTP statuses read from Anthropic's
    error types (``request_too_large``, ``overloaded_error``) and context-length wording."""

    __slots__ = ()
    provider = "anthropic"
    sdk = SdkTypes.of(anthropic, anthropic.AnthropicError)

    def status(self, err: Exception) -> ModelError:
        """The :class:`ModelError` of an ``anthropic.APIStatusError``."""
        assert isinstance(err, anthropic.APIStatusError)  # what classify hands here
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
        server = etype in ("overloaded_error", "api_error")
        if code == 402 and not server:  # billing: the same next time
            return self.fail(
                cause, kind=ErrorKind.OTHER, transient=False, status=code, persistent=True
            )
        return self.by_status(code, cause, err.response.headers, server=server)
