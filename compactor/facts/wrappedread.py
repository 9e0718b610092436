"""A read inside a shell wrapper: ``bash -lc 'ls node_modules/.bin | grep vitest'``.

Codex runs every command as ``["bash", "-lc", SCRIPT]``, so :func:`is_reading_call` sees the
program ``bash`` and never a read. Unwrapping the script everywhere changes what the summary
keeps of a result (a successful ``rg`` printed in a wrapper is kept as output today), so this
test serves one decision only: whether a FAILED call only looked (``stat``/``ls``/``grep`` of a
missing path), which makes its failure a fact it established, not an open failure
(blind check 18, madinah-codex).
"""

from __future__ import annotations

from .commands import is_reading_program, programs
from .shellwrap import inner_command
from .text import Call

__all__ = ["is_wrapped_read"]


def is_wrapped_read(call: Call | None) -> bool:
    """Whether ``call`` runs a shell wrapper (``bash -lc``, ``sh -c``, ``zsh -lc``) whose
    script only reads, lists or searches."""
    if call is None or call.command is None:
        return False
    script = inner_command(call)
    if script is None or script == call.command:
        return False  # no wrapper: :func:`is_reading_call` already decides
    names = programs(script)
    return bool(names) and all(is_reading_program(n) for n in names)
