"""The summarization model protocol (SPEC §7)."""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable

from compactor._util import mask_url_credentials

__all__ = ["OPENAI_BASE_URL", "ChatModel", "openai_endpoint"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Where an OpenAI-compatible model sends requests when neither ``base_url`` nor
``$OPENAI_BASE_URL`` is set."""


def openai_endpoint(base_url: str | None) -> str:
    """The endpoint an OpenAI-compatible model with ``base_url`` calls (else
    ``$OPENAI_BASE_URL``, else OpenAI's), credentials masked: the summary cache's key uses it,
    and ``check --explain`` finds the same cache entries as the run without building a client."""
    chosen = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    return mask_url_credentials(chosen.rstrip("/"))


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

    async def generate(self, messages: list[Any], **options: Any) -> Any: ...
