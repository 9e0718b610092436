"""Errors raised by the compactor.

Exception tree::

    CompactorError                 every documented failure
    ├── ConfigError                bad configuration: new(), new_finalizer().build(), config files
    ├── SummarizationError         counting (§3), model input, model calls, finalize (§4–§6)
    │   ├── ModelError             one failed model call, classified (rate limit, timeout, ...)
    │   ├── LoopGuardError         the result would not be small enough (``Config.loop_guard``)
    │   │                          or grows past ``Config.max_growth`` × the input
    │   └── SpendLimitError        a request would pass ``limits`` (max requests / input tokens)
    ├── TranscriptError            unreadable or malformed transcript (path, line, field)
    ├── InputChangedError          the input changed while the run worked
    └── StreamError                an output could not be written completely, or a standard
                                   stream is closed or broken (short write, EPIPE, ENOSPC, EFBIG)

Errors raised by a user's own callback propagate unchanged. Messages follow SPEC wording:
lowercase, ``failed to …: <cause>``. Secrets never enter a message.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "CompactorError",
    "ConfigError",
    "ErrorKind",
    "InputChangedError",
    "LoopGuardError",
    "ModelError",
    "SpendLimitError",
    "StreamError",
    "SummarizationError",
    "TranscriptError",
]


class CompactorError(Exception):
    """Base class of every error the compactor raises on purpose."""


class ConfigError(CompactorError):
    """A configuration problem. ``key`` names the setting at fault (``retry.max_retries``,
    ``model.timeout``), for code to locate it: never parse the message. ``path`` and ``line``
    locate it in a config file.

    Rendered ``path:line: key 'k': message``; without a file, a message that starts with its
    own key (:func:`compactor.validate_config`'s SPEC wording) is not prefixed with it again.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.key = key
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        if self.key is not None and (
            self.path is not None or not self.message.startswith(f"{self.key} ")
        ):
            where += f"key {self.key!r}: "
        return where + self.message


class SummarizationError(CompactorError):
    """Counting, building the summarizer input, calling the model or finalizing failed."""


class ErrorKind(StrEnum):
    """What went wrong in a model call (:attr:`ModelError.kind`). A ``StrEnum``: a kind equals
    its string (``ErrorKind.LENGTH == "length"``) and is written as that string in events,
    reports and JSON, so code and files that compare strings keep working."""

    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    CONFLICT = "conflict"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    MALFORMED = "malformed"
    EMPTY = "empty"
    CONTENT_FILTER = "content_filter"
    WRONG_ROLE = "wrong_role"
    LENGTH = "length"
    CONTEXT_LENGTH = "context_length"
    VALIDATION = "validation"
    BAD_REQUEST = "bad_request"
    AUTH = "auth"
    NOT_FOUND = "not_found"
    TOO_LARGE = "too_large"
    REDIRECT = "redirect"
    TOO_LONG = "too_long"
    WEAK_SUMMARY = "weak_summary"
    CIRCUIT_OPEN = "circuit_open"
    OTHER = "other"


class ModelError(SummarizationError):
    """One failed model call, classified so retry policy can decide.

    ``kind`` is an :class:`ErrorKind` (given as one or as its string; any other string is a
    ValueError): ``rate_limit``, ``server``, ``conflict`` (HTTP 409), ``timeout``,
    ``connection``, ``malformed``,
    ``empty``, ``content_filter``, ``wrong_role``, ``length``, ``context_length``,
    ``validation`` (the server's request schema refused a message: ``content: null``, a tool
    role, ...), ``bad_request``, ``auth``, ``not_found``, ``too_large`` (the response body passed
    its cap), ``redirect`` (a 3xx, never followed), ``too_long`` (a reply longer than a summary
    may be), ``weak_summary`` (a reply below ``Config.summary_check``), ``circuit_open`` (no
    call made: the model's circuit breaker is open for this run), ``other``. ``transient`` says
    whether retrying the same call may help (another model may help even when it is False:
    failover still runs); ``retry_after`` is the server's requested wait in seconds, when it
    gave one (the retry engine never waits longer than its ``max_delay``, whatever it says).

    ``persistent`` says the same model will fail the same way for the rest of the run whatever
    it is sent (the server cannot be reached, the key is refused, the model does not exist): the
    circuit breaker opens on it. ``window`` and ``prompt_tokens`` are what a ``context_length``
    error reported (the model's window, the count of the refused input), when it did.

    ``partial_response`` is what the model did send with the error, when it sent something (the
    text of a reply stopped by a content filter or cut at the token limit): the retry engine
    hands it to ``should_retry``, ``should_failover``, the events and
    ``FailoverContext.last_model_response``, as Eino passes a response returned with an error.
    It is never used as the summary.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind | str = ErrorKind.OTHER,
        transient: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
        model: str | None = None,
        partial_response: object = None,
        persistent: bool = False,
        window: int | None = None,
        prompt_tokens: int | None = None,
    ) -> None:
        try:
            self.kind = ErrorKind(kind)
        except ValueError:
            known = ", ".join(k.value for k in ErrorKind)
            raise ValueError(f"unknown ModelError kind {kind!r}; one of {known}") from None
        self.transient = transient
        self.status = status
        self.retry_after = retry_after
        self.model = model
        self.partial_response = partial_response
        self.persistent = persistent
        self.window = window
        self.prompt_tokens = prompt_tokens
        super().__init__(message)


class LoopGuardError(SummarizationError):
    """The compacted history is not smaller than ``loop_guard`` × the original (it would
    trigger again at once), or, with ``max_growth``, it is more than ``max_growth`` × the
    original (a forced compaction that would blow a small transcript up): the result is
    refused and nothing is written."""

    def __init__(
        self,
        tokens_before: int,
        tokens_after: int,
        max_ratio: float | None = None,
        *,
        max_growth: float | None = None,
    ) -> None:
        self.tokens_before = tokens_before
        self.tokens_after = tokens_after
        self.max_ratio = max_ratio
        self.max_growth = max_growth
        ratio = tokens_after / tokens_before if tokens_before else float("inf")
        if max_growth is not None:
            message = (
                f"loop guard: the compacted history has {tokens_after:,} tokens, {ratio:.1f}× "
                f"the {tokens_before:,} before; a compaction may grow a transcript at most "
                f"{max_growth:g}× (loop_guard.max_growth): the history is already smaller "
                "than its summary would be, so there is nothing to compact"
            )
        else:
            message = (
                f"loop guard: the compacted history has {tokens_after:,} tokens, {ratio:.0%} of "
                f"the {tokens_before:,} before; it must be below {max_ratio or 0:.0%} or it would "
                "trigger again at once"
            )
        super().__init__(message)


class SpendLimitError(SummarizationError):
    """A request would pass the run's spend limits (``limits: {max_requests, max_input_tokens}``):
    it was not sent. Raised before a file's first request when its plan does not fit (nothing
    of that file is written), or before a retry or failover request that would pass a limit.
    ``requests`` / ``input_tokens``: what was asked for."""

    def __init__(self, message: str, *, requests: int, input_tokens: int) -> None:
        self.requests = requests
        self.input_tokens = input_tokens
        super().__init__(message)


class TranscriptError(CompactorError):
    """A transcript that cannot be read; renders as ``path:line: field 'f': message``."""

    def __init__(
        self,
        path: str,
        line: int | None,
        field: str | None,
        message: str,
    ) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        what = f"field {self.field!r}: " if self.field else ""
        return f"{where}: {what}{self.message}"


class InputChangedError(CompactorError):
    """The input changed while the run worked. ``--in-place``: its size, mtime or inode changed
    between the read and the rename, or another process holds its lock; the input is left as it
    is and nothing is lost. Otherwise: bytes the output copies from the input (read again, not
    held) were changed in place meanwhile; nothing is written."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


class StreamError(CompactorError):
    """An output could not be written completely, or a standard stream is closed or broken.

    ``target`` names the destination (a path, ``<stdout>``, ``<stderr>``, ``<stdin>``);
    ``cause`` is the system's reason (``No space left on device``, ``Broken pipe``, ...).
    ``written``: the bytes that did reach the destination before the failure (a stream, a
    FIFO, stdout: what its reader got, cut short); 0 for a file replaced atomically, which is
    left as it was.
    """

    def __init__(self, target: str, cause: str, *, reading: bool = False, written: int = 0) -> None:
        self.target = target
        self.cause = cause
        self.reading = reading
        self.written = written
        verb = "failed to read" if reading else "failed to write"
        super().__init__(f"{verb} {target}{'' if reading else ' completely'}: {cause}")
