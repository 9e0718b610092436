"""What the SDK-backed model backends (``openai*``, ``anthropic*``) share around their SDK's client,
so that each backend keeps only what differs (its request, its reply, its status codes).

* :class:`SdkModel`: the model's settings (``base_url``, ``api_key``, ``timeout``,
  ``max_response_bytes``, ``input_mode``: :data:`~compactor.models.providers.REMOTE_KEYS`'
  keywords), where the key and the base URL come from (its :class:`Provider`'s variables), the
  keyless guard, the secrets a call carries, and one call (:meth:`SdkModel.call`).
* :func:`sdk_call`: one request through a shared (:func:`~compactor.models.pool.pooled_client`)
  or fresh client inside a :func:`~compactor.models.pool.request_slot`; a
  :class:`~compactor.errors.ModelError` passes through, the SDK's errors (and a malformed reply,
  a refused body or redirect, a passed deadline) become the provider's ``classify``.
* :func:`sdk_client`: the SDK's client without hidden retries (``max_retries=0``: retry belongs to
  :mod:`compactor.pipeline.retry`) on an HTTP client that never follows a redirect and caps every
  decoded response body (:mod:`compactor.models.http_common`).
* :class:`SdkErrors`: the errors of one call, secrets masked, and the classification both SDKs
  share (their exception trees are alike); a backend subclasses it with its SDK's types
  (:class:`SdkTypes`) and its reading of an HTTP status (:meth:`SdkErrors.status`, ending in
  :meth:`SdkErrors.by_status`).
* The reply: :func:`scrub` (secrets out of the text), :func:`count` (a usage count),
  :func:`reply_message` and :func:`partial_message` (the assistant message of the input's type).

No SDK is imported here: a backend hands in its own classes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Container, Hashable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import ClassVar, Generic, NamedTuple, TypeVar

import pydantic

from compactor._json import JsonObject
from compactor._util import MIN_FREE_TEXT_SECRET, redact, register_secret, url_secrets
from compactor.errors import ErrorKind, ModelError
from compactor.models.http_common import (
    BodyRefused,
    RedirectRefused,
    call_secrets,
    cap_responses,
    connection_detail,
    one_line,
    refuse_redirects,
    retry_after_seconds,
    unreachable,
)
from compactor.models.pool import PooledClient, pooled_client, request_slot
from compactor.models.providers import (
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT,
    INPUT_MODES,
    Provider,
)
from compactor.schema import AgenticMessage, Block, M, Message, ToolCall, Usage, make_assistant

__all__ = [
    "SdkErrors",
    "SdkModel",
    "SdkTypes",
    "count",
    "partial_message",
    "reply_message",
    "scrub",
    "sdk_call",
    "sdk_client",
]

R = TypeVar("R")
C = TypeVar("C", bound=PooledClient)

# -- the client and the call ----------------------------------------------------------------------


def sdk_client(
    client: Callable[..., C],
    http_client: Callable[..., object],
    *,
    api_key: str,
    base_url: str | None,
    timeout: float,
    limit: int,
) -> C:
    """The SDK's ``client`` (``openai.AsyncOpenAI``) on its ``http_client``
    (``openai.DefaultAsyncHttpxClient``), without hidden retries, never following a redirect
    (:func:`~compactor.models.http_common.refuse_redirects`), every response body capped at
    ``limit`` decoded bytes (:func:`~compactor.models.http_common.cap_responses`)."""
    http = http_client(
        timeout=timeout,
        # Only what CappedBody decodes (the client would also offer br and zstd).
        headers={"accept-encoding": "gzip, deflate"},
        # A redirect is never followed (the SDK's client would): see RedirectRefused.
        follow_redirects=False,
        event_hooks={"response": [refuse_redirects, cap_responses(limit)]},
    )
    return client(
        api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0, http_client=http
    )


async def sdk_call(
    pool_key: Hashable,
    new_client: Callable[[], C],
    create: Callable[[C], Awaitable[R]],
    errors: SdkErrors,
) -> R:
    """``create(client)`` on the shared client of ``pool_key`` inside :func:`shared_clients
    <compactor.models.pool.shared_clients>` (else on a ``new_client()`` opened and closed for
    it), holding a request slot; what the SDK (``errors.sdk.error``) or the reply raised,
    as ``errors.classify`` says (a :class:`ModelError` as it is)."""
    try:
        # Inside shared_clients(): reuse its client and connections, and hold one of its
        # request slots (a batch's --jobs bounds the requests in flight, not the files).
        async with request_slot():
            shared = pooled_client(pool_key, new_client)
            if shared is not None:
                return await create(shared)
            async with new_client() as client:
                return await create(client)
    except ModelError:
        raise
    except (
        errors.sdk.error,
        json.JSONDecodeError,
        pydantic.ValidationError,
        BodyRefused,
        RedirectRefused,
        TimeoutError,
    ) as err:
        raise errors.classify(err) from err


# -- the errors -----------------------------------------------------------------------------------

_DEADLINE_NOTE = " (the deadline for the whole request: connect, send and the complete response)"


class SdkTypes(NamedTuple):
    """An SDK's exception classes (both SDKs name them alike)."""

    error: type[Exception]
    """Its base class (``openai.OpenAIError``): what :func:`sdk_call` classifies."""
    timeout: type[Exception]
    connection: type[Exception]
    malformed: type[Exception]
    status: type[Exception]

    @classmethod
    def of(cls, sdk: ModuleType, error: type[Exception]) -> SdkTypes:
        """The types of the SDK module ``sdk`` whose base class is ``error``."""
        return cls(
            error,
            sdk.APITimeoutError,
            sdk.APIConnectionError,
            sdk.APIResponseValidationError,
            sdk.APIStatusError,
        )


