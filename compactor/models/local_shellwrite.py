"""A failed patch or edit of a file that a later shell call rewrote (BENCH49 W5, issue 28).

cx-kardex (Codex, PowerShell): two ``apply_patch`` calls of ``specs\\…\\spec.md`` failed
("apply_patch verification failed"); the agent then rewrote the file with a script
(``$path = '…\\spec.md'; $lines = Get-Content $path … $out | Set-Content $path``, exit 0), and
section 4 said "Not fixed: a later apply_patch(… spec.md …) failed too": the file list saw no
write through the ``$path`` variable. :func:`shell_rewrite` finds the later successful command
that writes one of the failed call's files (:func:`.local_sameoutput.rewritten_files`: a
``Set-Content``/``Out-File``/redirection, ``python -c "open(PATH, 'w')"``, ``sed -i … PATH``),
variables set in the same command resolved; the owner of "is this failure resolved" is still
:func:`.local_again.still_open`, which reads the verdict this sets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compactor.facts import Call, command_of

from .local_again import still_open
from .local_noise import is_file_edit
from .local_sameoutput import rewritten_files
from .local_text import call_line

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .local_session import Session

__all__ = ["judge_edit_rewrites", "shell_rewrite"]

_PATH_KEYS = ("file_path", "path", "filename", "notebook_path")


def shell_rewrite(s: Session, after: int, files: Iterable[str]) -> Call | None:
    """The first successful shell call after entry ``after`` that writes one of ``files``."""
    targets = [f.replace("\\", "/").lower() for f in files]
    if not targets:
        return None
    for call in s.calls:
        if call.index <= after or call.id in s.failed_calls:
            continue
        command = command_of(call)
        if command is None or not any(t.rsplit("/", 1)[-1] in command.lower() for t in targets):
            continue
        written = rewritten_files(command)
        if any(_same(w, t) for w in written for t in targets):
            return call
    return None


def judge_edit_rewrites(s: Session) -> None:
    """Mark ``fixed`` each failure of a file edit (``Edit``, ``MultiEdit``, ``str_replace`` …)
    still open when a later successful shell call wrote the same file (``sed -i PATH``,
    ``… > PATH``, ``Set-Content PATH``): the change was made another way."""
    open_errors = [e for e in s.errors if still_open(e) and e.signature[0] != "shell"]
    if not open_errors:
        return
    edits: dict[str, list[Call]] = {}
    for c in s.calls:
        if c.id in s.failed_calls and is_file_edit(c):
            edits.setdefault(call_line(c, 300), []).append(c)
    for err in open_errors:
        call = next((c for c in reversed(edits.get(err.call, [])) if c.index <= err.index), None)
        if call is None:
            continue
        path = next((v for k in _PATH_KEYS if isinstance(v := call.args.get(k), str) and v), "")
        if path and (by := shell_rewrite(s, err.index, [path])) is not None:
            err.after, err.why, err.by = "fixed", "", call_line(by, 160)


def _same(one: str, two: str) -> bool:
    if one == two:
        return True
    short, long = (one, two) if len(one) < len(two) else (two, one)
    return long.endswith("/" + short)
