"""The lines of a text that hold one of a few words, found by a ``str.find`` pass per word
(moved from :mod:`compactor.facts.outcomes`, at its size limit; perf68).

:func:`~compactor.facts.outcomes.error_lines` first keeps the lines that hold an error hint
(``rror``, ``ail``, ``not found`` …, lower-cased). One regex of the hints, anchored at each
hint's rarest character, is still tried at every ``o``, ``l`` or ``d`` of a text; on a text of
2 KB or more a ``str.find`` pass per hint takes a sixth less time (on a short one the passes'
calls cost more than the pattern's search).
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["found_lines"]


def found_lines(text: str, hay: str, words: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(position, line) of each line of ``text`` (``\\n`` and, when ``text`` holds one, ``\\r``
    end lines) in which ``hay``, ``text`` lower-cased with every position kept, holds one of
    ``words``; in order, each once."""
    breaks = "\r" in text
    size = len(text)
    found: dict[int, int] = {}  # a line's end -> where a word stands in it
    for word in words:
        at = hay.find(word)
        while at >= 0:
            end = text.find("\n", at)
            if end < 0:
                end = size
            if breaks:
                cr = text.find("\r", at, end)
                end = end if cr < 0 else cr
            found[end] = at
            at = hay.find(word, end)
    for end in sorted(found):
        at = found[end]
        start = text.rfind("\n", 0, at) + 1
        if breaks:
            start = max(start, text.rfind("\r", 0, at) + 1)
        yield start, text[start:end]
