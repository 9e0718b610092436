"""The middleware: trigger → summarize → finalize → callback (SPEC §3–§8)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Generic

from ._util import call_maybe_async, maybe_await
from .config import DEFAULT_CONTEXT_TOKENS, Config, PreserveUserMessages, validate_config
from .events import AfterSummarize, BeforeSummarize, Event
from .finalize import _default_finalize, _model_input
from .schema import AgentState, M
from .summarize import AttemptRecord, generate_summary
from .tokens import default_token_counter
from .trigger import TriggerDecision, decide

__all__ = ["Middleware", "SummarizeOutcome", "new"]


@dataclass(slots=True)
class SummarizeOutcome(Generic[M]):
    """The new history plus what happened on the way (for reports)."""

    messages: list[M]
    attempts: list[AttemptRecord] = field(default_factory=list)
    phase: str = "primary"
    model_input: list[M] = field(default_factory=list)
    summary: Any = None


class Middleware(Generic[M]):
    """Summarizes an agent's history when it grows past the trigger. Build it with :func:`new`."""

    def __init__(self, config: Config[M]) -> None:
        validate_config(config)
        self.config: Config[M] = config

    async def _emit(self, event: Event) -> None:
        if self.config.emit_internal_events and self.config.on_event is not None:
            await maybe_await(self.config.on_event(event))

    async def should_summarize(self, state: AgentState[M]) -> TriggerDecision:
        """The trigger decision for ``state`` (SPEC §3); never calls a model."""
        counter = self.config.token_counter or default_token_counter
        return await decide(state.messages, state.tools, self.config.trigger, counter)

    async def before_model(self, state: AgentState[M]) -> AgentState[M]:
        """Summarize when the trigger fires; otherwise return ``state`` itself, unchanged."""
        decision = await self.should_summarize(state)
        if not decision.triggered:
            return state
        outcome = await self.summarize_detailed(state)
        return AgentState(messages=outcome.messages, tools=state.tools)

    async def summarize(self, state: AgentState[M]) -> list[M]:
        """Always summarize; returns the new history and never changes ``state``."""
        return (await self.summarize_detailed(state)).messages

    async def summarize_detailed(self, state: AgentState[M]) -> SummarizeOutcome[M]:
        """:meth:`summarize`, also returning the attempts, the phase and the model input."""
        cfg = self.config
        before = state.copy()
        await self._emit(BeforeSummarize(messages=copy.deepcopy(before.messages)))
        result = await generate_summary(cfg, copy.deepcopy(before.messages), self._emit)
        original = copy.deepcopy(before.messages)
        token = _model_input.set(copy.deepcopy(result.model_input))
        try:
            if cfg.finalize is not None:
                new_messages = list(
                    await call_maybe_async(cfg.finalize, original, copy.deepcopy(result.response))
                )
            else:
                pum = cfg.preserve_user_messages or PreserveUserMessages()
                new_messages = await _default_finalize(
                    original,
                    copy.deepcopy(result.response),
                    pum,
                    self._user_budget(pum),
                    cfg.transcript_file_path,
                )
        finally:
            _model_input.reset(token)
        if cfg.callback is not None:
            after = AgentState(
                messages=copy.deepcopy(new_messages), tools=copy.deepcopy(state.tools)
            )
            await call_maybe_async(cfg.callback, state.copy(), after)
        await self._emit(AfterSummarize(messages=copy.deepcopy(new_messages)))
        return SummarizeOutcome(
            messages=new_messages,
            attempts=result.attempts,
            phase=result.phase,
            model_input=result.model_input,
            summary=result.response,
        )

    def _user_budget(self, pum: PreserveUserMessages) -> int:
        if pum.max_tokens is not None:
            return int(pum.max_tokens)
        trigger = self.config.trigger
        if trigger is not None and trigger.context_tokens > 0:
            return trigger.context_tokens // 3
        return DEFAULT_CONTEXT_TOKENS // 3


def new(config: Config[M] | None) -> Middleware[M]:
    """Validate ``config`` and build the middleware; problems raise :class:`ConfigError`."""
    validate_config(config)
    assert config is not None
    return Middleware(config)
