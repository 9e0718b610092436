"""Files a command's own output says it deleted (blind check 68, W2).

cc_my_grep: ``git -C /var/www/app clean -fd`` printed "Removing .env.production", yet section 3
still listed the file as "Read, not changed": deletions were read only from an ``rm`` in the
command's text. :func:`reported_deletions` reads a shell call's output by shape, a whole line
each:

* ``removed 'X'`` / ``removed directory 'X'`` (GNU ``rm -v``, whatever runs it);
* ``Removing X`` of a ``git clean`` (never its dry run's "Would remove X"; ``apt``'s and
  ``pip``'s "Removing pkg (1.2) ..." come from other programs);
* ``rm 'X'`` of a ``git rm``.

Never from a call that only reads (a log holding such lines), nor from a line the command itself
holds (``echo "removed 'x'"``). A path is relative to where the command ran: a ``git -C DIR``
names that folder (:attr:`Deleted.base`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactor._util import lazy_pattern

from .commands import command_of, is_reading_call, programs
from .outcomes import scan_window, strip_output_header
from .text import Call
from .wrappedread import is_wrapped_read

__all__ = ["Deleted", "reported_deletions"]

_RM_V_RE = lazy_pattern(
    r"^[ \t]*removed(?: directory)?[ \t]+(?:'([^'\n]{1,400})'|‘([^’\n]{1,400})’)[ \t\r]*$",
    re.MULTILINE,
)
_GIT_CLEAN_RE = lazy_pattern(r"^Removing[ \t]+(\S[^\n]{0,400}?)[ \t\r]*$", re.MULTILINE)
_GIT_RM_RE = lazy_pattern(r"^rm[ \t]+'([^'\n]{1,400})'[ \t\r]*$", re.MULTILINE)
_GIT_DIR_RE = lazy_pattern(r"\bgit[ \t]+-C[ \t]+(\"[^\"\n]+\"|'[^'\n]+'|[^\s;&|]+)")
_CLEAN_RE = lazy_pattern(r"\bgit\b[^\n;&|]*?\sclean\b")
_GIT_RM_CMD_RE = lazy_pattern(r"\bgit\b[^\n;&|]*?\srm\b")


@dataclass(frozen=True, slots=True)
class Deleted:
    """What a call's output says it deleted."""

    paths: tuple[str, ...]
    """As printed (a folder ends in ``/``), in order, each once."""
    base: str
    """The folder a ``git -C DIR`` ran in (as written), '' when none."""


def reported_deletions(call: Call, text: str) -> Deleted | None:
    """The files ``call``'s output ``text`` says it deleted (see the module doc); None for a
    call that is no shell command, only reads, or reports none."""
    command = command_of(call)
    if command is None or not text or is_reading_call(call):
        return None  # decided by the call first: most calls read or edit
    window = scan_window(text)
    if not ("emov" in window or "rm '" in window) or is_wrapped_read(call):
        return None  # most outputs: no scan
    window = strip_output_header(window)
    found: dict[str, None] = {}
    patterns = [_RM_V_RE]
    git = any(name.split(" ", 1)[0] == "git" for name in programs(command))
    if git and _CLEAN_RE.search(command) is not None:
        patterns.append(_GIT_CLEAN_RE)
    if git and _GIT_RM_CMD_RE.search(command) is not None:
        patterns.append(_GIT_RM_RE)
    for pattern in patterns:
        for m in pattern.finditer(window):
            path = next(g for g in m.groups() if g)
            if m.group(0).strip() in command or path in (".", "./", "/"):
                continue  # the command prints it itself (``echo "removed 'x'"``)
            found[path] = None
    if not found:
        return None
    where = _GIT_DIR_RE.search(command) if git else None
    return Deleted(tuple(found), where.group(1).strip("\"'") if where is not None else "")
