"""Section 6 of every summary lists a prompt still queued when the session ended (blind check
39, cc-admin): the user's latest words, typed while the agent worked and never delivered
(:data:`~compactor.schema.STILL_QUEUED_KEY`, set by the Claude Code reader). The finalizer
lists the user's messages from the summarized part; such a message has no record of its own,
so when it falls in the tail kept verbatim after the summary no written message holds it: it
is listed from the kept tail too, and always with :data:`~compactor.schema.STILL_QUEUED_NOTE`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain
from typing import TypeVar

from compactor.schema import STILL_QUEUED_KEY, STILL_QUEUED_NOTE, AgenticMessage, Message

__all__ = ["queued_note", "with_kept_queued"]

M = TypeVar("M", Message, AgenticMessage)


def with_kept_queued(context: Sequence[M]) -> Iterable[M]:
    """``context``, then the still-queued messages of the kept tail (none: ``context``)."""
    from compactor.models.base import KEPT_AFTER_SUMMARY

    kept = [m for m in KEPT_AFTER_SUMMARY.get() if m.extra and STILL_QUEUED_KEY in m.extra]
    return chain(context, kept) if kept else context  # type: ignore[arg-type]


def queued_note(msg: Message | AgenticMessage) -> str:
    """`` (typed while the agent worked; still queued, …)`` for a still-queued message."""
    return f" ({STILL_QUEUED_NOTE})" if msg.extra and STILL_QUEUED_KEY in msg.extra else ""
