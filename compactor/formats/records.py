"""What shrink mode keeps of a file, by record kind (the report's ``dropped_records``).

Shrink mode writes the compacted history and, per format, some records that are not messages:

* openai, eino, anthropic: every record is a message; nothing else exists to drop.
* claude-code: the latest ``permission-mode``, ``mode``, ``ai-title``, ``custom-title`` and
  ``tag`` records are kept; ``attachment``, ``progress``, ``file-history-snapshot``,
  ``system`` records (turn durations, hook summaries, the old boundary), ``last-prompt``,
  ``queue-operation`` and the records before an earlier compaction are dropped.
* codex: ``session_meta`` and the latest ``turn_context`` are kept, plus the kept tail's own
  records (with the ``reasoning`` items that travel with its messages); ``event_msg`` records
  and the other items are dropped.

:func:`dropped_records` counts, by kind, every input record that is not in the output (verbatim,
by its ``uuid``, or as the record of a message that was kept) and is not a message record that
went into the summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import orjson

from compactor._json import JsonObject
from compactor.schema import AgenticMessage, Message

from ._jsonl import match_messages
from .base import FormatSpec, OneLineEach, Transcript

__all__ = ["dropped_records", "kind_by_type", "record_kind"]


def record_kind(format_name: str, rec: JsonObject) -> str:
    """A short name for the kind of ``rec``: ``progress``, ``system/turn_duration``,
    ``event_msg/token_count``, ``response_item/reasoning``, or ``message`` for chat formats
    (the format's :attr:`~compactor.formats.base.FormatSpec.record_kind`)."""
    kind = _spec(format_name).record_kind
    return "message" if kind is None else kind(rec)


def kind_by_type(untyped: str) -> Callable[[JsonObject], str]:
    """A :attr:`~compactor.formats.base.FormatSpec.record_kind` for a format whose records
    name their kind in a string ``type`` (copilot, opencode-hooks): that string, else
    ``untyped``."""

    def kind(rec: JsonObject) -> str:
        found = rec.get("type")
        return found if isinstance(found, str) else untyped

    return kind


def _every_record(rec: JsonObject) -> bool:
    return True


def _spec(format_name: str) -> FormatSpec:
    from .registry import get_format

    return get_format(format_name).spec


def dropped_records(
    t: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    out: bytes,
    mode: str,
) -> dict[str, int]:
    """Kind → count of ``t``'s records that ``out`` does not contain and that are not message
    records summarized away (``append`` keeps the whole file: nothing is dropped)."""
    lines = t.meta.lines
    if mode == "append" or not lines:
        return {}
    spec = _spec(t.format)
    every = spec.is_message_record is None
    is_message = spec.is_message_record or _every_record
    kept_messages = {j for j in match_messages(t, new_messages) if j is not None}
    # one byte per line, not sets of 20,000 ints: this runs at a big run's peak of memory
    size = len(lines)
    summarized = bytearray(size)
    carried = bytearray(size)
    origins = t.meta.origin
    if every and isinstance(origins, OneLineEach):  # message i is line i: no walk of them all
        count = len(origins)
        summarized[:count] = b"\x01" * count
        for index in kept_messages:
            if index < count:
                carried[index], summarized[index] = 1, 0
    else:
        for index, origin in enumerate(origins):
            for i in origin:
                if index in kept_messages:
                    carried[i] = 1  # kept, maybe re-rendered (a codex replacement_history item)
                elif every or is_message(lines[i].obj):  # (a record read again only if asked)
                    summarized[i] = 1
    if t.meta.json_document is not None:  # one JSON array: compare its elements as lines
        from .json_document import lines_of

        out = lines_of(out)
    texts: set[bytes] = set()
    uuids: set[str] = set()
    for chunk in out.split(b"\n"):
        text = chunk.rstrip(b"\r").removeprefix(b"\xef\xbb\xbf")
        if not text.strip():
            continue
        texts.add(text)
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("uuid"), str):
            uuids.add(obj["uuid"])
    start = t.meta.start
    dropped: Counter[str] = Counter()
    # the lines neither summarized nor carried: a zero byte of their OR (done in C)
    either = int.from_bytes(summarized, "little") | int.from_bytes(carried, "little")
    done = either.to_bytes(size, "little")
    following = done.find(0)
    while following >= 0:
        i, following = following, done.find(0, following + 1)
        ln = lines[i]
        if ln.text in texts:
            continue
        uid = ln.obj.get("uuid")
        if isinstance(uid, str) and uid in uuids:
            continue
        kind = "message" if spec.record_kind is None else spec.record_kind(ln.obj)
        if i < start and is_message(ln.obj):
            kind += " (before the earlier compaction)"
        dropped[kind] += 1
    return dict(sorted(dropped.items()))
