"""The middleware: trigger → summarize → finalize → callback (SPEC §3–§8)."""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic

from compactor._json import JsonObject
from compactor._util import call_maybe_async, input_for, lazy_pattern, maybe_await
from compactor.counting.config import Config, PreserveUserMessages, validate_config
from compactor.counting.tokens import TokenCounter, default_token_counter
from compactor.counting.trigger import TriggerCondition, TriggerDecision, decide
from compactor.errors import LoopGuardError
from compactor.events import AfterSummarize, BeforeSummarize, Event
from compactor.models.base import KEPT_AFTER_SUMMARY
from compactor.prompts import DEGRADED_NOTE
from compactor.schema import (
    AgenticMessage,
    AgentState,
    HistoryView,
    M,
    Message,
    ToolInfo,
    assistant_text,
    content_type,
    split_system,
)

from .finalize import (
    DefaultFinalizerConfig,
    default_finalizer,
    summarizer_input,
    user_message_budget,
)
from .retry import AttemptRecord
from .summarize import generate_summary

if TYPE_CHECKING:
    from compactor.secrets.masking import SecretMasker

    from .retention import RetentionReport

__all__ = ["Middleware", "SummarizeOutcome", "new", "strip_analysis", "without_usage"]


@dataclass(slots=True)
class SummarizeOutcome(Generic[M]):
    """The new history plus what happened on the way (for reports)."""

    messages: list[M]
    attempts: list[AttemptRecord] = field(default_factory=list)
    phase: str = "primary"
    model_input: list[M] = field(default_factory=list)
    summary: M | None = None
    chunks: list[JsonObject] = field(default_factory=list)
    """Chunked summarization: which messages each chunk covered (empty: one pass)."""
    adaptations: list[JsonObject] = field(default_factory=list)
    """Re-plans after the provider refused the input as too long for its window."""
    learned: JsonObject = field(default_factory=dict)
    """What the run learned about its models
    (:attr:`compactor.pipeline.retry.SummaryResult.learned`): circuit breakers, transcript forms,
    shorter-summary requests, the token scale."""
    tail_messages: int = 0
    """Messages kept verbatim after the summary (``Config.keep``), without their ``usage``."""
    masked: dict[str, int] | None = None
    """Secret kind → occurrences masked in the summarizer input; None = masking off."""
    retention: JsonObject | None = None
    """The retention check's report; None = off."""
    tokens_before: int | None = None
    tokens_after: int | None = None
    """Counted for the loop guard (None when it and ``max_growth`` are off)."""
    degraded: bool = False
    """The summary was written by a stand-in after the configured models failed: the fallback
    model (the last rung of the ladder) or an embedded summarizer in the failover chain."""


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
        outcome = await self.summarize_detailed(state, tokens_before=decision.tokens)
        return AgentState(messages=outcome.messages, tools=state.tools)

    async def summarize(self, state: AgentState[M]) -> list[M]:
        """Always summarize; returns the new history and never changes ``state``."""
        return (await self.summarize_detailed(state)).messages

    def masking_enabled(self) -> bool:
        """``mask_secrets``, or (None) whether the model says it is remote."""
        if self.config.mask_secrets is not None:
            return bool(self.config.mask_secrets)
        return bool(getattr(self.config.model, "remote", False))

    def make_masker(self) -> SecretMasker | None:
        """A fresh :class:`compactor.secrets.masking.SecretMasker`, or None when masking is off."""
        if not self.masking_enabled():
            return None
        from compactor.secrets.masking import SecretMasker

        return SecretMasker(self.config.secret_patterns)

    def split_tail(self, messages: list[M]) -> tuple[list[M], list[M]]:
        """(what is summarized: system run + head, the verbatim tail) per ``Config.keep``."""
        keep = self.config.keep
        if keep is None or (keep.messages is None and keep.tokens is None):
            return list(messages), []
        from .planning import tail_start

        system_messages, context = split_system(messages)
        index = tail_start(context, keep_messages=keep.messages, keep_tokens=keep.tokens)
        cut = len(system_messages) + index
        return messages[:cut], context[index:]

    async def summarize_detailed(
        self, state: AgentState[M], *, tokens_before: int | None = None
    ) -> SummarizeOutcome[M]:
        """:meth:`summarize`, also returning the attempts, the phase and the model input.

        ``tokens_before``: the history's size as the trigger counted it (this config's
        counter and trigger), when the caller has it; the loop guard then does not count the
        whole history again.

        No step changes ``state`` or a message in it, so nothing is copied on the way: the
        steps read the caller's messages and build new ones (masking copies only the messages
        it changes). Code outside the pipeline gets copies: an event sink a
        :class:`~compactor.schema.HistoryView`, a model or ``finalize`` a deep copy unless it
        promises to only read its input (``readonly_input``), a ``callback`` deep copies.
        ``model_input`` in the outcome shares the caller's message objects: read it only.
        """
        cfg = self.config
        messages = list(state.messages)  # the caller may append to its list meanwhile
        await self._emit(BeforeSummarize(messages=HistoryView(messages)))
        history, tail = self.split_tail(messages)  # a new list (it is not the caller's)
        masker = self.make_masker()
        # Masked once: the summarizer, the failover callback and finalize all see this copy
        # (system messages as they are; they are not sent by default), so the user messages
        # finalize re-inserts carry placeholders too. Masking it again is a no-op, so the
        # counts say how many secrets the history held. Without masking, the list split_tail
        # made is the history (not copied twice more: a list of a million messages is 9 MB).
        if masker is not None:
            system_messages, head = split_system(history)
            history = system_messages + masker.mask_messages(head)
        # generate_summary never mutates its input (it copies what it hands to a model); the
        # kept tail is named beside it (models.base.KEPT_AFTER_SUMMARY), masked as the head is
        seen = masker.mask_messages(tail) if masker is not None else tail
        kept = KEPT_AFTER_SUMMARY.set(seen)
        try:
            result = await generate_summary(
                cfg, history, self._emit, masker=masker, masked=masker is not None
            )
        finally:
            KEPT_AFTER_SUMMARY.reset(kept)
        reply = copy.deepcopy(result.response)
        if cfg.strip_analysis:
            reply = strip_analysis(reply)
        if result.degraded:
            reply = _edit_text(reply, lambda text: f"{DEGRADED_NOTE}\n\n{text}")
        # PreserveSkills scans the model input (it only reads it)
        kept = KEPT_AFTER_SUMMARY.set(seen)  # finalize names a newer plan the tail holds
        try:
            with summarizer_input(result.model_input):
                if cfg.finalize is not None:
                    original = input_for(cfg.finalize, history)
                    new_messages = list(await call_maybe_async(cfg.finalize, original, reply))
                else:
                    pum = cfg.preserve_user_messages or PreserveUserMessages()
                    finalize = default_finalizer(
                        DefaultFinalizerConfig(
                            preserve_user_messages=dataclasses.replace(
                                pum, max_tokens=self.user_budget(pum)
                            ),
                            transcript_file_path=cfg.transcript_file_path,
                        )
                    )
                    new_messages = await finalize(history, reply)
        finally:
            KEPT_AFTER_SUMMARY.reset(kept)
        retention = None
        if cfg.retention is not None and cfg.retention.enabled:
            retention = self._retain(new_messages, split_system(history)[1], masker)
        if masker is None and getattr(cfg.model, "embedded", False):
            _mask_summary(new_messages, history, reply)  # what finalize re-inserted, as masked
        new_messages.extend(without_usage(copy.deepcopy(tail)))
        tokens_after = None
        if cfg.loop_guard is None and cfg.max_growth is None:
            tokens_before = None
        else:
            counter = cfg.token_counter or default_token_counter
            if tokens_before is None:
                tokens_before = await _count(counter, messages, state.tools, cfg.trigger)
            tokens_after = await _count(counter, new_messages, state.tools, cfg.trigger)
            if cfg.loop_guard is not None and tokens_after >= cfg.loop_guard * tokens_before:
                raise LoopGuardError(tokens_before, tokens_after, cfg.loop_guard)
            if cfg.max_growth is not None and tokens_after > cfg.max_growth * tokens_before:
                raise LoopGuardError(tokens_before, tokens_after, max_growth=cfg.max_growth)
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
            chunks=result.chunks,
            adaptations=result.adaptations,
            learned=result.learned,
            tail_messages=len(tail),
            masked=dict(masker.counts) if masker is not None else None,
            retention=retention,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
            degraded=result.degraded,
        )

    def _retain(
        self, new_messages: list[M], dropped: list[M], masker: SecretMasker | None
    ) -> JsonObject:
        """Repair the summary message in ``new_messages`` in place; the retention report."""
        from .retention import apply_retention

        cfg = self.config.retention
        assert cfg is not None
        where = [i for i, m in enumerate(new_messages) if content_type(m) == "summary"]
        if not where:
            return {"applied": False, "reason": "no summary message in the finalized history"}
        i = where[0]
        report: RetentionReport | None = None

        def repair(text: str) -> str:
            nonlocal report
            fixed, report = apply_retention(
                dropped,
                text,
                max_anchors=cfg.max_anchors,
                max_facts=cfg.max_facts,
                transform=masker.mask_text if masker is not None else None,
            )
            return str(fixed)

        new_messages[i] = _edit_text(new_messages[i], repair)
        assert report is not None  # repair ran
        data: JsonObject = {"applied": True, **report.to_dict()}
        return data

    def user_budget(self, pum: PreserveUserMessages) -> int:
        """The user-message budget: ``max_tokens``, else a third of the token threshold the
        trigger resolves to (``context_tokens``, or ``context_fraction`` × ``window_tokens``;
        the smaller when both are set), else 160,000 // 3 (SPEC §5.2)."""
        return user_message_budget(pum, self.config.trigger)


