"""A ``git status`` digest fitted to a summary's item room without losing the count (blind
check 47 W4).

cc-team §5: "Bash: git status → untracked (not committed): PROMPT.md; changed, not committed:
backend/.coverage (modified)" although the status listed 26 modified files: the digest named
eight and the item was then cut at a word to the room left (scaled down for a long session), so
one file stayed and nothing said that 25 more were dropped, and a resuming agent did not learn
which files the in-flight commit held. :func:`fit_listing` drops whole files from the end of the
longest list instead and says how many more there are ("… and 25 more"); a line that is no
``git status`` digest is cut as before.
"""

from __future__ import annotations

from compactor._util import lazy_pattern
from compactor.facts import shorten

from .local_printed import CHANGED, UNTRACKED, more_note

__all__ = ["fit_listing"]

_MORE_RE = lazy_pattern(r", … and (\d+) more$")
"""How a digest's list says how many files it does not name (:func:`more_note`)."""


def fit_listing(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: a ``git status`` digest (:data:`UNTRACKED`,
    :data:`CHANGED`) gets twice that room (the files of a commit in flight) and keeps as many
    whole files of each list as fit, with the count of the others; any other line is cut at a
    word (:func:`shorten`)."""
    if text.startswith("(before ") and ") " in text:  # dated: the digest after its label
        label, digest = text.split(") ", 1)
        return f"{label}) {fit_listing(digest, max(limit - len(label) // 2, 40))}"
    if not text.startswith((UNTRACKED, CHANGED)):
        return shorten(text, limit)
    limit *= 2
    if len(text) <= limit:
        return text
    parts = _parts(text)
    if parts is None:
        return shorten(text, limit)
    shown = [len(items) for _, items, _ in parts]
    while True:
        line = _render(parts, shown)
        if len(line) <= limit or not any(shown):
            break
        longest = max(range(len(shown)), key=lambda k: (shown[k], k == 0))  # untracked first
        shown[longest] -= 1
    return line if len(line) <= limit else shorten(line, limit)


def _parts(text: str) -> list[tuple[str, list[str], int]] | None:
    """(head, files named, files not named) of each list in a digest; None when it does not
    read as one."""
    pieces = text.split(f"; {CHANGED}", 1)
    if len(pieces) == 2 and not text.startswith(UNTRACKED):
        return None
    chunks = [pieces[0], CHANGED + pieces[1]] if len(pieces) == 2 else pieces
    parts: list[tuple[str, list[str], int]] = []
    for chunk in chunks:
        head = UNTRACKED if chunk.startswith(UNTRACKED) else CHANGED
        body = chunk[len(head) :]
        more = 0
        if (m := _MORE_RE.search(body)) is not None:
            more, body = int(m.group(1)), body[: m.start()]
        parts.append((head, [f for f in body.split(", ") if f], more))
    return parts


def _render(parts: list[tuple[str, list[str], int]], shown: list[int]) -> str:
    out = []
    for (head, files, more), n in zip(parts, shown, strict=True):
        dropped = more + len(files) - n
        if n:
            out.append(head + ", ".join(files[:n]) + more_note(dropped))
        else:
            out.append(f"{head}{dropped} files")
    return "; ".join(out)
