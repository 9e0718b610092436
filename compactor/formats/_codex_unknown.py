"""Record and item types of a newer Codex: kept verbatim and reported, not refused (blind check
56 F1; :mod:`.codex`).

Codex adds record and response item types with nearly every release (``token_usage_record``
and ``world_state`` in 0.171, ``tool_search_call`` in Desktop 0.142.5, the multi-agent records
of Desktop 0.144.2); each time, compact refused every session holding one (exit 2, "compact
reads no record it does not know") until it learnt the type. A type it does not know is now
read by its shape (as Claude Code's unknown metadata is, row 301):

* a top-level record of another ``type`` with a ``payload`` object (and no ``role``,
  ``message`` or ``content``: nothing of a message) holds no message: the reader skips it,
  ``--append`` keeps the file as it is, a rewritten file keeps it verbatim with the session
  metadata (:func:`kept`);
* a ``response_item`` of another payload ``type`` (a string) travels, verbatim, with the next
  message, as ``reasoning`` does (kept in a ``replacement_history`` or a kept tail).

Each unknown type is one warning naming it, its first line and how many (:func:`unknown`). Still
refused: a record whose ``type`` is missing or not a string and holds a message key, a
``response_item`` without a payload ``type``, a malformed known record (the reader's own
checks), and a file whose unknown response items outnumber the messages it knows (a newer Codex
that renamed its message items would be read as nearly empty: :func:`check_share`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from compactor._json import JsonObject

from ._family import is_untyped_metadata, unknown_record
from ._jsonl import Line
from ._unknown_types import Found, refuse_outnumbered, tally

__all__ = ["check_share", "kept", "problem", "unknown"]

_MESSAGE_KEYS = ("role", "message", "content")


def _new_record(rec: JsonObject, kind: object, known: Collection[str]) -> bool:
    """A top-level record of a type no Codex this reader knows writes, shaped as Codex writes
    its records (a ``payload`` object) and holding nothing of a message."""
    return (
        isinstance(kind, str)
        and bool(kind)
        and kind not in known
        and isinstance(rec.get("payload"), dict)
        and not any(k in rec for k in _MESSAGE_KEYS)
    )


def _new_item(rec: JsonObject, items: Collection[str]) -> str | None:
    """The payload type of a ``response_item`` of a type the reader does not know, else None."""
    payload = rec.get("payload")
    if rec.get("type") != "response_item" or not isinstance(payload, dict):
        return None
    item = payload.get("type")
    return item if isinstance(item, str) and item and item not in items else None


def problem(
    rec: JsonObject,
    kind: str | None,
    owned: bool,
    known: Collection[str],
    items: Collection[str],
) -> tuple[str | None, str] | None:
    """Why ``rec`` cannot be a Codex record (``(field, message)``), or None."""
    if owned:
        item = rec["payload"].get("type")
        if kind == "response_item" and not (isinstance(item, str) and item):
            return "payload.type", unknown_record("codex response item", item)
        return None
    if kind in known or (kind is None and is_untyped_metadata(rec)):
        return None  # the reader reports the payload that is not an object; metadata is kept
    if _new_record(rec, kind, known):
        return None
    return "type", unknown_record("codex record type", kind)


def unknown(lines: Sequence[Line], known: Collection[str], items: Collection[str]) -> list[Found]:
    """``(type, first line, count)`` of each unknown record type (``response_item/X`` for an
    item type) kept verbatim."""
    return tally(
        (name, ln.number)
        for ln in lines
        if isinstance(name := _unknown_name(ln.obj, known, items), str)
    )


def _unknown_name(rec: JsonObject, known: Collection[str], items: Collection[str]) -> object:
    kind = rec.get("type")
    item = _new_item(rec, items)
    return f"response_item/{item}" if item else kind if _new_record(rec, kind, known) else None


def check_share(path: str, found: list[Found], messages: int) -> None:
    """Refuse a file whose unknown response items outnumber the ``messages`` it knows."""
    items = [x for x in found if x[0].startswith("response_item/")]
    refuse_outnumbered(path, items, messages, "payload.type", _outnumbered)


def _outnumbered(name: str, total: int, _types: list[str], messages: int) -> str:
    item = name.removeprefix("response_item/")
    return (
        f"{unknown_record('codex response item', item)}: {total} items of types it does "
        f"not know, more than the {messages} messages it does (a newer Codex's messages?)"
    )


def kept(lines: Sequence[Line], known: Collection[str]) -> list[Line]:
    """The top-level records of unknown types, as written, in order."""
    return [ln for ln in lines if _new_record(ln.obj, ln.obj.get("type"), known)]
