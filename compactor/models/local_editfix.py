"""A failure fixed by an edit, then a successful re-run: the edit is named as the fix (blind
check 59 W3, issue 28).

cc-jake: an inline test of ``_gerar_pdf`` failed (``FPDFException``); the agent read the bot,
Edited ``def _gerar_pdf`` in ``/root/bot/jake_telegram.py`` and ran the test again, which
passed. Section 4 said "Fixed: a later … succeeded", as if the re-run had fixed it: the resuming
agent is not told that the file changed. :func:`judge_edit_fixes` turns a ``fixed`` verdict
into "Fixed by editing FILE; then a later … succeeded" when a successful file edit between the
failure and the re-run touched what the failure names: the file (a traceback path, the script
the command ran) or a function or class the failed command names (``def NAME`` in the edit).
"""

from __future__ import annotations

import bisect
import re
from itertools import islice

from compactor._util import lazy_pattern

from .local_noise import is_file_edit
from .local_session import Session
from .local_text import call_line

__all__ = ["judge_edit_fixes"]

_PATH_KEYS = ("file_path", "path", "notebook_path")
_FAR = 400
"""Entries after a failure within which its re-run is looked for."""
_DEFINES_RE = lazy_pattern(r"\b(?:def|class|function|func|fn)\s+([A-Za-z_]\w{3,})")
"""A definition an edit's old text holds (``def _gerar_pdf``): the code the edit changed."""


def judge_edit_fixes(s: Session) -> None:
    """Name the edit that fixed each ``fixed`` failure (module docstring)."""
    fixed = [e for e in s.errors if e.after == "fixed" and not e.why and e.by]
    if not fixed:
        return
    edits = [c for c in s.calls if is_file_edit(c) and c.id not in s.failed_calls]
    if not edits:
        return
    starts = [c.index for c in s.calls]
    at = [c.index for c in edits]  # the edits' entries, in order: a failure's window by bisection
    lines: dict[str, str] = {}  # each call's line, made once
    for err in fixed:
        if edits[-1].index <= err.index:
            continue
        rerun = None
        for c in islice(s.calls, bisect.bisect_right(starts, err.index), None):
            if c.id not in lines:
                lines[c.id] = call_line(c, 160)
            if lines[c.id] == err.by:
                rerun = c
                break
            if c.index - err.index > _FAR:
                break
        if rerun is None:
            continue
        named = err.call + " " + " ".join(err.outcome.lines)
        between = edits[bisect.bisect_right(at, err.index) : bisect.bisect_left(at, rerun.index)]
        for edit in reversed(between):
            path = next((v for k in _PATH_KEYS if isinstance(v := edit.args.get(k), str)), "")
            if path and _touches(edit.args.get("old_string"), path, named):
                err.after, err.why = "fixed by editing", path
                break


def _touches(old: object, path: str, named: str) -> bool:
    """Whether an edit of ``path`` (its old text ``old``) touched what the failure names."""
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    if len(base) > 3 and base in named:
        return True
    if not isinstance(old, str):
        return False
    return any(
        re.search(rf"\b{re.escape(name)}\b", named) is not None
        for name in set(_DEFINES_RE.findall(old[:4_000]))
    )
