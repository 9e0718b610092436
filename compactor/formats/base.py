"""The contract every transcript format module fulfils.

A format turns the bytes of a JSONL file into a :class:`Transcript` (model-visible messages plus
everything needed to write the file back) and renders a compacted history in the same format.
Records that are not messages are kept; unknown fields survive a round trip.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from compactor.errors import ConfigError
from compactor.schema import AgenticMessage, Message, ToolInfo

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = [
    "SOURCE_DATE_EPOCH",
    "CompactionInfo",
    "Format",
    "Transcript",
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
    records: list[Any] = field(default_factory=list)
    """Parsed records (format-specific), in file order."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Format-specific facts the writer needs (record ↔ message mapping, ids, ...)."""

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


class Format(Protocol):
    """One transcript format module."""

    name: str

    def sniff(self, records: Sequence[Any]) -> bool:
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
