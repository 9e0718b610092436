"""The items of a Codex ``replacement_history`` written back as they were (:mod:`.codex`).

A message read from an earlier compaction's ``replacement_history`` has no record of its own to
copy: the writer rendered it afresh from the message, which loses what the message does not hold
(an assistant message's ``phase``, an item's ``id``, keys Codex adds later) and joins a context
message's parts (permissions + ``<collaboration_mode>``, AGENTS.md + ``<environment_context>``)
into one. Blind check 43 (a Codex 0.114 rollout with a remote compaction): reduce and hybrid
dropped ``phase`` from 27 assistant messages and merged two two-part context messages. The
reader keeps each such item under :data:`ITEM_KEY`; the writer puts it back as it was when the
message is kept unchanged, and over the item's own keys when it changed (a cleared result: its
``output`` only).
"""

from __future__ import annotations

from collections.abc import Callable

from compactor._json import JsonObject
from compactor.schema import AgenticMessage, Message

__all__ = ["ITEM_KEY", "keep_item", "written"]

ITEM_KEY = "_compactor_codex_item"
"""``Message.extra`` key: the ``replacement_history`` item the message was read from."""


def keep_item(msg: Message, item: JsonObject) -> None:
    """Remember the ``replacement_history`` ``item`` ``msg`` was read from."""
    msg.extra[ITEM_KEY] = item


def written(
    msg: Message | AgenticMessage,
    unchanged: bool,
    render: Callable[[Message | AgenticMessage], list[JsonObject]],
) -> list[JsonObject]:
    """The items to write for ``msg``: its own item when it is ``unchanged``; when it changed,
    the rendered item over its own keys (same type and role); else the rendered items."""
    item = msg.extra.get(ITEM_KEY) if msg.extra else None
    if not isinstance(item, dict):
        return render(msg)
    if unchanged:
        return [item]
    items = render(msg)
    if len(items) != 1:
        return items
    new = items[0]
    if new.get("type") != item.get("type") or new.get("role") != item.get("role"):
        return items
    return [{**item, **new}]
