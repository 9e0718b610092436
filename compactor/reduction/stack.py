"""Reduction stacked before summarization, as an Eino agent stacks the two middlewares.

:func:`reduce_then_summarize` reduces first; only when the reduced history still fires the
summarizer's trigger does it summarize, and then only the oldest part: the retained rounds
(those reduction never clears) are kept verbatim after the summary, as they were reduced.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Generic

from compactor.counting.config import Config, KeepTail
from compactor.pipeline.middleware import Middleware, SummarizeOutcome
from compactor.schema import AgentState, M, split_system

from .core import ReduceOutcome, Reduction

__all__ = ["StackedOutcome", "keep_retained", "originals_to_summarize", "reduce_then_summarize"]


@dataclass(slots=True)
class StackedOutcome(Generic[M]):
    """The final history; what reduction did; what summarization did (None: not needed)."""

    messages: list[M]
    reduce: ReduceOutcome[M]
    summarize: SummarizeOutcome[M] | None = None


def keep_retained(
    cfg: Config[M], messages: list[M], retained_from: int, *, exact: bool = False
) -> Config[M]:
    """``cfg`` keeping at least the messages from ``retained_from`` on verbatim after the
    summary (unless ``keep.tokens`` sets a budget of its own); with ``exact``, exactly those
    (none when ``retained_from`` is past the end): a hybrid's fallback that keeps fewer
    messages than the first try must really keep fewer, whatever ``keep`` allowed at most."""
    system, _ = split_system(messages)
    tail = len(messages) - max(retained_from, len(system))
    if exact:
        return dataclasses.replace(cfg, keep=KeepTail(messages=max(tail, 0)))
    if retained_from <= len(system) or tail <= 0:
        return cfg
    keep = cfg.keep or KeepTail()
    if keep.tokens is not None:
        return cfg  # a token budget of the user's own: it decides the tail
    wanted = max(keep.messages or 0, tail)
    return dataclasses.replace(cfg, keep=KeepTail(messages=wanted))


def originals_to_summarize(
    cfg: Config[M], reduced: list[M], originals: list[M]
) -> tuple[Config[M], list[M]]:
    """The history to summarize and its config: the part the summary replaces as it was
    before reduction (the summarizer reads the errors, not "Tool result saved to: …"), the
    tail ``cfg`` keeps exactly as reduction left it, the tail pinned to that many messages."""
    if len(originals) != len(reduced):
        return cfg, reduced
    _, tail = Middleware(cfg).split_tail(reduced)
    cut = len(reduced) - len(tail)
    keep = KeepTail(messages=len(tail)) if tail else cfg.keep
    history: list[M] = originals[:cut] + reduced[cut:]
    return dataclasses.replace(cfg, keep=keep), history


async def reduce_then_summarize(
    state: AgentState[M],
    reduction: Reduction[M],
    middleware: Middleware[M],
    *,
    summarize: bool | None = None,
    tokens_before: int | None = None,
) -> StackedOutcome[M]:
    """Reduce ``state``, then summarize what is left when it still fires the trigger.

    ``summarize``: True always summarizes after reducing, False never; None (default) asks
    the summarizer's trigger about the reduced history. ``tokens_before``: the original
    history's size for the loop guard (None: the reduced history's, as the trigger counts it).
    The caller's messages are never changed.
    """
    reduced = await reduction.reduce(state)
    out: StackedOutcome[M] = StackedOutcome(messages=reduced.messages, reduce=reduced)
    after = AgentState(messages=list(reduced.messages), tools=state.tools)
    if summarize is None:
        summarize = (await middleware.should_summarize(after)).triggered
    if not summarize:
        return out
    cfg = keep_retained(middleware.config, reduced.messages, reduced.retained_from)
    cfg, history = originals_to_summarize(cfg, reduced.messages, list(state.messages))
    summarizer = middleware if cfg is middleware.config else Middleware(cfg)
    after = AgentState(messages=history, tools=state.tools)
    result = await summarizer.summarize_detailed(after, tokens_before=tokens_before)
    out.summarize = result
    out.messages = result.messages
    return out
