"""How Codex counts the encrypted reasoning items of a history it resumes (:mod:`.codex`).

Before it samples, Codex compares ``get_total_token_usage`` with its auto-compact limit
(``codex-rs/core/src/context_manager/history.rs``): the last ``token_count``'s
``last_token_usage.total_tokens``, plus, until a response tells it the server counted them
(``server_reasoning_included``, never so right after a resume), its estimate of every encrypted
``reasoning`` item before the last user turn (``get_non_last_reasoning_items_tokens``:
``estimate_reasoning_length`` = base64 length × 3/4 − 650 bytes, then 4 bytes a token, rounded
up), plus the items after the last model output.

Blind check 13 (vo-inflight, Codex 0.77 rollout resumed by Codex 0.171): the reduced history
holds 159 encrypted reasoning items, ~30,600 tokens by that estimate, which compact counted as
nothing (they are not messages; they travel with the next one). Codex counted 94,865 + 30,575 and
compacted at once under a limit of 119,573. The reader now gives each message the estimate of
the encrypted items that travel with it (:data:`~compactor.counting.tokens.OPAQUE_TOKENS_KEY`,
counted by every estimate) and adds the reasoning before the last user turn to a ``token_count``
baseline, as Codex does; the writer writes ``last_token_usage`` without it (Codex adds it back).
Measured there too: the texts' o200k count is within 4 % of UTF-8 bytes / 4 (Japanese-heavy
texts: 2,399 o200k tokens against 2,212), which is also Codex's own estimate of text.
"""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from compactor._json import JsonObject, JsonValue
from compactor.counting.tokens import OPAQUE_TOKENS_KEY
from compactor.schema import Message

from ._codex_context import CONTEXTUAL_PREFIXES

__all__ = [
    "CARRIED_ITEMS",
    "OpaqueTokens",
    "reasoning_before_last_user",
    "reasoning_tokens",
    "user_turn",
]

CARRIED_ITEMS = frozenset({"tool_search_call", "tool_search_output", "image_generation_call"})
"""Model-visible response items of a current Codex (``ResponseItem`` in
``codex-rs/protocol/src/models.rs``) that are not messages and travel, verbatim, with the next
one: the client-side tool search (``tool_search_call``, whose ``arguments`` hold the query, and
its ``tool_search_output``, whose ``tools`` are the schemas it loaded: the model calls them
later, so a kept history keeps the pair whole) and ``image_generation_call`` (blind check 23,
Codex Desktop 0.142.5: a rollout holding the pair was refused). Unlike the encrypted reasoning,
the ``token_count`` after them already holds them: their estimate (UTF-8 bytes / 4) goes on the
message they travel with, never into :attr:`OpaqueTokens.before_user`."""


def reasoning_tokens(item: JsonObject) -> int:
    """Codex's estimate of one encrypted ``reasoning`` item; 0 for any other item."""
    if item.get("type") != "reasoning":
        return 0
    encrypted = item.get("encrypted_content")
    if not isinstance(encrypted, str) or not encrypted:
        return 0
    return (max(0, len(encrypted) * 3 // 4 - 650) + 3) // 4


def user_turn(item: JsonObject) -> bool:
    """A user message that starts a turn for Codex (``is_user_turn_boundary``: not contextual)."""
    if item.get("type") != "message" or item.get("role") != "user":
        return False
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    texts = [str(p.get("text") or "") for p in parts if isinstance(p, dict)]
    prefixes = tuple(p.lower() for p in CONTEXTUAL_PREFIXES)
    return not any(t.lstrip()[:64].lower().startswith(prefixes) for t in texts)


def reasoning_before_last_user(items: Iterable[JsonObject]) -> int:
    """What Codex adds to the last ``token_count`` for ``items`` (a resumed history): its
    estimate of the encrypted reasoning items before the last user turn."""
    total = before = 0
    for item in items:
        if user_turn(item):
            before = total
        total += reasoning_tokens(item)
    return before


class OpaqueTokens:
    """The estimate while a rollout is read: each encrypted reasoning item is carried to the
    next message (:data:`~compactor.counting.tokens.OPAQUE_TOKENS_KEY`), and
    :attr:`before_user` is what Codex would add to a ``token_count`` read at this point."""

    def __init__(self) -> None:
        self.pending = 0
        self.visible = 0  # the CARRIED_ITEMS carried so far
        self.total = 0
        self.before_user = 0

    def carry(self, item: JsonValue) -> None:
        """A response item that is not a message (it travels with the next one)."""
        if isinstance(item, dict):
            self.pending += reasoning_tokens(item)
            if item.get("type") in CARRIED_ITEMS:
                self.visible += (len(orjson.dumps(item)) + 3) // 4

    def attach(self, msg: Message, item: JsonObject) -> None:
        """``msg`` (read from ``item``) takes the reasoning carried so far."""
        if self.pending or self.visible:
            found = msg.extra.get(OPAQUE_TOKENS_KEY)
            carried = self.pending + self.visible
            msg.extra[OPAQUE_TOKENS_KEY] = (found if isinstance(found, int) else 0) + carried
            self.total += self.pending
            self.pending = self.visible = 0
        if user_turn(item):
            self.before_user = self.total