async def _count(
    counter: TokenCounter,
    messages: list[M],
    tools: list[ToolInfo],
    trigger: TriggerCondition | None,
) -> int:
    """The trigger's own count (same errors, same int check) of ``messages``."""
    tokens = (await decide(messages, tools, trigger, counter, always_count=True)).tokens
    assert tokens is not None  # always_count
    return tokens


def without_usage(messages: list[M]) -> list[M]:
    """``messages`` (changed in place) without provider usage.

    Usage describes the request that produced a message, a request that carried the whole
    history before it. Once a summary replaces that history, the usage of a kept message is
    stale: as the default counter's baseline it would report the pre-compaction size (a history
    "compacted" from 66,698 to 66,698 tokens, which the loop guard rejects and the next trigger
    check compacts again). The next real model call brings fresh usage.
    """
    for msg in messages:
        msg.usage = None
    return messages


_ANALYSIS_RE = lazy_pattern(r"<analysis>.*?</analysis>\s*", re.DOTALL)


def strip_analysis(reply: M) -> M:
    """A copy of ``reply`` without its ``<analysis>…</analysis>`` block(s).

    Kept as is when stripping would leave no text (a reply made only of analysis).
    """

    def strip(text: str) -> str:
        stripped = _ANALYSIS_RE.sub("", text).strip()
        return stripped or text

    return _edit_text(reply, strip)


