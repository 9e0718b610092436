"""The summarization model protocol (SPEC §7)."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol, runtime_checkable

from compactor._json import JsonValue
from compactor.schema import AgenticMessage, Message

__all__ = ["KEPT_AFTER_SUMMARY", "ChatModel"]

KEPT_AFTER_SUMMARY: ContextVar[Sequence[Message | AgenticMessage]] = ContextVar(
    "kept_after_summary", default=()
)
"""The messages kept verbatim after the summary being asked for (a kept tail), set by the
pipeline around the request. The input a model gets is unchanged; a summarizer that models
where work stands (the embedded one) reads it from the whole session, so that it never says
"nothing is pending" above a kept call that never returned (issue 30, blind check 3)."""


@runtime_checkable
class ChatModel(Protocol):
    """Anything with ``async def generate(messages, **options) -> assistant message``.

    Implementations may raise :class:`compactor.ModelError` to classify a failure (rate limit,
    timeout, ...) so the default retry policy can tell transient errors from permanent ones.
    A ``name`` attribute, when present, is shown in events and reports. A true
    ``readonly_input`` attribute promises that ``generate`` never changes the messages it is
    given: the pipeline then hands it the history itself instead of a deep copy (the embedded
    summarizer does, so a 60 MB history is not copied for it). Without it, a model gets a copy.
    """

    async def generate(self, messages: list[Any], **options: JsonValue) -> object: ...
