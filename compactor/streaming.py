"""Bounded-memory ``compact check`` for line-per-message transcripts (openai, eino).

:func:`stream_check` reads a file line by line and keeps only running totals: the message count,
the default counter's tokens (the newest assistant with ``usage.total_tokens > 0`` resets the sum
to its total, later messages add their estimate) and the tool call/result ids for ``--json``. The
result equals the full read + :func:`compactor.trigger.decide` with
:func:`compactor.tokens.default_token_counter`, including which malformed line is reported.

Other formats, other counters and stdin return None: the caller does the full read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from .config import TriggerCondition
from .errors import TranscriptError
from .formats import _jsonl
from .formats._family import fits, mismatch
from .formats.eino import _message as eino_message
from .formats.openai_chat import message_from_record
from .formats.registry import SNIFF_RECORDS, detect_format
from .schema import AgenticMessage, Message
from .tokens import estimate_message
from .trigger import TriggerDecision, decide

__all__ = ["STREAM_FORMATS", "StreamResult", "stream_check"]

_Reader = Callable[[str, int, dict[str, Any]], Message]
STREAM_FORMATS: dict[str, _Reader] = {"openai": message_from_record, "eino": eino_message}
"""Formats :func:`stream_check` handles, with their per-record reader."""

_EMPTY_BYTES = _jsonl.BOM + b" \t\r\n"


@dataclass(frozen=True, slots=True)
class StreamResult:
    """What ``check`` prints for one transcript."""

    format: str
    decision: TriggerDecision
    tool_calls: int
    tool_results: int


class _Length(Sequence[Message | AgenticMessage]):
    """A history of known length only: lets :func:`decide` run on the counts."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Message | AgenticMessage: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message | AgenticMessage]: ...
    def __getitem__(self, index: int | slice) -> Any:
        raise TypeError("a streamed history has no messages")

    def __iter__(self) -> Iterator[Message | AgenticMessage]:
        raise TypeError("a streamed history has no messages")


def _split_lines(fh: Any, block_size: int = 1 << 20) -> Iterator[bytes]:
    """The lines of ``fh`` without their ``\\n``, as ``raw.split(b"\\n")`` gives them."""
    pending: list[bytes] = []
    while True:
        block = fh.read(block_size)
        if not block:
            break
        parts = block.split(b"\n")
        if len(parts) == 1:
            pending.append(block)
            continue
        if pending:
            pending.append(parts[0])
            parts[0] = b"".join(pending)
            pending = []
        last = parts.pop()
        yield from parts
        if last:
            pending.append(last)
    yield b"".join(pending)


def stream_check(
    path: str, trigger: TriggerCondition | None, format: str | None = None
) -> StreamResult | None:
    """Check ``path`` with the default counter in O(1) memory, or None when it cannot stream."""
    if path == "-" or (format is not None and format not in STREAM_FORMATS):
        return None
    try:
        fh = open(path, "rb")
    except OSError:
        return None  # the full read reports it
    with fh:
        chunks = _split_lines(fh)
        head_lines: list[bytes] = []
        more = False
        for chunk in chunks:
            if len(head_lines) == SNIFF_RECORDS:
                more = True
                head_lines.append(chunk)
                break
            head_lines.append(chunk)
        sniffed = head_lines[:SNIFF_RECORDS]
        head = b"\n".join(sniffed) + (b"\n" if more else b"")
        if format is None:
            name = detect_format(path, head)
            if name not in STREAM_FORMATS:
                return None
        else:
            name = format
        reader = STREAM_FORMATS[name]

        n = 0
        tokens = 0
        nonempty = False
        calls: set[str] = set()
        n_calls = 0
        results: list[str] = []
        record_error: TranscriptError | None = None
        fit_error: TranscriptError | None = None

        def lines() -> Iterator[bytes]:
            yield from head_lines
            yield from chunks

        for number, chunk in enumerate(lines(), start=1):
            if number == 1 and chunk.startswith(_jsonl.BOM):
                chunk = chunk[len(_jsonl.BOM) :]
            if not nonempty and chunk.strip(_EMPTY_BYTES):
                nonempty = True
            line = _jsonl.parse_line(path, number, chunk)
            if line is None:
                continue
            if fit_error is None and not fits(name, line.obj):
                fit_error = mismatch(path, number, name, line.obj)
            if record_error is not None or fit_error is not None:
                continue  # after a bad record only JSON or fit errors can still come first
            try:
                msg = reader(path, number, line.obj)
            except TranscriptError as err:
                record_error = err
                continue
            n += 1
            usage = msg.usage
            if msg.role == "assistant" and usage is not None and usage.total_tokens > 0:
                tokens = usage.total_tokens
            else:
                tokens += estimate_message(msg)
            for call in msg.tool_calls:
                calls.add(call.id)
                n_calls += 1
            if msg.role == "tool" and msg.tool_call_id is not None:
                results.append(msg.tool_call_id)

    if format is not None and not nonempty:
        raise TranscriptError(path, None, None, "empty transcript")
    if fit_error is not None:
        raise fit_error  # the full read checks every record's format before its fields
    if record_error is not None:
        raise record_error

    total = tokens

    def counter(_inp: Any) -> int:
        return total

    decision = asyncio.run(decide(_Length(n), [], trigger, counter, always_count=True))
    paired = sum(1 for call_id in results if call_id in calls)
    return StreamResult(name, decision, n_calls, paired)
