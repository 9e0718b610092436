"""Exit codes (SPEC §9.2) and the one place that maps an exception to (message, code).

They live in the core, not in ``compactor/cli``: a :class:`~compactor.run_result.RunResult` carries
its exit code, so a program that compacts a file through the library learns the same outcome
the command line reports. ``compactor.cli.exitcodes`` re-exports them with the ``--help`` text.
"""

from __future__ import annotations

import errno
from enum import IntEnum

from .errors import (
    CompactorError,
    ConfigError,
    InputChangedError,
    LoopGuardError,
    StreamError,
    SummarizationError,
    TranscriptError,
)
from .interrupts import Interrupted, signal_name

__all__ = ["STREAM_ERRNOS", "ExitCode", "classify"]


class ExitCode(IntEnum):
    """What ``compact`` returns."""

    OK = 0
    """run: output written (compacted or passed through); check: nothing would compact."""
    WOULD_COMPACT = 1
    """check only: at least one transcript would be compacted."""
    USAGE = 2
    """Usage error, bad config, unreadable or malformed transcript, a destination refused."""
    SUMMARIZATION_FAILED = 3
    """Summarization failed after retries and failover; nothing written."""
    NOT_SMALLER = 4
    """The loop guard refused the result (it would trigger again at once); nothing written."""
    INPUT_CHANGED = 5
    """The input changed while the run worked (``--in-place``: not replaced; else a line the
    output copies changed in place); nothing written."""
    OUTPUT_FAILED = 6
    """An output could not be written completely (short write, closed or full stream)."""
    HANGUP = 129
    """Stopped by SIGHUP; temp files removed, nothing half-written."""
    INTERRUPTED = 130
    """Stopped by SIGINT (Ctrl-C); temp files removed, nothing half-written."""
    TERMINATED = 143
    """Stopped by SIGTERM; temp files removed, nothing half-written."""


STREAM_ERRNOS = frozenset(
    {errno.EPIPE, errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EBADF}
)
"""``OSError`` numbers that mean "a stream or disk took less than it was given" (exit 6)."""


def classify(err: BaseException) -> tuple[str, ExitCode]:
    """The one-line message (``Type: message``) and exit code for ``err``; every secret known
    to the process (API keys, header values, URL credentials) is masked in it."""
    from ._util import redact

    message, code = _classify(err)
    return redact(message), code


def _classify(err: BaseException) -> tuple[str, ExitCode]:
    if isinstance(err, Interrupted):
        return f"interrupted by {signal_name(err.signum)}", ExitCode(err.exit_code)
    if isinstance(err, KeyboardInterrupt):
        return "interrupted by SIGINT", ExitCode.INTERRUPTED
    if isinstance(err, (ConfigError, TranscriptError)):
        return f"{type(err).__name__}: {err}", ExitCode.USAGE
    if isinstance(err, LoopGuardError):
        return f"{type(err).__name__}: {err}", ExitCode.NOT_SMALLER
    if isinstance(err, SummarizationError):
        return f"{type(err).__name__}: {err}", ExitCode.SUMMARIZATION_FAILED
    if isinstance(err, InputChangedError):
        return f"{type(err).__name__}: {err}", ExitCode.INPUT_CHANGED
    if isinstance(err, StreamError):
        return f"{type(err).__name__}: {err}", ExitCode.OUTPUT_FAILED
    if isinstance(err, CompactorError):
        return f"{type(err).__name__}: {err}", ExitCode.USAGE
    if isinstance(err, OSError):
        where = f": {err.filename!r}" if err.filename else ""
        code = ExitCode.OUTPUT_FAILED if err.errno in STREAM_ERRNOS else ExitCode.USAGE
        return f"{type(err).__name__}: {err.strerror or err}{where}", code
    # An error raised by a user's own callback (finalize, callback, ...) or an unexpected bug:
    # the summarization did not complete, so nothing was written.
    return f"{type(err).__name__}: {err}", ExitCode.SUMMARIZATION_FAILED