def _own_refusal(err: BaseException) -> Exception | None:
    """The :class:`RedirectRefused` / :class:`BodyRefused` of compact's response hooks under
    ``err`` (an SDK may wrap what a hook raises in an ``APIConnectionError``), or None."""
    seen: list[BaseException] = []
    inner: BaseException | None = err
    while inner is not None and inner not in seen and len(seen) < 8:
        seen.append(inner)
        if isinstance(inner, RedirectRefused | BodyRefused):
            return inner
        inner = inner.__cause__ or inner.__context__
    return None


_CLIENT_ERRORS = range(400, 500)


@dataclass(frozen=True, slots=True)
class SdkErrors:
    """The errors of one call to ``model``: every message names it, ``secrets`` are masked out
    of every message, and ``timeout`` is the deadline a timeout reports. A backend's subclass
    sets :attr:`provider`, :attr:`sdk` and :meth:`status`."""

    model: str
    """The model's name at the server (``gpt-4o-mini``)."""
    name: str
    """The model's name in compact (``openai:gpt-4o-mini``): :attr:`ModelError.model`."""
    timeout: float
    """Seconds for one whole attempt."""
    secrets: list[str]
    """Every secret the call carries (key, URL credentials, extra header values)."""

    provider: ClassVar[str] = ""
    """Named in every message: ``failed to call PROVIDER model '<model>': ...``."""
    sdk: ClassVar[SdkTypes]
    sdk_timeout_note: ClassVar[str] = _DEADLINE_NOTE
    """What the message of the SDK's own timeout adds to ``timed out after Ns``."""

    def fail(
        self,
        cause: str,
        *,
        kind: ErrorKind,
        transient: bool,
        status: int | None = None,
        retry_after: float | None = None,
        partial_response: Message | AgenticMessage | None = None,
        persistent: bool = False,
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> ModelError:
        """``failed to call PROVIDER model '<model>': <cause>``, secrets masked, with its facts."""
        message = redact(
            f"failed to call {self.provider} model {self.model!r}: {cause}", self.secrets
        )
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

    def stopped(
        self, cause: str, kind: ErrorKind, partial: Message | AgenticMessage | None
    ) -> ModelError:
        """A reply the model stopped (cut at the token limit, filtered, refused): not
        transient (asking the same model again gives the same verdict; another model may
        answer), its ``partial`` text (:func:`partial_message`) on the error."""
        return self.fail(cause, kind=kind, transient=False, partial_response=partial)

    def check_role(self, role: object) -> None:
        """Raise ``wrong_role`` for a reply whose ``role`` is not ``assistant``: a server that
        answers as "user" or "tool" is broken or misconfigured (a chat template problem);
        retrying the same model repeats it, another model may answer."""
        if isinstance(role, str) and role != "assistant":
            raise self.fail(
                f"the reply has role {role!r}, expected 'assistant'",
                kind=ErrorKind.WRONG_ROLE,
                transient=False,
            )

    def classify(self, err: Exception) -> ModelError:
        """The :class:`ModelError` for what the client raised (``err``)."""
        err = _own_refusal(err) or err
        sdk = self.sdk
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
        if isinstance(err, TimeoutError | sdk.timeout):
            note = _DEADLINE_NOTE if isinstance(err, TimeoutError) else self.sdk_timeout_note
            return self.fail(
                f"timed out after {self.timeout}s{note}", kind=ErrorKind.TIMEOUT, transient=True
            )
        if isinstance(err, sdk.connection):
            # Refused or no such host: the same next time (the circuit breaker opens). A
            # dropped or cut reply is a hiccup worth a retry.
            return self.fail(
                f"connection error{connection_detail(err)}",
                kind=ErrorKind.CONNECTION,
                transient=True,
                persistent=unreachable(err),
            )
        if isinstance(err, sdk.malformed):
            return self.fail(
                f"malformed response: {one_line(str(getattr(err, 'message', err)))}",
                kind=ErrorKind.MALFORMED,
                transient=True,
            )
        if isinstance(err, sdk.status):
            return self.status(err)
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return self.fail(
                f"malformed response: {type(err).__name__}: {one_line(str(err))}",
                kind=ErrorKind.MALFORMED,
                transient=True,
            )
        return self.fail(
            f"{type(err).__name__}: {one_line(str(err))}", kind=ErrorKind.OTHER, transient=False
        )

    def status(self, err: Exception) -> ModelError:
        """The :class:`ModelError` of an HTTP error status (the SDK's ``APIStatusError``):
        the backend's own readings, then :meth:`by_status`."""
        raise NotImplementedError

    def by_status(
        self,
        code: int,
        cause: str,
        headers: Mapping[str, str] | None,
        *,
        server: bool = False,
        quota: bool = False,
        not_found: bool = False,
        bad_request: Container[int] = _CLIENT_ERRORS,
    ) -> ModelError:
        """The kind of an HTTP status both backends read alike: 429 (``quota``: an exhausted
        one, not transient but persistent), 5xx (or ``server``), 408 and 409 are transient with
        the ``retry-after`` of ``headers``; 404 (or ``not_found``) and 401/403 persistent;
        ``bad_request`` codes ``bad_request``; anything else ``other``."""
        retry_after = retry_after_seconds(headers)
        if code == 429:
            return self.fail(
                cause,
                kind=ErrorKind.RATE_LIMIT,
                transient=not quota,
                status=code,
                retry_after=retry_after,
                persistent=quota,
            )
        if code >= 500 or server:
            return self.fail(
                cause, kind=ErrorKind.SERVER, transient=True, status=code, retry_after=retry_after
            )
        if code in (408, 409):
            # a request timeout, a lock conflict: the same request may go through next time
            # (the SDKs retry both too)
            kind = ErrorKind.TIMEOUT if code == 408 else ErrorKind.CONFLICT
            return self.fail(cause, kind=kind, transient=True, status=code, retry_after=retry_after)
        if code == 404 or not_found:
            return self.fail(
                cause, kind=ErrorKind.NOT_FOUND, transient=False, status=code, persistent=True
            )
        if code in (401, 403):
            return self.fail(
                cause, kind=ErrorKind.AUTH, transient=False, status=code, persistent=True
            )
        if code in bad_request:
            return self.fail(cause, kind=ErrorKind.BAD_REQUEST, transient=False, status=code)
        return self.fail(cause, kind=ErrorKind.OTHER, transient=False, status=code)


# -- the model ------------------------------------------------------------------------------------


class SdkModel(Generic[C]):
    """A model behind an SDK: a backend's subclass sets the class attributes below and sends
    its request with :meth:`call`."""

    remote = True
    """Secret masking is on by default for it: even a loopback proxy may forward to a cloud."""

    provider: ClassVar[Provider]
    """Its row of :data:`~compactor.models.providers.PROVIDERS` (prefix, variables, endpoint)."""
    no_key: ClassVar[str]
    """The key sent to a server that needs none (a ``base_url`` and no key): never a secret."""
    sdk_base_url: ClassVar[str | None] = None
    """The base URL the SDK is given when neither ``base_url`` nor the provider's variable is
    set (None: the SDK's own default)."""
    sdk_client: Callable[..., C]
    """The SDK's async client class."""
    sdk_http_client: Callable[..., object]
    """The SDK's HTTP client class (its ``DefaultAsyncHttpxClient``)."""
    errors: ClassVar[type[SdkErrors]]
    """The backend's :class:`SdkErrors`."""

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        input_mode: str = "auto",
    ) -> None:
        if input_mode not in INPUT_MODES:
            raise ValueError(f"input_mode must be one of {INPUT_MODES}, got {input_mode!r}")
        self.model = name
        self.name = f"{self.provider.prefix}:{name}"
        self.base_url = base_url
        self.input_mode = input_mode
        """``messages`` (structured chat messages), ``transcript`` (the conversation rendered as
        text in one user message, which every chat server accepts) or ``auto`` (messages, and
        the transcript for the rest of the run once the server's schema refuses them)."""
        self.timeout = timeout
        """Seconds for one whole attempt: connect, send, and the complete response."""
        self.max_response_bytes = max_response_bytes
        """The largest response body accepted, counted after gzip/deflate decoding."""
        self._api_key = api_key
        register_secret(api_key)
        for part in url_secrets(base_url):
            if len(part) >= MIN_FREE_TEXT_SECRET:
                register_secret(part)

    def __repr__(self) -> str:
        base_url = redact(self.base_url) if self.base_url else self.base_url
        return (
            f"{type(self).__name__}(name={self.model!r}, base_url={base_url!r}, "
            f"timeout={self.timeout}, input_mode={self.input_mode!r})"
        )

    @property
    def endpoint(self) -> str:
        """The base URL requests go to (``base_url``, else the provider's variable, else its
        default), credentials masked: part of the summary cache's key, so two servers never
        share a cached reply."""
        return self.provider.endpoint(self.base_url)

    def resolve(self) -> tuple[str | None, str]:
        """``(base URL, key)`` of a call: the model's, else the provider's variables. Without a
        key (the keyless guard), a ``base_url`` (a local server) gets :attr:`no_key`; with
        neither, ``ModelError(kind="auth")`` before any request."""
        provider = self.provider
        base_url = self.base_url or provider.env_base_url() or None
        key = self._api_key or provider.env_key() or None
        register_secret(key)
        if key is None:
            if base_url is None:
                raise ModelError(
                    f"no API key: set {provider.key_env} or model.api_key",
                    kind=ErrorKind.AUTH,
                    model=self.name,
                )
            key = self.no_key
        return base_url or self.sdk_base_url, key

    def call_errors(self, base_url: str | None, key: str, params: JsonObject) -> SdkErrors:
        """The errors of a call with ``params``: every secret it carries
        (:func:`~compactor.models.http_common.call_secrets`) registered and masked."""
        secrets = call_secrets(key, base_url, params, no_key=self.no_key)
        for secret in secrets:
            register_secret(secret)
        return self.errors(model=self.model, name=self.name, timeout=self.timeout, secrets=secrets)

    async def call(
        self,
        base_url: str | None,
        key: str,
        create: Callable[[C], Awaitable[R]],
        errors: SdkErrors,
    ) -> R:
        """``create(client)`` through :func:`sdk_call` on this model's :func:`sdk_client`."""
        limit = self.max_response_bytes

        def new_client() -> C:
            return sdk_client(
                self.sdk_client,
                self.sdk_http_client,
                api_key=key,
                base_url=base_url,
                timeout=self.timeout,
                limit=limit,
            )

        pool_key = (self.provider.prefix, base_url, key, self.timeout, limit)
        return await sdk_call(pool_key, new_client, create, errors)