def _mask_summary(messages: list[M], history: list[M], reply: M) -> None:
    """The embedded summarizer masks its own text (``models.local_mask``), not its input; the
    user messages finalize re-inserts (SPEC §5.2) and the facts retention appends come from
    that unmasked input, so the summary message as finalized goes through the same masker
    once more (blind check 37 S1: a Firebase ``apiKey`` the summary masked in §1 was printed
    whole in the re-inserted user messages), and a value the summary masked where the input
    gave it a credential context is masked there too (blind check 63 S1: a key the user typed
    on its own line, masked in §1 by a tool call's ``"key": "…"``). The kept tail is not touched."""
    from compactor.models.local_mask import masked_whole
    from compactor.models.local_maskinput import mask_input_values

    written = assistant_text(reply)
    for i, message in enumerate(messages):
        if content_type(message) == "summary":
            whole = _edit_text(message, masked_whole)
            messages[i] = _edit_text(whole, lambda t: mask_input_values(t, history, written))


def _edit_text(msg: M, fn: Callable[[str], str]) -> M:
    """A copy of ``msg`` with its (first) text replaced by ``fn(text)``."""
    out = copy.deepcopy(msg)
    if not isinstance(out, Message | AgenticMessage):
        return out
    if isinstance(out, Message):
        for part in out.parts:
            if part.type == "text" and part.text:
                part.text = fn(part.text)
                return out
        out.content = fn(out.content)
        return out
    for block in out.blocks:
        if block.type in ("assistant_gen_text", "user_input_text") and block.text:
            block.text = fn(block.text)
            return out
    return out


def new(config: Config[M] | None) -> Middleware[M]:
    """Validate ``config`` and build the middleware; problems raise :class:`ConfigError`."""
    validate_config(config)
    assert config is not None
    return Middleware(config)
