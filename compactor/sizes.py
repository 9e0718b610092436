"""How much of a transcript a read may hold: :class:`InputLimits` (the config's ``input``
section) and :class:`LineGuard`, which checks the blocks of an input against them as they are
read, so that an endless pipe or device (``/dev/zero``, ``yes … |``) is refused (exit 2, naming
the limit) before more than the limit is held.

Its own small module: ``compact check`` streams with it without importing :mod:`compactor.io`.
"""

from __future__ import annotations

import os
import stat

from ._util import FrozenRecord
from .errors import TranscriptError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "InputLimits",
    "LineGuard",
    "check_size",
    "size_text",
]

DEFAULT_MAX_LINE_BYTES = 256 << 20
"""``input.max_line_bytes``: the longest line (record) a transcript may hold."""
DEFAULT_MAX_BYTES = 4 << 30
"""``input.max_bytes``: the largest transcript compact reads."""


class InputLimits(FrozenRecord):
    """What a transcript read may hold (the config's ``input`` section). A longer line or a
    larger input is refused (exit 2, naming the limit) as soon as the read passes it, so an
    endless pipe or device (``/dev/zero``, ``yes … |``) never holds more than the limit.
    (A frozen dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("max_line_bytes", "max_bytes")  # noqa: RUF023 - field order
    max_line_bytes: int
    """The longest line (one record, without its line terminator)."""
    max_bytes: int
    """The whole input."""

    def __init__(
        self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        init = object.__setattr__
        init(self, "max_line_bytes", max_line_bytes)
        init(self, "max_bytes", max_bytes)


def size_text(n: int) -> str:
    """``n`` bytes as a short size: ``256 MiB``, ``4 GiB``, ``1,000 bytes``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"


class LineGuard:
    """Checks the blocks of an input as they are read against :class:`InputLimits`: a line
    longer than ``max_line_bytes`` or more than ``max_bytes`` in all raises TranscriptError
    (naming the file, the line and the limit) before the block is kept.

    A block that cannot end a line over the limit costs two scans in C (``count``, ``rfind``);
    only one that might is walked line by line.
    """

    __slots__ = ("limits", "line", "name", "run", "total")

    def __init__(self, name: str, limits: InputLimits) -> None:
        self.name = name
        self.limits = limits
        self.total = 0
        self.line = 1
        """1-based number of the line the next byte belongs to."""
        self.run = 0
        """Bytes of that line read so far."""

    def feed(
        self, block: bytes, start: int = 0, end: int | None = None, *, last: bool = False
    ) -> None:
        """Check ``block[start:end]``, the next bytes of the input; ``last``: no more follow
        (the lines need not be counted for the next block)."""
        end = len(block) if end is None else end
        size = end - start
        self.total += size
        if self.total > self.limits.max_bytes:
            raise TranscriptError(
                self.name,
                None,
                None,
                f"input larger than {size_text(self.limits.max_bytes)} (input.max_bytes)",
            )
        cap = self.limits.max_line_bytes
        if self.run + size > cap:  # a line in this block might pass the limit
            self._walk(block, start, end, cap)
            return
        if last:
            return
        newline = block.rfind(b"\n", start, end)
        if newline < 0:
            self.run += size
        else:
            self.line += block.count(b"\n", start, end)
            self.run = end - newline - 1

    def _walk(self, block: bytes, pos: int, stop: int, cap: int) -> None:
        while True:
            nl = block.find(b"\n", pos, stop)
            end = stop if nl < 0 else nl
            self.run += end - pos
            if self.run > cap:
                raise TranscriptError(
                    self.name,
                    self.line,
                    None,
                    f"line longer than {size_text(cap)} (input.max_line_bytes)",
                )
            if nl < 0:
                return
            self.line += 1
            self.run = 0
            pos = nl + 1


def check_size(name: str, st: os.stat_result, limits: InputLimits) -> None:
    """A regular file larger than ``limits.max_bytes`` is refused before it is read."""
    if stat.S_ISREG(st.st_mode) and st.st_size > limits.max_bytes:
        raise TranscriptError(
            name,
            None,
            None,
            f"input larger than {size_text(limits.max_bytes)} (input.max_bytes): "
            f"{st.st_size:,} bytes",
        )
