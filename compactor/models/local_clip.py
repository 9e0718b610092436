"""A long command shown shortened says so (blind check 56 W3).

cx_kiki_export: the call in flight at the end ran ``…Remove-Item -Recurse -Force}};
.\\.venv\\Scripts\\toolkit.cmd export-desktop-all``: it deleted a partial batch, then exported
again. Sections 7 and 9 showed it cut after the deletion, with no "…": re-running "the call" as
shown would delete the bundles and export nothing. :func:`clip_command` keeps a long command's
start and its end (the last program it runs) and puts between them "…" and how many of its steps
are not shown whole.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts.text import shorten

__all__ = ["clip_command"]

_STEP_RE = lazy_pattern(r"\s*(?:&&|\|\||;|\n)\s*")


def _steps(line: str) -> list[tuple[int, int]]:
    """The (start, end) of each step of a one-line command (split at ``;``, ``&&``, ``||``)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for sep in _STEP_RE.finditer(line):
        if line[start : sep.start()].strip():
            spans.append((start, sep.start()))
        start = sep.end()
    if line[start:].strip():
        spans.append((start, len(line)))
    return spans


def clip_command(line: str, limit: int) -> str:
    """``line`` (a command on one line) in about ``limit`` characters: all of it when it fits;
    else its start, "…" (with how many of its steps are not shown whole, when it has several)
    and its end (its last step whole when that takes at most two thirds of the room)."""
    if len(line) <= limit:
        return line
    steps = _steps(line)
    last = steps[-1] if steps else (0, len(line))
    if len(steps) > 1 and last[1] - last[0] <= limit * 2 // 3:  # the last step whole
        end = line[last[0] : last[1]]
    else:
        end = line[-max(limit // 3, 1) :].lstrip()
    head = shorten(line, max(limit - len(end), 1))
    shown_from = len(line) - len(end)
    cut = sum(1 for s, e in steps if not (e <= len(head) or s >= shown_from))
    if len(steps) > 1 and cut:
        return f"{head} … ({cut} of {len(steps)} steps not shown whole) … {end}"
    return f"{head} … {end}"
