"""The lines of a parsed JSONL file (:func:`compactor.formats._jsonl.parse_lines`): a
:class:`Line` each, held as columns by a :class:`LineTable`, whose records a :class:`Records` view
parses again when they were let go."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

import orjson

from compactor._json import JsonObject

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = ["Line", "LineTable", "Records"]


class Line:
    """One non-blank line of a JSONL file: its 1-based number, its parsed object, and where its
    bytes are.

    The bytes are not copied per line: a line keeps its span in the bytes it was read from (a
    50 MB file read as 50 MB of lines would be held twice), or in a
    :class:`~compactor.io.FileSource`, which reads them again when :attr:`text` is asked for.
    """

    __slots__ = ("_check", "_end", "_obj", "_source", "_start", "number")

    def __init__(
        self,
        number: int,
        source: bytes | FileSource,
        obj: JsonObject | None,
        start: int = 0,
        end: int = -1,
        check: int = 0,
    ) -> None:
        self.number = number
        """1-based line number."""
        self._obj = obj
        self._source = source
        self._start = start
        self._end = end if end >= 0 else len(source) if isinstance(source, bytes) else 0
        self._check = check
        """``hash()`` of the bytes, for a line of a FileSource (checked when read again)."""

    @property
    def obj(self) -> JsonObject:
        """The parsed JSON object (parsed again from :attr:`text` for a line of a
        :class:`LineTable` that let its records go)."""
        obj = self._obj
        if obj is None:
            obj = self._obj = orjson.loads(self.text)
        return obj

    @property
    def text(self) -> bytes:
        """The original bytes, without BOM and without the line terminator."""
        source = self._source
        if not isinstance(source, bytes):
            return source.span(self._start, self._end, self._check)
        if self._start == 0 and self._end == len(source):
            return source
        return source[self._start : self._end]

    def __repr__(self) -> str:
        return f"Line({self.number}, {self.text!r}, {self.obj!r})"


class LineTable(Sequence[Line]):
    """The lines of one parsed file, held as columns: each line's number, span and check in
    arrays, its record in a list; a :class:`Line` is made when one is asked for.

    A million one-line messages held as a million :class:`Line` objects cost ~220 bytes each
    (the object and four ints), as much as the messages' own text; the columns cost 32.
    """

    __slots__ = ("_checks", "_each", "_ends", "_numbers", "_objs", "_source", "_starts")

    def __init__(
        self, source: bytes | FileSource, each: Callable[[int, JsonObject], None] | None = None
    ) -> None:
        """``each``: called with every line's number and record as it is added, the records
        then not kept (as after :meth:`forget_records`)."""
        self._source = source
        self._numbers: array[int] | None = None  # None: line i is number i + 1 (so far)
        self._starts = array("q")
        self._ends = array("q")
        self._checks = array("q")
        self._objs: list[JsonObject] | None = [] if each is None else None
        self._each = each

    def add(self, number: int, obj: JsonObject, start: int, end: int, check: int = 0) -> None:
        """Append the line ``number`` (its record, its span in the source, its bytes' hash)."""
        if self._numbers is not None or number != len(self._starts) + 1:
            self.numbered()(number)  # a line was skipped: the numbers are a column from now
        self._starts.append(start)
        self._ends.append(end)
        self._checks.append(check)
        if self._objs is not None:
            self._objs.append(obj)
        elif self._each is not None:
            self._each(number, obj)

    def appenders(self) -> tuple[Callable[..., None], ...] | None:
        """What :meth:`add` does for line ``len(self) + 1`` (no line skipped: no number kept),
        for a table that gives its records to ``each`` (None for one that keeps them): the
        columns' appends and ``each``, bound once for the parser's loop (a million lines)."""
        if self._objs is not None or self._each is None:
            return None
        return (self._starts.append, self._ends.append, self._checks.append, self._each)

    def numbered(self) -> Callable[[int], None]:
        """The number column's append, the column made when no line was skipped so far."""
        if self._numbers is None:
            self._numbers = array("q", range(1, len(self._starts) + 1))
        return self._numbers.append

    def settle(self) -> None:
        """Once every line is added: drop the number column when line i is number i + 1 (a
        file without blank lines; 8 bytes a line). Numbers only grow, so the last one says."""
        numbers = self._numbers
        if numbers is not None and numbers and numbers[-1] == len(numbers):
            self._numbers = None

    def __len__(self) -> int:
        return len(self._starts)

    def _line(self, i: int) -> Line:
        objs, numbers = self._objs, self._numbers
        return Line(
            i + 1 if numbers is None else numbers[i],
            self._source,
            None if objs is None else objs[i],
            self._starts[i],
            self._ends[i],
            self._checks[i],
        )

    @overload
    def __getitem__(self, index: int) -> Line: ...
    @overload
    def __getitem__(self, index: slice) -> list[Line]: ...
    def __getitem__(self, index: int | slice) -> Line | list[Line]:
        if isinstance(index, slice):
            return [self._line(i) for i in range(len(self._starts))[index]]
        return self._line(range(len(self._starts))[index])

    def __iter__(self) -> Iterator[Line]:
        for i in range(len(self._starts)):
            yield self._line(i)

    def __reversed__(self) -> Iterator[Line]:
        for i in range(len(self._starts) - 1, -1, -1):
            yield self._line(i)

    def forget_records(self) -> None:
        """Let the parsed records go; a line's record is parsed again from its bytes when
        asked for. For a format whose messages hold all a writer needs (the chat formats copy
        an unchanged message's bytes and render a changed one from the message): a two-key
        record of a tiny message costs ~240 bytes more than its message."""
        self._objs = None

    @property
    def records(self) -> Sequence[JsonObject]:
        """Every line's record, in order (a new list of the same objects; a view that parses
        them again after :meth:`forget_records`)."""
        return list(self._objs) if self._objs is not None else Records(self)


class Records(Sequence[JsonObject]):
    """The records of a :class:`LineTable` that let them go, parsed again when read."""

    __slots__ = ("_lines",)

    def __init__(self, lines: LineTable) -> None:
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> JsonObject: ...
    @overload
    def __getitem__(self, index: slice) -> list[JsonObject]: ...
    def __getitem__(self, index: int | slice) -> JsonObject | list[JsonObject]:
        if isinstance(index, slice):
            return [ln.obj for ln in self._lines[index]]
        return self._lines[index].obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
