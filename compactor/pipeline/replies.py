"""What a model's reply or error says: a context-length refusal and the window and count it
names, a reply too long or too weak to be a summary, an embedded stand-in model.

Used by the summarizer (:mod:`compactor.pipeline.summarize`, :mod:`compactor.pipeline.ladder`) and
by ``check --explain``; no model is called here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from compactor.counting.config import Config
from compactor.counting.tokens import estimate_message, estimate_text
from compactor.errors import ErrorKind, ModelError
from compactor.schema import AgenticMessage, M, Message, assistant_text

from .chunking import input_tokens

__all__ = [
    "context_limit_error",
    "error_of_kind",
    "is_embedded",
    "oversized_reply",
    "reply_limit",
    "reported_limit",
    "reported_prompt_tokens",
    "weak_reply",
]


def context_limit_error(error: BaseException | None) -> ModelError | None:
    """The provider's context-length error in ``error``'s cause chain, if there is one."""
    return error_of_kind(error, ErrorKind.CONTEXT_LENGTH)


def error_of_kind(error: BaseException | None, kind: ErrorKind) -> ModelError | None:
    """The first :class:`ModelError` of ``kind`` in ``error``'s cause chain, if there is one."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModelError) and error.kind == kind:
            return error
        error = error.__cause__ or error.__context__
    return None


def reported_limit(error: ModelError) -> int | None:
    """The window size a context-length error names: its typed ``window``, which the model's
    error mapping reads from what the provider said (its wording is the provider's business,
    :mod:`compactor.models`)."""
    return error.window or None


def reported_prompt_tokens(error: ModelError) -> int | None:
    """The provider's own count of the refused input, when the error gives it (its typed
    ``prompt_tokens``, read by the model's error mapping)."""
    return error.prompt_tokens or None


def oversized_reply(
    config: Config[M],
    reply: object,
    model_input: Sequence[Message | AgenticMessage],
    model: str,
    *,
    last_rung: bool = False,
    replaced: int | None = None,
    input_size: Callable[[], int] | None = None,
) -> ModelError | None:
    """The error for a reply too long to be a summary of ``model_input``, else None.

    Too long: estimated above ``config.max_summary_tokens``, or above the whole input (the
    instructions included) and ``config.reply_reserve_tokens`` both. A model that rambles
    may not on the next try: the error is transient, so it is retried and failed over.
    ``last_rung`` (the fallback model: compact's own deterministic summarizer, whose nine
    section headings can outweigh a small chunk) is held to ``max_summary_tokens`` only.
    ``replaced``: the estimated tokens of what the reply replaces (a chunk's messages and the
    summary before them), a limit too: a summary never has to be longer than that.
    """
    if not isinstance(reply, Message | AgenticMessage):
        return None
    tokens = estimate_message(reply)
    limit, what = reply_limit(
        config, model_input, last_rung=last_rung, replaced=replaced, input_size=input_size
    )
    if tokens <= limit:
        return None
    return ModelError(
        f"reply too long to be a summary: about {tokens:,} tokens, more than {what} "
        f"({limit:,} tokens)",
        kind=ErrorKind.TOO_LONG,
        transient=True,
        model=model,
    )


def reply_limit(
    config: Config[M],
    model_input: Sequence[Message | AgenticMessage],
    *,
    last_rung: bool = False,
    replaced: int | None = None,
    input_size: Callable[[], int] | None = None,
) -> tuple[float, str]:
    """(the most estimated tokens a reply to ``model_input`` may have, what sets it): its
    whole input or ``config.reply_reserve_tokens``, whichever is larger, at most ``replaced``
    (what a chunk's reply replaces) and at most ``config.max_summary_tokens`` (only that for
    the ``last_rung``). ``input_size``: gives ``model_input``'s :func:`input_tokens` (a caller
    that needs the count again counts the messages once)."""
    size = input_tokens(model_input) if input_size is None else input_size()
    limit: float = max(size, config.reply_reserve_tokens)
    if last_rung:
        limit = math.inf
    what = "its whole input"
    if replaced is not None and not last_rung and replaced < limit:
        limit, what = replaced, "the part of the conversation it replaces"
    if config.max_summary_tokens is not None and config.max_summary_tokens < limit:
        limit, what = config.max_summary_tokens, "max_summary_tokens"
    return limit, what


def weak_reply(config: Config[M], reply: object, model: str) -> ModelError | None:
    """The error for a reply below ``config.summary_check`` (too short, or no ``<summary>``
    block when sections are required), else None. Another try may do better: transient."""
    check = config.summary_check
    if check is None or not isinstance(reply, Message | AgenticMessage):
        return None
    text = assistant_text(reply)
    tokens = estimate_text(text)
    if tokens < check.min_tokens:
        return ModelError(
            f"reply too short to be a summary: about {tokens:,} tokens, fewer than "
            f"summary_check.min_tokens ({check.min_tokens:,})",
            kind=ErrorKind.WEAK_SUMMARY,
            transient=True,
            model=model,
        )
    if check.require_sections and "<summary>" not in text.lower():
        return ModelError(
            "reply is not a summary: no <summary> block (summary_check.require_sections)",
            kind=ErrorKind.WEAK_SUMMARY,
            transient=True,
            model=model,
        )
    return None


def is_embedded(model: object) -> bool:
    """Whether ``model`` is an embedded stand-in (``embedded = True``, the local summarizer):
    a summary it writes after the configured models failed is degraded."""
    return getattr(model, "embedded", False) is True
