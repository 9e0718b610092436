"""A text cut to a budget never leaves a Markdown code fence open (blind check 14: a skill body
cut inside its JSON-schema block left an odd number of fences, and everything after it, the
whole summary, rendered as code in ``compact show``)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["cut_bytes", "cut_middle", "fence_closed"]

_FENCE_RE = lazy_pattern(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)


def open_fence(text: str) -> str | None:
    """The fence (``````` or ``~~~``, as long as it was opened) left open at the end of ``text``."""
    opened: str | None = None
    for m in _FENCE_RE.finditer(text):
        mark = m.group(1)
        if opened is None:
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened):
            opened = None  # a closing fence: the same character, at least as long
    return opened


def fence_closed(cut: str) -> str:
    """``cut`` (a text cut short) with the code fence it leaves open closed on a line of its own."""
    mark = open_fence(cut)
    if mark is None:
        return cut
    return cut + ("" if cut.endswith("\n") else "\n") + mark


def cut_bytes(text: str, max_bytes: int) -> str:
    """``text``'s first ``max_bytes`` UTF-8 bytes (whole characters), a fence it cuts inside
    closed within the same bytes."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    cut = data[: max(0, max_bytes)].decode("utf-8", errors="ignore")
    mark = open_fence(cut)
    if mark is None:
        return cut
    room = max(0, max_bytes - len(mark) - 1)
    return fence_closed(data[:room].decode("utf-8", errors="ignore"))


def cut_middle(text: str, keep: int, marker: str) -> str:
    """``text``'s first and last ``keep`` characters with ``marker`` between, no fence left
    unbalanced by the cut (blind check 20: a quoted plan cut inside its code block left an odd
    number of fences, and ``compact show`` rendered the rest of the summary as code): a fence the
    head leaves open is closed before the marker, and one the tail starts inside is reopened
    after it. ``keep`` must leave a middle (``len(text) > 2 * keep``)."""
    head, tail = text[:keep], text[len(text) - keep :]
    if "`" not in text and "~" not in text:  # no fence anywhere: the common case, no scan
        return f"{head}{marker}{tail}"
    if open_fence(head) is not None:
        head = fence_closed(head) + "\n"
    inside = open_fence(text[: len(text) - keep])
    if inside is not None:
        tail = f"\n{inside}\n{tail}"
    return f"{head}{marker}{tail}"
