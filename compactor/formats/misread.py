"""The misread guard: a chat file whose records mostly hold nothing the format reads.

A record of a chat format (openai, eino) with a ``role`` fits the format whatever its other keys
hold. A file of another shape — a Cursor transcript, ``{"role", "message": {"content": [...]}}``
per line, read as ``openai`` — is then read as messages with no text: ``check`` says "0 tokens,
ok", a summary is refused as not smaller, a reduction copies the file (blind check 51). Nothing
may be read as empty silently: when most records of a file hold no text, tool call or result the
format knows but do hold other keys, the file is refused at the first such record, naming the key
the text is probably under (the error of a file no format claims: exit 2).

A record is *silent* (:func:`silent_field`) when none of the keys a chat format reads a
conversation from holds anything and some other key (not the format's own metadata) does.
"""

from __future__ import annotations

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError

__all__ = ["SilentRecords", "silent_field"]

_SPOKEN = frozenset(
    {
        "content",
        "tool_calls",
        "tool_call_id",
        "tool_call_ids",
        "function_call",
        "reasoning_content",
        "refusal",
        "user_input_multi_content",
        "assistant_output_multi_content",
        "multi_content",
    }
)
"""Keys a chat format (openai, eino) reads the conversation from."""
_OWN = frozenset({"role", "name", "tool_name", "extra", "response_meta"})
"""Keys the chat formats read that hold no conversation (names, Eino's metadata)."""


def _holds(value: JsonValue) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def silent_field(rec: JsonObject) -> str | None:
    """The key ``rec`` holds something under when it holds nothing a chat format reads as a
    conversation (no content, tool call, result or reasoning); None when it is not silent."""
    other: str | None = None
    for key, value in rec.items():
        if key in _SPOKEN:
            if _holds(value):
                return None
        elif other is None and key not in _OWN and _holds(value):
            other = key
    return other


class SilentRecords:
    """Counts the silent records of one file as a reader meets them (:meth:`see`), and refuses
    the file when most of its messages are (:meth:`check`)."""

    __slots__ = ("field", "line", "silent")

    def __init__(self) -> None:
        self.silent = 0
        self.line = 0
        self.field = ""

    def see(self, number: int, rec: JsonObject) -> None:
        """Line ``number``'s record was read as a message with nothing in it."""
        field = silent_field(rec)
        if field is None:
            return
        if not self.silent:
            self.line, self.field = number, field
        self.silent += 1

    def check(self, path: str, format_name: str, messages: int) -> None:
        """Raise when more than half of the ``messages`` records were silent."""
        if self.silent and self.silent * 2 > messages:
            raise refusal(path, format_name, self.line, self.field, self.silent, messages)


def refusal(
    path: str, format_name: str, line: int, field: str, silent: int, messages: int
) -> TranscriptError:
    """The error for a file most of whose records a chat format would read as empty."""
    return TranscriptError(
        path,
        line,
        field,
        f"{silent} of {messages} records hold no text, tool call or result that {format_name} "
        f"reads, only other keys ({field!r} here): not read as {format_name}, which would count "
        "them as 0 tokens; this is a transcript format compact does not know (or pick the right "
        "one with --format)",
    )
