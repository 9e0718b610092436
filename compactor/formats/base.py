"""The contract every transcript format module fulfils.

A format turns the bytes of a JSONL file into a :class:`Transcript` (model-visible messages plus
everything needed to write the file back) and renders a compacted history in the same format.
Records that are not messages are kept; unknown fields survive a round trip.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from compactor.schema import AgenticMessage, Message, ToolInfo

__all__ = ["CompactionInfo", "Format", "Transcript", "WriteMode"]

WriteMode = Literal["shrink", "append"]


@dataclass(slots=True)
class Transcript:
    """A transcript read from a file."""

    format: str
    """Format name (``openai``, ``eino``, ``claude-code``, ``codex``, ``anthropic``)."""
    path: str
    """Where it was read from (``-`` for stdin)."""
    raw: bytes
    """The original bytes, so a pass-through is byte-identical."""
    messages: list[Message] | list[AgenticMessage]
    """The model-visible history, oldest first."""
    tools: list[ToolInfo] = field(default_factory=list)
    """Tool definitions when the format records them."""
    records: list[Any] = field(default_factory=list)
    """Parsed records (format-specific), in file order."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Format-specific facts the writer needs (record ↔ message mapping, ids, ...)."""


@dataclass(slots=True)
class CompactionInfo:
    """Facts about a compaction the writer may record (Claude Code's compactMetadata, ...)."""

    tokens_before: int | None = None
    tokens_after: int | None = None
    trigger: Literal["auto", "manual"] = "auto"
    timestamp: str | None = None
    """ISO-8601 UTC; None = the newest time recorded in the input (never the wall clock, so
    the same input gives the same bytes)."""


class Format(Protocol):
    """One transcript format module."""

    name: str

    def sniff(self, records: Sequence[Any]) -> bool:
        """True when the first parsed records look like this format."""
        ...

    def read(self, path: str, raw: bytes) -> Transcript:
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
