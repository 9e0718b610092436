"""The summarization model protocol (SPEC §7)."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol, runtime_checkable

from compactor._json import JsonValue
from compactor.counting.tokens import estimate_message
from compactor.schema import AgenticMessage, Message

__all__ = ["INPUT_TOKENS", "KEPT_AFTER_SUMMARY", "ChatModel", "estimated_input"]

KEPT_AFTER_SUMMARY: ContextVar[Sequence[Message | AgenticMessage]] = ContextVar(
    "kept_after_summary", default=()
)
"""The messages kept verbatim after the summary being asked for (a kept tail), set by the
pipeline around the request. The input a model gets is unchanged; a summarizer that models
where work stands (the embedded one) reads it from the whole session, so that it never says
"nothing is pending" above a kept call that never returned (issue 30, blind check 3)."""

INPUT_TOKENS: ContextVar[tuple[Sequence[Message | AgenticMessage], int] | None] = ContextVar(
    "input_tokens", default=None
)
"""(the input a model is handed, the sum of its messages' :func:`estimate_message`), set by the
pipeline around the call of a model handed the very list it counted (``readonly_input``): the
pipeline counts every model input for its reply checks, and the embedded summarizer, which
counts its input too, reads the count instead of walking a million messages again."""


def estimated_input(
    messages: Sequence[Message | AgenticMessage],
    context: Sequence[Message | AgenticMessage],
    start: int,
    end: int,
) -> tuple[int, int]:
    """(the estimated tokens of ``context`` = ``messages[start:end]``, of all ``messages``):
    :data:`INPUT_TOKENS` minus the messages around the context when it holds ``messages``."""
    outer = sum(estimate_message(m) for m in (*messages[:start], *messages[end:]))
    counted = INPUT_TOKENS.get()
    if counted is not None and counted[0] is messages:
        return counted[1] - outer, counted[1]
    inner = sum(map(estimate_message, context))  # each counted once, for both uses
    return inner, inner + outer


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
