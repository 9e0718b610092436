"""Records of types a reader does not know, kept verbatim with one warning per type: tallied
(:func:`tally`), and refused when they outnumber the records the reader read
(:func:`refuse_outnumbered`: a newer or other CLI that renamed its message records would
otherwise be read as a nearly empty history). The readers say what they refuse in their own
words (:mod:`.codex`'s response items, :mod:`.copilot`'s events)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from compactor.errors import TranscriptError

__all__ = ["Found", "refuse_outnumbered", "tally"]

Found = tuple[str, int, int]
"""``(type, first line, count)`` of one unknown type (``Transcript.meta.unknown``'s rows)."""


def tally(seen: Iterable[tuple[str, int]]) -> list[Found]:
    """:data:`Found` of each type in ``seen`` (``(type, line)`` pairs), in first-seen order."""
    found: dict[str, list[int]] = {}
    for name, line in seen:
        found.setdefault(name, [line, 0])[1] += 1
    return [(name, first, n) for name, (first, n) in found.items()]


def refuse_outnumbered(
    path: str,
    found: Sequence[Found],
    read: int,
    field: str,
    says: Callable[[str, int, list[str], int], str],
) -> None:
    """A :class:`TranscriptError` at the first unknown record (its ``field``) when the records
    in ``found`` outnumber the ``read`` ones, worded by ``says(first type, how many, the types
    sorted, read)``; else nothing: they are kept, each type one warning."""
    total = sum(n for _, _, n in found)
    if not found or total <= read:
        return
    name, first, _ = min(found, key=lambda x: x[1])
    raise TranscriptError(
        path, first, field, says(name, total, sorted(n for n, _, _ in found), read)
    )
