"""The trigger decision (SPEC §3), shared by the middleware and ``compact check``."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

from compactor._json import JsonObject
from compactor._util import FrozenRecord, maybe_await
from compactor.errors import SummarizationError
from compactor.schema import AgenticMessage, Message, ToolInfo

from .tokens import TokenCounter, TokenCounterInput, default_token_counter

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "TriggerCondition",
    "TriggerDecision",
    "checked_count",
    "decide",
    "decide_sync",
    "fraction_threshold",
    "thresholds",
    "verdict",
]

DEFAULT_CONTEXT_TOKENS = 160_000
"""Token threshold used when no trigger is configured."""


# Defined here, next to the decision, and re-exported by compactor.counting.config (its documented
# home): `compact check` needs the condition but not the rest of the middleware's config.
@dataclass(frozen=True, kw_only=True, slots=True)
class TriggerCondition:
    """When to summarize. Both comparisons are strict (``>``); a zero value is unset."""

    context_tokens: int = 0
    """Summarize when the token count exceeds this (0 = no token condition)."""
    context_messages: int = 0
    """Summarize when the number of messages exceeds this (0 = no message condition)."""
    context_fraction: float = 0.0
    """Summarize when the tokens exceed this share of ``window_tokens`` (0 = off; ours, as
    LangChain's ``("fraction", 0.8)``). Combines with the other conditions: any one fires."""
    window_tokens: int = 0
    """The agent model's context window, for ``context_fraction``."""


class TriggerDecision(FrozenRecord):
    """Whether to summarize, and why. (A frozen dataclass's behaviour, defined as a plain
    class: ``compact check`` defines it on every start-up.)"""

    __slots__ = (  # noqa: RUF023 - field order: repr and == follow it
        "triggered",
        "reason",
        "messages",
        "tokens",
        "threshold_tokens",
        "threshold_messages",
        "extra",
    )
    triggered: bool
    reason: str
    messages: int
    tokens: int | None
    """None when the message condition fired first (no counting) or no token condition exists."""
    threshold_tokens: int | None
    threshold_messages: int | None
    extra: JsonObject

    def __init__(
        self,
        triggered: bool,
        reason: str,
        messages: int,
        tokens: int | None,
        threshold_tokens: int | None,
        threshold_messages: int | None,
        extra: JsonObject | None = None,
    ) -> None:
        init = object.__setattr__
        init(self, "triggered", triggered)
        init(self, "reason", reason)
        init(self, "messages", messages)
        init(self, "tokens", tokens)
        init(self, "threshold_tokens", threshold_tokens)
        init(self, "threshold_messages", threshold_messages)
        init(self, "extra", {} if extra is None else extra)


async def _awaited(value: Awaitable[int]) -> int:
    return await value


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


def _needs_count(n: int, trigger: TriggerCondition | None, always_count: bool) -> bool:
    """Whether the decision needs the token count (SPEC order: messages first, no counting)."""
    if always_count:
        return True
    max_tokens, max_messages = thresholds(trigger)
    if max_messages is not None and n > max_messages:
        return False
    return max_tokens is not None


def checked_count(value: object) -> int:
    """``value`` when it is a token count (an ``int``, not a bool, zero or more); else the
    ``failed to count tokens`` error a counter that raises gets (SPEC §3): a negative count
    would make every history look small (no compaction ever) and every summary look free."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SummarizationError(
            f"failed to count tokens: counter returned {type(value).__name__}, not int"
        )
    if value < 0:
        raise SummarizationError(
            f"failed to count tokens: counter returned {value:,}, a negative count"
        )
    return value


def _verdict(n: int, tokens: int | None, trigger: TriggerCondition | None) -> TriggerDecision:
    """The decision for ``n`` messages and ``tokens`` (None when not counted)."""
    max_tokens, max_messages = thresholds(trigger)
    if max_messages is not None and n > max_messages:
        return TriggerDecision(
            True,
            f"{n:,} messages > {max_messages:,} message threshold",
            n,
            tokens,
            max_tokens,
            max_messages,
        )
    if max_tokens is None:
        return TriggerDecision(
            False,
            f"{n:,} messages <= {max_messages:,} message threshold",
            n,
            tokens,
            max_tokens,
            max_messages,
        )
    assert tokens is not None
    limit = _token_limit_text(trigger, max_tokens)
    if tokens > max_tokens:
        reason = f"{tokens:,} tokens > {limit}"
        return TriggerDecision(True, reason, n, tokens, max_tokens, max_messages)
    reason = f"{tokens:,} tokens <= {limit}"
    if max_messages is not None:
        reason += f" and {n:,} messages <= {max_messages:,}"
    return TriggerDecision(False, reason, n, tokens, max_tokens, max_messages)


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
    tokens: int | None = None
    if _needs_count(len(messages), trigger, always_count):
        try:
            value = await maybe_await(counter(TokenCounterInput(messages, tools)))
        except Exception as err:
            raise SummarizationError(f"failed to count tokens: {err}") from err
        tokens = checked_count(value)
    return _verdict(len(messages), tokens, trigger)


def decide_sync(
    messages: Sequence[Message | AgenticMessage],
    tools: Sequence[ToolInfo],
    trigger: TriggerCondition | None,
    counter: TokenCounter | None = None,
    *,
    always_count: bool = False,
) -> TriggerDecision:
    """:func:`decide` without an event loop, for ``compact check`` (same result and errors).

    A counter that returns an awaitable (a coroutine function) is run with ``asyncio.run``, so
    only async counters pay for asyncio.
    """
    counter = counter or default_token_counter
    tokens: int | None = None
    if _needs_count(len(messages), trigger, always_count):
        try:
            value = counter(TokenCounterInput(messages, tools))
            if inspect.isawaitable(value):
                import asyncio  # only async counters need a loop

                value = asyncio.run(_awaited(value))
        except Exception as err:
            raise SummarizationError(f"failed to count tokens: {err}") from err
        tokens = checked_count(value)
    return _verdict(len(messages), tokens, trigger)


def verdict(n: int, tokens: int, trigger: TriggerCondition | None) -> TriggerDecision:
    """The decision for ``n`` messages whose count is already known (``always_count``)."""
    return _verdict(n, checked_count(tokens), trigger)
