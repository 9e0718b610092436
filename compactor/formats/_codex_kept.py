"""Non-message items of a Codex ``replacement_history`` that Codex keeps (:mod:`.codex`).

A Codex remote compaction (``codex-rs/core/src/compact_remote.rs``) replaces the history with
what the server returns: the user messages and an encrypted ``compaction`` item, the server's
summary of everything before it, which Codex keeps in every later history
(``should_keep_compacted_history_item``: ``ResponseItem::Compaction`` → kept) and sends to the
model. Blind check 15 (kn-commit, Codex 0.77): reduce and hybrid rewrote the
``replacement_history`` without it, so a resumed Codex lost the summary of the first 1,218
records. The reader hangs each such item on the history message before it (on the next one when
none precedes it) under :data:`KEPT_KEY`; the writer puts it back beside that message wherever
the message is written.

Codex 0.64 names the same item ``compaction_summary`` (``ResponseItem::Compaction`` reads it under
that alias) and keeps every ``ghost_snapshot`` of the old history after the new one ("Required to
keep /undo available after compaction", ``compact_remote.rs``). Blind check 24 (cx-brainbuddy):
every output dropped the ``compaction_summary`` and four of five snapshots, so a resumed Codex lost
what its own compaction had kept. Both are kept like ``compaction``; :func:`carry_dropped` puts
back those of the messages a summary replaced (or the writer left out): the compaction items just
before the summary, the snapshots at the end of the history, as Codex does.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message

__all__ = ["COMPACTIONS", "KEPT_KEY", "KEPT_TYPES", "around", "carry_dropped", "hang", "lead_on"]

KEPT_KEY = "codex_kept_items"
"""``Message.extra`` key: ``{"before": [items], "after": [items]}``."""

COMPACTIONS = frozenset({"compaction", "compaction_summary"})
"""The server's encrypted summary of a history (the second name: Codex 0.64); opaque to us."""

KEPT_TYPES = COMPACTIONS | {"ghost_snapshot"}
"""Non-message item types Codex keeps in a compacted history."""


def hang(messages: list[Message], item: JsonValue, lead: list[JsonObject]) -> bool:
    """Hang a kept ``item`` of a ``replacement_history`` on the last message read from it
    (``messages``); with none yet, it waits in ``lead`` for the next one (:func:`lead_on`).
    False when the item is not one Codex keeps."""
    if not isinstance(item, dict) or item.get("type") not in KEPT_TYPES:
        return False
    if messages:
        _slot(messages[-1], "after").append(item)
    else:
        lead.append(item)
    return True


def lead_on(msg: Message, lead: list[JsonObject]) -> None:
    """Items that came before any message go before ``msg`` (the first one)."""
    if lead:
        _slot(msg, "before").extend(lead)
        lead.clear()


def _slot(msg: Message, where: str) -> list[JsonObject]:
    kept = msg.extra.setdefault(KEPT_KEY, {"before": [], "after": []})
    assert isinstance(kept, dict)
    items = kept.setdefault(where, [])
    assert isinstance(items, list)
    return items


def around(msg: Message | AgenticMessage | None, items: list[JsonObject]) -> list[JsonObject]:
    """``items`` (a message rendered) with the kept items ``msg`` carries before and after."""
    kept = msg.extra.get(KEPT_KEY) if msg is not None else None
    if not isinstance(kept, dict):
        return items
    before, after = kept.get("before"), kept.get("after")
    head = [i for i in before if isinstance(i, dict)] if isinstance(before, list) else []
    tail = [i for i in after if isinstance(i, dict)] if isinstance(after, list) else []
    return [*head, *items, *tail]


def carry_dropped(
    history: list[JsonObject],
    tail: Sequence[JsonObject],
    read: Sequence[Message | AgenticMessage],
    records: Sequence[Sequence[JsonValue]],
    at: int,
) -> list[JsonObject]:
    """``history`` with each kept item of the messages as ``read`` (hung on them, or among their
    own records, ``records``) that neither it nor the ``tail`` holds: compaction items at index
    ``at`` (before the summary), snapshots at the end; each once, in the order read."""
    present: set[bytes] | None = None
    lost: list[JsonObject] = []
    snapshots: list[JsonObject] = []
    for msg, own in zip(read, records, strict=True):
        mine = [i for i in own if isinstance(i, dict) and i.get("type") in KEPT_TYPES]
        for item in around(msg, mine) if msg.extra or mine else ():
            if item.get("type") not in KEPT_TYPES:
                continue
            if present is None:
                present = {_key(i) for i in (*history, *tail) if i.get("type") in KEPT_TYPES}
            key = _key(item)
            if key not in present:
                present.add(key)
                (snapshots if item.get("type") == "ghost_snapshot" else lost).append(item)
    if not lost and not snapshots:
        return history
    return [*history[:at], *lost, *history[at:], *snapshots]


def _key(item: JsonObject) -> bytes:
    return orjson.dumps(item, option=orjson.OPT_SORT_KEYS)
