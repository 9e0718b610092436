"""Exit codes (SPEC §9.2) for the command line: the core's table plus its ``--help`` text.

The codes and the exception → (message, code) mapping live in :mod:`compactor.exitcodes`, so a
library run reports the same outcome; this module adds the epilog every command shows.
"""

from __future__ import annotations

from compactor.exitcodes import ExitCode, classify

__all__ = ["EXIT_CODES_HELP", "ExitCode", "classify"]


EXIT_CODES_HELP = (
    "\b\n"  # click: keep this paragraph's line breaks
    "Exit codes:\n"
    "  0    success (run: output written, compacted or passed through;\n"
    "       check: no transcript would compact)\n"
    "  1    check: at least one transcript would be compacted\n"
    "  2    usage error, bad config, unreadable or malformed transcript, or a\n"
    "       destination refused by the plan (nothing written)\n"
    "  3    summarization failed after retries and failover; nothing written\n"
    "  4    loop guard: the result would not be small enough; nothing written\n"
    "  5    --in-place: the input changed during the run; nothing replaced\n"
    "  6    an output could not be written completely (short write, closed or\n"
    "       full stream); no success line\n"
    "  130  interrupted by SIGINT (143: SIGTERM, 129: SIGHUP); temp files\n"
    "       removed, nothing half-written"
)
