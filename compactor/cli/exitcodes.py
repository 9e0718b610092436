"""Exit codes (SPEC §9.2) for the command line: the core's table plus its ``--help`` text.

The codes and the exception → (message, code) mapping live in :mod:`compactor.exitcodes`, so a
library run reports the same outcome; this module adds the tables the help pages show: the
whole table for ``compact``, ``run`` and ``check``, and the few codes each other command can
return.
"""

from __future__ import annotations

from compactor.exitcodes import ExitCode, classify

__all__ = ["EXIT_CODES_HELP", "ExitCode", "classify", "short_exit_codes"]


EXIT_CODES_HELP = (
    "Exit codes:\n"
    "  0    success (run: output written, compacted or passed through;\n"
    "       check: no transcript would compact)\n"
    "  1    check: at least one transcript would be compacted\n"
    "  2    usage error, bad config, unreadable or malformed transcript, or a\n"
    "       destination refused by the plan (nothing written)\n"
    "  3    summarization failed after retries and failover; nothing written\n"
    "  4    loop guard: the result would not be small enough; nothing written\n"
    "  5    the input changed during the run (--in-place: it is not replaced; a\n"
    "       line to copy changed in place); nothing written\n"
    "  6    an output could not be written completely (short write, closed or\n"
    "       full stream); no success line\n"
    "  130  interrupted by SIGINT (143: SIGTERM, 129: SIGHUP); temp files\n"
    "       removed, nothing half-written"
)


def short_exit_codes(success: str, usage: str) -> str:
    """The exit codes of a command that neither summarizes nor writes transcripts."""
    return (
        "Exit codes:\n"
        f"  0    {success}\n"
        f"  2    {usage}\n"
        "  6    stdout could not be written completely (closed or full)\n"
        "  130  interrupted by SIGINT (143: SIGTERM, 129: SIGHUP)"
    )
