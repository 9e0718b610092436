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
"""

from __future__ import annotations

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message

__all__ = ["KEPT_KEY", "KEPT_TYPES", "around", "hang", "lead_on"]

KEPT_KEY = "codex_kept_items"
"""``Message.extra`` key: ``{"before": [items], "after": [items]}``."""

KEPT_TYPES = frozenset({"compaction"})
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
