"""Metadata lines a one-message-per-line writer keeps in place (openai ``metadata`` records)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["with_kept"]


class _Text(Protocol):
    @property
    def text(self) -> bytes: ...


def with_kept(
    out: list[bytes],
    matches: Sequence[int | None],
    origin: Sequence[Sequence[int]],
    keep: Sequence[int],
    lines: Sequence[_Text],
) -> list[bytes]:
    """``out`` with the metadata lines ``keep`` (record indexes) back in place: those before the
    first message at the top, each other one before the first kept message that followed it,
    the rest at the end."""
    first = origin[0][0] if origin else len(lines)
    pending = sorted(keep)
    k = 0
    result: list[bytes] = []
    while k < len(pending) and pending[k] < first:
        result.append(lines[pending[k]].text)
        k += 1
    for text, j in zip(out, matches, strict=True):
        if j is not None:
            at = origin[j][0]
            while k < len(pending) and pending[k] < at:
                result.append(lines[pending[k]].text)
                k += 1
        result.append(text)
    result.extend(lines[i].text for i in pending[k:])
    return result
