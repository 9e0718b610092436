"""Exit codes (SPEC §9.2) and the one place that maps an exception to (message, code)."""

from __future__ import annotations

from enum import IntEnum

from compactor.errors import (
    CompactorError,
    ConfigError,
    LoopGuardError,
    SummarizationError,
    TranscriptError,
)

__all__ = ["EXIT_CODES_HELP", "ExitCode", "classify"]


class ExitCode(IntEnum):
    """What ``compact`` returns."""

    OK = 0
    """run: output written (compacted or passed through); check: nothing would compact."""
    WOULD_COMPACT = 1
    """check only: at least one transcript would be compacted."""
    USAGE = 2
    """Usage error, bad config, unreadable or malformed transcript."""
    SUMMARIZATION_FAILED = 3
    """Summarization failed after retries and failover; nothing written."""
    NOT_SMALLER = 4
    """The loop guard refused the result (it would trigger again at once); nothing written."""
    INTERRUPTED = 130
    """Interrupted (Ctrl-C); nothing half-written."""


EXIT_CODES_HELP = (
    "\b\n"  # click: keep this paragraph's line breaks
    "Exit codes:\n"
    "  0    success (run: output written, compacted or passed through;\n"
    "       check: no transcript would compact)\n"
    "  1    check: at least one transcript would be compacted\n"
    "  2    usage error, bad config, unreadable or malformed transcript\n"
    "  3    summarization failed after retries and failover; nothing written\n"
    "  4    loop guard: the result would not be small enough; nothing written\n"
    "  130  interrupted; nothing half-written"
)


def classify(err: BaseException) -> tuple[str, ExitCode]:
    """The one-line message (``Type: message``) and exit code for ``err``."""
    if isinstance(err, KeyboardInterrupt):
        return "interrupted: nothing was written", ExitCode.INTERRUPTED
    if isinstance(err, (ConfigError, TranscriptError)):
        return f"{type(err).__name__}: {err}", ExitCode.USAGE
    if isinstance(err, LoopGuardError):
        return f"{type(err).__name__}: {err}; nothing written", ExitCode.NOT_SMALLER
    if isinstance(err, SummarizationError):
        return f"{type(err).__name__}: {err}", ExitCode.SUMMARIZATION_FAILED
    if isinstance(err, CompactorError):
        return f"{type(err).__name__}: {err}", ExitCode.USAGE
    if isinstance(err, OSError):
        where = f" {err.filename!r}" if err.filename else ""
        return (
            f"{type(err).__name__}: failed to write{where}: {err.strerror or err}",
            ExitCode.USAGE,
        )
    # An error raised by a user's own callback (finalize, callback, ...) or an unexpected bug:
    # the summarization did not complete, so nothing was written.
    return f"{type(err).__name__}: {err}", ExitCode.SUMMARIZATION_FAILED
