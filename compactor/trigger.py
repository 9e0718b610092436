"""The trigger decision (SPEC §3), shared by the middleware and ``compact check``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._util import maybe_await
from .config import DEFAULT_CONTEXT_TOKENS, TriggerCondition
from .errors import SummarizationError
from .schema import AgenticMessage, Message, ToolInfo
from .tokens import TokenCounter, TokenCounterInput, default_token_counter

__all__ = ["TriggerDecision", "decide", "fraction_threshold", "thresholds"]


@dataclass(frozen=True, slots=True)
class TriggerDecision:
    """Whether to summarize, and why."""

    triggered: bool
    reason: str
    messages: int
    tokens: int | None
    """None when the message condition fired first (no counting) or no token condition exists."""
    threshold_tokens: int | None
    threshold_messages: int | None
    extra: dict[str, Any] = field(default_factory=dict)


def fraction_threshold(trigger: TriggerCondition | None) -> int | None:
    """floor(context_fraction × window_tokens), or None when no fraction condition is set."""
    if trigger is None or trigger.context_fraction <= 0 or trigger.window_tokens <= 0:
        return None
    return int(trigger.context_fraction * trigger.window_tokens)


def thresholds(trigger: TriggerCondition | None) -> tuple[int | None, int | None]:
    """(token threshold, message threshold), None when that condition is unset.

    No trigger → 160,000 tokens. A trigger with only ``context_messages`` has no token condition
    (this fixes Eino's quirk, where the token threshold then becomes 0). A fraction condition
    and ``context_tokens`` combine (either fires), so the token threshold is the smaller one.
    """
    if trigger is None:
        return DEFAULT_CONTEXT_TOKENS, None
    candidates = [t for t in (trigger.context_tokens, fraction_threshold(trigger)) if t]
    tokens = min(candidates) if candidates else None
    messages = trigger.context_messages if trigger.context_messages > 0 else None
    return tokens, messages


def _token_limit_text(trigger: TriggerCondition | None, max_tokens: int) -> str:
    frac = fraction_threshold(trigger)
    if trigger is not None and frac is not None and frac == max_tokens:
        return (
            f"{max_tokens:,} token threshold ({trigger.context_fraction:.0%} of the "
            f"{trigger.window_tokens:,}-token window)"
        )
    return f"{max_tokens:,} token threshold"


async def decide(
    messages: Sequence[Message | AgenticMessage],
    tools: Sequence[ToolInfo],
    trigger: TriggerCondition | None,
    counter: TokenCounter | None = None,
    *,
    always_count: bool = False,
) -> TriggerDecision:
    """Evaluate the trigger in SPEC order: messages first (no counting), then tokens.

    ``always_count`` counts tokens even when the message condition fired or no token condition
    exists (``compact check`` reports the count either way); the decision is the same.
    """
    counter = counter or default_token_counter
    max_tokens, max_messages = thresholds(trigger)
    n = len(messages)

    async def count() -> int:
        try:
            value = await maybe_await(counter(TokenCounterInput(messages, tools)))
        except Exception as err:
            raise SummarizationError(f"failed to count tokens: {err}") from err
        if isinstance(value, bool) or not isinstance(value, int):
            raise SummarizationError(
                f"failed to count tokens: counter returned {type(value).__name__}, not int"
            )
        return value

    if max_messages is not None and n > max_messages:
        tokens = await count() if always_count else None
        return TriggerDecision(
            True,
            f"{n:,} messages > {max_messages:,} message threshold",
            n,
            tokens,
            max_tokens,
            max_messages,
        )
    if max_tokens is None:
        tokens = await count() if always_count else None
        return TriggerDecision(
            False,
            f"{n:,} messages <= {max_messages:,} message threshold",
            n,
            tokens,
            max_tokens,
            max_messages,
        )
    tokens = await count()
    limit = _token_limit_text(trigger, max_tokens)
    if tokens > max_tokens:
        reason = f"{tokens:,} tokens > {limit}"
        return TriggerDecision(True, reason, n, tokens, max_tokens, max_messages)
    reason = f"{tokens:,} tokens <= {limit}"
    if max_messages is not None:
        reason += f" and {n:,} messages <= {max_messages:,}"
    return TriggerDecision(False, reason, n, tokens, max_tokens, max_messages)
