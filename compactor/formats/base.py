"""The contract every transcript format module fulfils.

A format turns the bytes of a JSONL file into a :class:`Transcript` (model-visible messages plus
everything needed to write the file back) and renders a compacted history in the same format.
Records that are not messages are kept; unknown fields survive a round trip.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal, Protocol, overload

from compactor._json import JsonObject, JsonValue
from compactor._util import FrozenRecord
from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, Message, ToolInfo

if TYPE_CHECKING:
    from compactor.io import FileSource

    from ._jsonl import Line
    from .json_document import DocumentStyle

__all__ = [
    "SOURCE_DATE_EPOCH",
    "CompactionInfo",
    "Format",
    "FormatSpec",
    "OneLineEach",
    "Streaming",
    "Transcript",
    "TranscriptMeta",
    "TypedRecords",
    "WriteMode",
    "newline_of",
    "source_date_epoch",
]

SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"
"""The reproducible-builds variable: when set, the time of every record a compaction adds."""

WriteMode = Literal["shrink", "append"]


def newline_of(raw: bytes) -> bytes:
    """The line terminator ``raw`` uses (``\\r\\n`` or ``\\n``, from its first line)."""
    first = raw.find(b"\n")
    return b"\r\n" if first > 0 and raw[first - 1 : first] == b"\r" else b"\n"


class OneLineEach(Sequence[Sequence[int]]):
    """The origin of a file whose message ``i`` is its line ``i`` (``(i,)``), held as one
    number: a list of a million one-element lists would cost more than the lines."""

    __slots__ = ("_n",)

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> tuple[int]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[int]]: ...
    def __getitem__(self, index: int | slice) -> tuple[int] | list[tuple[int]]:
        if isinstance(index, slice):
            return [(i,) for i in range(self._n)[index]]
        if not -self._n <= index < self._n:
            raise IndexError(index)
        return (index % self._n,)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OneLineEach):
            return self._n == other._n
        return isinstance(other, Sequence) and list(self) == [tuple(o) for o in other]

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class TranscriptMeta:
    """What a line-based reader knows that the writer needs (one type for every format)."""

    lines: Sequence[Line] = ()
    """The parsed lines, in file order."""
    origin: Sequence[Sequence[int]] = ()
    """For message ``i``, the indexes in :attr:`lines` of the records it was read from (none:
    a message an earlier compaction's ``replacement_history`` holds)."""
    start: int = 0
    """The first line of the model-visible history (after an earlier compaction)."""
    snapshot: list[Message | AgenticMessage] | None = None
    """A deep copy of the messages as read (``read_transcript(snapshot=True)``): a writer
    still tells which messages are unchanged after a caller edited some in place."""
    json_document: DocumentStyle | None = None
    """The file is one JSON array of records in this style (written back as one)."""
    matches: tuple[Sequence[Message | AgenticMessage], list[int | None]] | None = None
    unknown: Sequence[tuple[str, int, int]] = ()
    """``(type, first line, count)`` of records of a type the reader does not know that it
    keeps as metadata (a Claude Code record with no ``message``): written back as they are,
    counted nowhere, reported once per type (:func:`compactor.formats.registry.unknown_notes`)."""
    """``(new_messages, matches)``: which original each of that very list is, set by a caller
    that knows (:func:`compactor.formats.patching.set_known_matches`)."""


@dataclass(slots=True)
class Transcript:
    """A transcript read from a file."""

    format: str
    """Format name (``openai``, ``eino``, ``claude-code``, ``codex``, ``anthropic``)."""
    path: str
    """Where it was read from (``-`` for stdin)."""
    source: bytes | FileSource
    """The original bytes, so a pass-through is byte-identical; or the
    :class:`~compactor.io.FileSource` they are read from again when needed (see :attr:`raw`)."""
    messages: list[Message] | list[AgenticMessage]
    """The model-visible history, oldest first."""
    tools: list[ToolInfo] = field(default_factory=list)
    """Tool definitions when the format records them."""
    records: Sequence[JsonValue] = field(default_factory=list)
    """Parsed records (format-specific), in file order."""
    meta: TranscriptMeta = field(default_factory=TranscriptMeta)
    """What the writer needs: the lines, each message's origin lines, ..."""

    @property
    def raw(self) -> bytes:
        """The original bytes (from a FileSource: read again, and checked; writers ask for them
        only to copy the whole input)."""
        source = self.source
        return source if isinstance(source, bytes) else source.data()

    @property
    def newline(self) -> bytes:
        """The line terminator the file uses (``\\r\\n`` or ``\\n``, from its first line)."""
        source = self.source
        return newline_of(source) if isinstance(source, bytes) else source.newline

    @property
    def has_bom(self) -> bool:
        """The file starts with a UTF-8 byte order mark."""
        source = self.source
        return source.startswith(b"\xef\xbb\xbf") if isinstance(source, bytes) else source.bom


@dataclass(slots=True)
class CompactionInfo:
    """Facts about a compaction the writer may record (Claude Code's compactMetadata, ...)."""

    tokens_before: int | None = None
    tokens_after: int | None = None
    trigger: Literal["auto", "manual"] = "auto"
    timestamp: str | None = None
    """ISO-8601 UTC; None = the newest time recorded in the input (never the wall clock, so
    the same input gives the same bytes). ``compact run`` sets it from ``$SOURCE_DATE_EPOCH``
    when that is set (:func:`source_date_epoch`)."""


def source_date_epoch(environ: dict[str, str] | None = None) -> str | None:
    """``$SOURCE_DATE_EPOCH`` (seconds since 1970, UTC) as an ISO-8601 time with milliseconds,
    the form the writers use; None when it is unset or empty. Anything but a non-negative
    integer is a :class:`ConfigError`: the reproducible-builds convention is to refuse a
    malformed value rather than guess."""
    env = os.environ if environ is None else environ
    value = env.get(SOURCE_DATE_EPOCH, "").strip()
    if not value:
        return None
    if not value.isdigit() or not value.isascii():
        raise ConfigError(
            f"{SOURCE_DATE_EPOCH} must be a non-negative integer (seconds since 1970), got "
            f"{value[:40]!r}"
        )
    try:
        when = datetime.fromtimestamp(int(value), UTC)
    except (OverflowError, ValueError, OSError) as err:
        raise ConfigError(f"{SOURCE_DATE_EPOCH} is out of range: {value[:40]!r}") from err
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Streaming(FrozenRecord):
    """``compact check`` reads the format in bounded memory, a record at a time.
    (A frozen dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("reader", "eino_fields")  # noqa: RUF023 - field order
    reader: Callable[[str, int, JsonObject], Message]
    """One record → its message (``(path, line number, record)``)."""
    eino_fields: bool
    """Records may carry Eino's multi-content and ``response_meta`` fields."""

    def __init__(
        self, reader: Callable[[str, int, JsonObject], Message], eino_fields: bool = False
    ) -> None:
        init = object.__setattr__
        init(self, "reader", reader)
        init(self, "eino_fields", eino_fields)


_Problem = Callable[[JsonObject, str | None, bool], tuple[str | None, str] | None]


class TypedRecords(FrozenRecord):
    """A family of ``{"type": ...}`` records only this format writes (Claude Code, Codex).
    (A frozen dataclass's behaviour, defined as a plain class: every start-up defines it.)"""

    __slots__ = ("owns", "problem")
    owns: Callable[[JsonObject, str], bool]
    """``(record, its type) →`` whether the record is one of this family's."""
    problem: _Problem
    """``(record, its type, owned) →`` why it cannot be in this format's file, or None.
    Called for the family's own records (``owned``) and for records of no family that have
    a string ``type``."""

    def __init__(self, owns: Callable[[JsonObject, str], bool], problem: _Problem) -> None:
        init = object.__setattr__
        init(self, "owns", owns)
        init(self, "problem", problem)


class FormatSpec(FrozenRecord):
    """What a format declares about itself; the registry, the error messages, ``check``,
    ``--append``, the CLI's help and the reduction are generated from these. (A frozen
    dataclass's behaviour, defined as a plain class: every start-up defines it, and a frozen
    dataclass of 18 fields costs ~0.9 ms to define.) The optional fields by keyword only."""

    __slots__ = (  # noqa: RUF023 - field order: repr and == follow it
        "name",
        "help",
        "detect_order",
        "list_order",
        "family",
        "typed",
        "roles",
        "streaming",
        "can_append",
        "agent_session",
        "read_tool",
        "call_keys",
        "result_keys",
        "record_kind",
        "is_message_record",
        "patch_reduced",
        "fix_appended",
        "append_refused",
    )

    name: str
    """``--format`` NAME and :attr:`Transcript.format`."""
    help: str
    """One line: what files it reads (shell completion of ``--format``, docs)."""
    detect_order: int
    """Detection tries lower first: the specific formats before plain chat messages."""
    list_order: int
    """Where the name comes when formats are listed (help, error messages)."""
    family: str
    """The record family (``_family.family``): ``chat`` for ``{role, content}`` lines, else
    the format's own name for typed records."""
    typed: TypedRecords | None
    """Typed records: how to tell them and check them (not ``chat``)."""
    roles: tuple[str, ...]
    """Chat family: the roles its records may have."""
    streaming: Streaming | None
    """Set when ``check`` can read it in bounded memory."""
    can_append: bool
    """``--append`` can extend its files (a session log, not a message list)."""
    agent_session: bool
    """An agent harness's session log: the CLI keeps its durable context (skills, injected
    instruction files, the latest plan) by default (issue 28)."""
    read_tool: str | None
    """The tool its harness reads a file with (a reduction's pointer to offloaded output)."""
    call_keys: Mapping[str, str]
    """Typed blocks/items of its records that are tool calls: ``type`` → the id's key."""
    result_keys: Mapping[str, str]
    """Typed blocks/items that are tool results: ``type`` → the key of the call id."""
    record_kind: Callable[[JsonObject], str] | None
    """A record's kind for the report's ``dropped_records`` (None: ``message``)."""
    is_message_record: Callable[[JsonObject], bool] | None
    """Whether a record holds a message (None: every record does)."""
    patch_reduced: Callable[[Transcript, Mapping[int, Mapping[str, str]]], bytes] | None
    """A reduction (shrink) is written by patching the cleared results in the file's own
    records: ``(transcript, message index → call id → new text) → bytes``."""
    fix_appended: Callable[[bytes, Transcript], bytes] | None
    """Applied to what a reduction with ``--append`` wrote."""
    append_refused: Callable[[Transcript], str | None] | None
    """Why ``--append`` cannot extend this file although the format can (no client would
    resume it), or None: the run is refused before anything is done."""

    def __init__(
        self,
        name: str,
        help: str,
        detect_order: int,
        list_order: int,
        family: str,
        **declared: Unpack[_Declared],
    ) -> None:
        init = object.__setattr__
        init(self, "name", name)
        init(self, "help", help)
        init(self, "detect_order", detect_order)
        init(self, "list_order", list_order)
        init(self, "family", family)
        unknown = declared.keys() - _OPTIONAL.keys()
        if unknown:
            raise TypeError(f"FormatSpec() got an unexpected keyword argument {min(unknown)!r}")
        for key, default in _OPTIONAL.items():
            init(self, key, declared.get(key, default))
        for key in ("call_keys", "result_keys"):
            if key not in declared:
                init(self, key, {})  # a dict of its own, as the dataclass's default_factory


_OPTIONAL: dict[str, object] = {
    "typed": None,
    "roles": (),
    "streaming": None,
    "can_append": False,
    "agent_session": False,
    "read_tool": None,
    "call_keys": None,
    "result_keys": None,
    "record_kind": None,
    "is_message_record": None,
    "patch_reduced": None,
    "fix_appended": None,
    "append_refused": None,
}
""":class:`FormatSpec`'s optional fields and their defaults (``call_keys`` and
``result_keys``: a new empty dict each)."""

if TYPE_CHECKING:
    from typing import TypedDict, Unpack

    class _Declared(TypedDict, total=False):
        typed: TypedRecords | None
        roles: tuple[str, ...]
        streaming: Streaming | None
        can_append: bool
        agent_session: bool
        read_tool: str | None
        call_keys: Mapping[str, str]
        result_keys: Mapping[str, str]
        record_kind: Callable[[JsonObject], str] | None
        is_message_record: Callable[[JsonObject], bool] | None
        patch_reduced: Callable[[Transcript, Mapping[int, Mapping[str, str]]], bytes] | None
        fix_appended: Callable[[bytes, Transcript], bytes] | None
        append_refused: Callable[[Transcript], str | None] | None


class Format(Protocol):
    """One transcript format module."""

    name: str
    spec: FormatSpec

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        """True when the first parsed records look like this format."""
        ...

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        """Parse ``raw``; malformed input raises TranscriptError(path, line, field, message)."""
        ...

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        """Render the compacted history in this format."""
        ...
