"""Exit codes (SPEC §9.2) and the one place that maps an exception to (message, code).

They live in the core, not in ``compactor/cli``: a :class:`~compactor.runs.run_result.RunResult`
carries its exit code, so a program that compacts a file through the library learns the same outcome
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
    """The one-line message and exit code for ``err``, in plain words (no Python class
    names: ``config error: f.yaml:3: key 'model': ...`` for a config file, else what went
    wrong, starting with the file it concerns); every secret known to the process (API keys,
    header values, URL credentials) is masked in it."""
    from ._util import redact

    message, code = _classify(err)
    return redact(message), code


def _classify(err: BaseException) -> tuple[str, ExitCode]:
    if isinstance(err, Interrupted):
        return f"interrupted by {signal_name(err.signum)}", ExitCode(err.exit_code)
    if isinstance(err, KeyboardInterrupt):
        return "interrupted by SIGINT", ExitCode.INTERRUPTED
    if isinstance(err, ConfigError):
        # "config" only for a config file's own problems; a bad flag, a missing or empty
        # folder, an output that is the input read as what they are
        return (f"config error: {err}" if err.path is not None else str(err)), ExitCode.USAGE
    if isinstance(err, TranscriptError):
        return str(err), ExitCode.USAGE  # starts with the file (and line) it concerns
    if isinstance(err, LoopGuardError):
        return str(err), ExitCode.NOT_SMALLER  # "loop guard: ..."
    if isinstance(err, SummarizationError):
        text = str(err)
        plain = text.startswith(("failed to ", "spend limit"))
        return (text if plain else f"summarization failed: {text}"), ExitCode.SUMMARIZATION_FAILED
    if isinstance(err, InputChangedError):
        return str(err), ExitCode.INPUT_CHANGED
    if isinstance(err, StreamError):
        return str(err), ExitCode.OUTPUT_FAILED  # "failed to write ..."
    if isinstance(err, CompactorError):
        return str(err), ExitCode.USAGE
    if isinstance(err, OSError):
        where = f": {err.filename!r}" if err.filename else ""
        code = ExitCode.OUTPUT_FAILED if err.errno in STREAM_ERRNOS else ExitCode.USAGE
        return f"{err.strerror or err}{where}", code
    # An error raised by a user's own callback (finalize, callback, ...) or an unexpected bug:
    # the summarization did not complete, so nothing was written. Its type is named: it is the
    # one clue to where it came from (--debug shows the traceback).
    return f"unexpected error ({type(err).__name__}): {err}", ExitCode.SUMMARIZATION_FAILED