# -- the reply ------------------------------------------------------------------------------------


def scrub(text: str, secrets: list[str]) -> str:
    """``text`` without any of ``secrets`` (longest first), each replaced by ``***``: a server
    that echoes its request (headers, URL) must not get a secret into the summary."""
    for secret in sorted(set(secrets), key=lambda v: (-len(v), v)):  # (one order each run)
        if secret in text:
            text = text.replace(secret, "***")
    return text


def count(value: object) -> int:
    """A usage count as a non-negative int (a server may send null, a float or a string)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return max(0, int(value))


def reply_message(
    kind: type[M],
    text: str,
    *,
    reasoning: str | None,
    usage: Usage | None,
    finish: str | None,
    calls: list[ToolCall],
) -> M:
    """The assistant message of type ``kind`` a reply carries (its ``text``, ``reasoning``,
    tool ``calls``, ``usage`` and ``finish`` reason), all already scrubbed."""
    if issubclass(kind, AgenticMessage):
        blocks = [Block("reasoning", reasoning)] if reasoning else []
        blocks.append(Block("assistant_gen_text", text))
        blocks.extend(
            Block("function_tool_call", call_id=c.id, name=c.name, arguments=c.arguments)
            for c in calls
        )
        extra: JsonObject = {"finish_reason": finish} if finish else {}
        return AgenticMessage(role="assistant", blocks=blocks, usage=usage, extra=extra)
    return Message(
        role="assistant",
        content=text,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish,
        reasoning_content=reasoning or None,
    )


def partial_message(
    kind: type[M], text: str, usage: Usage | None, finish: str | None, secrets: list[str]
) -> M | None:
    """The text a stopped reply did carry, as an assistant message of type ``kind`` recording
    its ``finish`` reason (None: no text), so that retry and failover policies see it with the
    error."""
    if not text.strip():
        return None
    msg = make_assistant(kind, scrub(text, secrets), usage)
    if isinstance(msg, Message):
        msg.finish_reason = finish
    else:
        msg.extra["finish_reason"] = finish
    return msg
