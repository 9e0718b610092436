"""A command that failed because it needs an interactive terminal (blind check 70 N4, issue 28).

rb_bash ran ``claude doctor`` in the agent's shell; it failed with "Raw mode is not supported on
the current process.stdin" (Ink's check for a terminal) and the harness's 2-minute limit. The
summary called it a long foreground job cut off by the time limit and said to run it in the
background, which fails the same way: the program needs a terminal the agent's shell does not
have, so the user must run it. :func:`needs_terminal` reads a result's head and tail for the
shapes programs print then: Ink's raw-mode error, ``not a tty`` / "the input device is not a
TTY", "Inappropriate ioctl for device", "stdin is not a terminal", sudo's "a terminal is required"
/ "no tty present", "cannot open /dev/tty".
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["NO_TERMINAL", "needs_terminal"]

NO_TERMINAL = (
    "That last action failed because it needs an interactive terminal, which the agent's shell "
    "does not have (not because it ran long): running it again here or in the background fails "
    "the same way; ask the user to run it in their own terminal, or use a non-interactive form"
)
"""Section 9's note for such a call (not the time-limit note)."""

_NO_TERMINAL_RE = lazy_pattern(
    r"raw mode is not supported|\bnot a tty\b|input device is not a tty|inappropriate ioctl for "
    r"device|(?:stdin|input|standard input) is not a (?:terminal|tty)|a terminal is required"
    r"|no tty present|(?:can ?not|could not|unable to) open /dev/tty|must be run (?:from|in) an? "
    r"(?:interactive )?(?:terminal|tty)|requires an interactive (?:terminal|tty|shell)",
    re.IGNORECASE,
)
_EDGE = 4_000


def needs_terminal(text: str) -> bool:
    """Whether a failed call's output says it needs an interactive terminal (module docstring)."""
    edges = text if len(text) <= 2 * _EDGE else text[:_EDGE] + "\n" + text[-_EDGE:]
    return _NO_TERMINAL_RE.search(edges) is not None
