"""Summarizer input (SPEC §4) and the model calls with retry and failover (SPEC §6).

Retry and failover run on tenacity with an injected ``sleep``; each wait is announced with a
:class:`~compactor.events.RetryWait` event from tenacity's ``before_sleep`` hook. This module
emits events and never formats anything for a screen. It never mutates its input.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import math
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, cast

from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from ._util import call_maybe_async, model_name
from .config import DEFAULT_MAX_DELAY, DEFAULT_MAX_RETRIES, Config, FailoverContext
from .errors import ModelError, SpendLimitError, SummarizationError
from .events import (
    AttemptStart,
    ChunkStart,
    ContextLimit,
    Event,
    GenerateSummary,
    Phase,
    RetryWait,
)
from .models.pool import request_slot
from .prompts import CHUNK_NOTE, PREVIOUS_SUMMARY, SYSTEM_INSTRUCTION, USER_INSTRUCTION
from .schema import (
    AgenticMessage,
    M,
    Message,
    assistant_text,
    make_system,
    make_user,
    message_kind,
    user_text,
    with_content_type,
)
from .tokens import estimate_message, estimate_text

__all__ = [
    "MAX_CONTEXT_ADAPTATIONS",
    "AttemptRecord",
    "ChunkPlan",
    "SummaryResult",
    "capped_delay",
    "context_limit_error",
    "default_backoff",
    "default_should_failover",
    "default_should_retry",
    "generate_summary",
    "input_tokens",
    "is_embedded",
    "oversized_reply",
    "plan_summarizer_chunks",
    "reported_limit",
    "split_system",
]

Emit = Callable[[Event], Awaitable[None]]


def split_system(messages: list[M]) -> tuple[list[M], list[M]]:
    """(leading contiguous system messages, the rest) — SPEC §4."""
    i = 0
    while i < len(messages) and messages[i].role == "system":
        i += 1
    return messages[:i], messages[i:]


def default_backoff(
    attempt: int, response: Any = None, error: BaseException | None = None
) -> float:
    """``min(1s·2^(attempt−1), 10s)`` + uniform jitter in ``[0, delay/2)``; ``attempt ≤ 0`` → 1 s.

    A server's ``retry-after`` (carried by :class:`ModelError`) wins when it is given; the retry
    engine caps whatever this returns at the phase's ``max_delay``.
    """
    if isinstance(error, ModelError) and error.retry_after is not None:
        return max(0.0, error.retry_after)
    if attempt <= 0:
        return 1.0
    delay = min(2.0 ** (attempt - 1), 10.0)
    return delay + random.uniform(0, delay / 2)


def default_should_retry(response: Any, error: BaseException | None) -> bool:
    """Retry when an error happened, except errors known to be permanent (400/401/404, ...)."""
    if error is None:
        return False
    if isinstance(error, ModelError):
        return error.transient
    return True


def default_should_failover(response: Any, error: BaseException | None) -> bool:
    """Fail over when an error happened."""
    return error is not None


@dataclass(frozen=True, slots=True)
class AttemptRecord:
    """One model call (or failed failover-model lookup), for reports."""

    phase: Phase
    attempt: int
    model: str
    ok: bool
    error: str | None
    cached: bool = False
    """Served from the summary cache (no model call)."""
    chunk: int | None = None
    """1-based chunk number in a chunked summarization."""


@dataclass(slots=True)
class SummaryResult(Generic[M]):
    """What the summarizer produced and the input that produced it."""

    response: M
    model_input: list[M]
    attempts: list[AttemptRecord] = field(default_factory=list)
    phase: Phase = "primary"
    chunks: list[dict[str, Any]] = field(default_factory=list)
    """One record per chunk when the input was summarized in chunks (empty otherwise)."""
    adaptations: list[dict[str, Any]] = field(default_factory=list)
    """Each re-plan after a context-length error: the window reported and the one planned with."""
    degraded: bool = False
    """The summary (or a chunk's) was written by a stand-in after the configured models
    failed: the ``fallback_model``, or an embedded summarizer in the failover chain."""


@dataclass(slots=True)
class _Outcome:
    response: Any = None
    error: BaseException | None = None


@dataclass(slots=True)
class _Job(Generic[M]):
    """What every model call of one summarization shares."""

    config: Config[Any]
    messages: list[M]
    """The history being summarized (masked when masking is on)."""
    emit: Emit
    masker: Any
    system_instruction: M
    user_instruction: M
    attempts: list[AttemptRecord] = field(default_factory=list)


async def _default_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def build_model_input(config: Config[Any], messages: list[M]) -> tuple[M, M, list[M]]:
    """(system instruction, user instruction, summarizer input) for ``messages`` (SPEC §4)."""
    kind = message_kind(messages)
    system_instruction = make_system(kind, config.system_instruction or SYSTEM_INSTRUCTION)
    user_instruction = make_user(kind, config.user_instruction or USER_INSTRUCTION)
    if config.gen_model_input is not None:
        try:
            result = await call_maybe_async(
                config.gen_model_input,
                copy.deepcopy(system_instruction),
                copy.deepcopy(user_instruction),
                copy.deepcopy(messages),
            )
        except Exception as err:
            raise SummarizationError(f"failed to generate model input: {err}") from err
        return system_instruction, user_instruction, list(result or [])
    context: list[M] = split_system(messages)[1]
    return (
        system_instruction,
        user_instruction,
        [system_instruction, *copy.deepcopy(context), user_instruction],
    )


MAX_CONTEXT_ADAPTATIONS = 2
"""How often a provider's context-length error re-plans the input in smaller chunks."""

_LIMIT_RES = (
    re.compile(r"maximum context length is ([\d,]+) tokens", re.IGNORECASE),
    re.compile(r"context (?:length|window|size)(?: limit)? (?:of|is) ([\d,]+)", re.IGNORECASE),
    re.compile(r"available context size \(([\d,]+) tokens\)", re.IGNORECASE),
)


def context_limit_error(error: BaseException | None) -> ModelError | None:
    """The provider's context-length error in ``error``'s cause chain, if there is one."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModelError) and error.kind == "context_length":
            return error
        error = error.__cause__ or error.__context__
    return None


def reported_limit(error: ModelError) -> int | None:
    """The window size a context-length error names (``maximum context length is N``)."""
    for pattern in _LIMIT_RES:
        found = pattern.search(str(error))
        if found:
            return int(found.group(1).replace(",", ""))
    return None


async def generate_summary(
    config: Config[Any], messages: list[M], emit: Emit, *, masker: Any = None
) -> SummaryResult[M]:
    """Call the model (retry, then failover, then the fallback model) and return the first
    acceptable reply.

    ``masker`` (a :class:`compactor.masking.SecretMasker`) masks the summarizer input. When
    ``config.summarizer_context_tokens`` is set and the input would not fit, the context is
    summarized in sequential chunks (SummaryResult.chunks says which messages each covered).
    When the provider refuses the input as too long for its window, the input is re-planned in
    chunks that fit the window it names (at most :data:`MAX_CONTEXT_ADAPTATIONS` times) before
    the fallback model is tried.
    """
    system_instruction, user_instruction, model_input = await build_model_input(config, messages)
    if masker is not None:
        model_input = masker.mask_messages(model_input)
    job: _Job[M] = _Job(config, messages, emit, masker, system_instruction, user_instruction)
    adaptations: list[dict[str, Any]] = []
    previous: SummarizationError | None = None
    while True:
        can_adapt = len(adaptations) < MAX_CONTEXT_ADAPTATIONS and config.gen_model_input is None
        try:
            result = await _generate_planned(job, model_input, can_adapt)
        except SpendLimitError:
            raise
        except SummarizationError as err:
            limit_error = context_limit_error(err)
            if limit_error is None or not can_adapt:
                if adaptations and previous is not None:
                    # Say first what the provider said, then why re-planning did not help.
                    planned = adaptations[-1]["planned_with"]
                    raise SummarizationError(
                        f"{previous}; re-planned for a {planned:,}-token window: {err}"
                    ) from err
                raise
            previous = err
            job.config = _adapted(job.config, limit_error, input_tokens(model_input))
            limit = job.config.summarizer_context_tokens
            assert limit is not None
            adaptations.append({"reported": reported_limit(limit_error), "planned_with": limit})
            await emit(ContextLimit(reported=reported_limit(limit_error), planned_with=limit))
            continue
        result.adaptations = adaptations
        return result


def _adapted(config: Config[Any], error: ModelError, tokens: int) -> Config[Any]:
    """``config`` with a summarizer window below what the provider refused.

    Our count is an estimate (bytes / 4), the provider's is exact, so plan with 80 % of the
    window it names (half the input when it names none), and below any window set before.
    """
    reported = reported_limit(error)
    limit = int(reported * 0.8) if reported else tokens // 2
    if config.summarizer_context_tokens is not None:
        limit = min(limit, config.summarizer_context_tokens // 2)
    limit = max(limit, 1)
    return dataclasses.replace(
        config,
        summarizer_context_tokens=limit,
        reply_reserve_tokens=min(config.reply_reserve_tokens, limit // 4),
    )


async def _generate_planned(
    job: _Job[M], model_input: list[M], can_adapt: bool
) -> SummaryResult[M]:
    limit = job.config.summarizer_context_tokens
    if limit and job.config.gen_model_input is None and input_tokens(model_input) > limit:
        return await _generate_chunked(job, can_adapt)
    return await _generate_one(job, model_input, can_adapt=can_adapt)


def input_tokens(model_input: list[Any]) -> int:
    """The summarizer input's size as the chunk planner counts it (the default estimate)."""
    return sum(estimate_message(m) for m in model_input)


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """How a too-long summarizer input would be split (for the run and for ``--explain``)."""

    budget: int
    """Tokens of context messages per chunk."""
    chunks: list[Any]
    """``compactor.planning.Chunk`` objects, indices into the context (system run excluded)."""
    offset: int
    """Number of leading system messages: add it to a chunk's indices for history indices."""


def plan_summarizer_chunks(
    config: Config[Any], messages: list[M], system_instruction: M, user_instruction: M
) -> ChunkPlan:
    """Split the context of ``messages`` into chunks that fit ``summarizer_context_tokens``.

    Each chunk's input is the system instruction, the running summary (at most a quarter of the
    context), the chunk's messages and the user instruction with a short note; the reply
    reserve stays free.
    """
    from .planning import plan_chunks

    limit = config.summarizer_context_tokens
    assert limit is not None
    system_messages, context = split_system(messages)
    fixed = (
        estimate_message(system_instruction)
        + estimate_message(user_instruction)
        + estimate_text(CHUNK_NOTE) * 2
    )
    budget = limit - config.reply_reserve_tokens - fixed - _running_allowance(limit)
    if budget <= 0:
        raise SummarizationError(
            f"summarizer_context_tokens={limit:,} leaves no room for messages: the instructions "
            f"take {fixed:,} tokens, the reply reserve {config.reply_reserve_tokens:,} and the "
            f"running summary {_running_allowance(limit):,}"
        )
    return ChunkPlan(
        budget=budget,
        chunks=plan_chunks(context, budget, estimate_message),
        offset=len(system_messages),
    )


def _running_allowance(limit: int) -> int:
    return limit // 4


def _running_text(reply: Any, limit: int) -> str:
    """The part of a chunk's reply handed to the next chunk: its <summary> block, capped."""
    text = assistant_text(reply) if reply is not None else ""
    start, end = text.find("<summary>"), text.rfind("</summary>")
    if 0 <= start < end:
        text = text[start + len("<summary>") : end].strip()
    cap = _running_allowance(limit) * 4
    if len(text.encode("utf-8")) > cap:
        keep = max(cap // 2 - 64, 0)
        text = f"{text[:keep]}\n…[running summary cut to fit]…\n{text[-keep:] if keep else ''}"
    return text


async def _generate_chunked(job: _Job[M], can_adapt: bool = False) -> SummaryResult[M]:
    from .planning import truncate_to_budget

    config, messages, masker = job.config, job.messages, job.masker
    system_instruction, user_instruction = job.system_instruction, job.user_instruction
    plan = plan_summarizer_chunks(config, messages, system_instruction, user_instruction)
    limit = config.summarizer_context_tokens
    assert limit is not None
    kind = message_kind(messages)
    context: list[M] = split_system(messages)[1]
    if masker is not None:
        context = masker.mask_messages(context)
    else:
        context = copy.deepcopy(context)
    instruction_text = user_text(user_instruction)
    total = len(plan.chunks)
    running: str | None = None
    result: SummaryResult[M] | None = None
    chunk_records: list[dict[str, Any]] = []
    degraded = False
    for index, chunk in enumerate(plan.chunks, start=1):
        part = context[chunk.start : chunk.end]
        if chunk.oversized:
            part = truncate_to_budget(part, plan.budget, estimate_message)
        previous = (
            f" The summary of parts 1-{index - 1} is in <previous_summary> above."
            if running
            else ""
        )
        note = CHUNK_NOTE.format(index=index, total=total, previous=previous)
        chunk_input: list[M] = [system_instruction]
        if running:
            previous_msg = make_user(kind, PREVIOUS_SUMMARY.format(upto=index - 1, text=running))
            # internal: never quoted back as one of the user's own messages
            chunk_input.append(with_content_type(previous_msg, "summary"))
        chunk_input.extend(part)
        chunk_input.append(make_user(kind, f"{note}\n\n{instruction_text}"))
        tokens = input_tokens(chunk_input)
        start, end = chunk.start + plan.offset, chunk.end + plan.offset
        await job.emit(
            ChunkStart(
                index=index,
                total=total,
                start=start,
                end=end,
                tokens=tokens,
                oversized=chunk.oversized,
                chunk_tokens=chunk.tokens,
            )
        )
        result = await _generate_one(job, chunk_input, chunk=index, can_adapt=can_adapt)
        degraded = degraded or result.degraded
        chunk_records.append(
            {
                "index": index,
                "start": start,
                "end": end,
                "messages": end - start,
                "tokens": chunk.tokens,
                "input_tokens": tokens,
                "oversized": chunk.oversized,
                "phase": result.phase,
            }
        )
        running = _running_text(result.response, limit)
    assert result is not None
    # PreserveSkills scans what the model saw: all chunks together.
    full: list[M] = [system_instruction]
    full.extend(context)
    full.append(user_instruction)
    result.model_input = full
    result.chunks = chunk_records
    result.degraded = degraded
    if any(r["phase"] == "fallback" for r in chunk_records):
        result.phase = "fallback"
    return result


async def _generate_one(
    job: _Job[M],
    model_input: list[M],
    *,
    chunk: int | None = None,
    can_adapt: bool = False,
) -> SummaryResult[M]:
    """One summarizer input through retry, failover and the fallback model.

    With ``can_adapt``, a context-length failure is raised instead of falling back, so that
    :func:`generate_summary` can re-plan the input in smaller chunks first.
    """
    config, emit, attempts = job.config, job.emit, job.attempts
    sleep = config.sleep or _default_sleep
    cache = config.cache
    kind = message_kind(model_input) if model_input else message_kind(job.messages)

    async def call(model: Any, inp: list[M], phase: Phase, attempt: int) -> _Outcome:
        name = model_name(model)
        await emit(AttemptStart(phase=phase, attempt=attempt, model=name, chunk=chunk))
        outcome = _Outcome()
        key: str | None = None
        cached = False
        if cache is not None:
            from .cache import cache_key, model_endpoint

            key = cache_key(name, config.model_options, inp, model_endpoint(model))
            outcome.response = cache.get(key, kind)
            cached = outcome.response is not None
        if not cached and config.spend is not None and not is_embedded(model):
            try:
                config.spend.charge(input_tokens(inp), name)
            except SpendLimitError as err:
                # Not sent: the attempt is recorded and the run stops (no retry, no failover).
                attempts.append(
                    AttemptRecord(phase, attempt, name, False, _err_text(err), False, chunk)
                )
                await emit(
                    GenerateSummary(
                        attempt=attempt, phase=phase, error=err, model=name, chunk=chunk
                    )
                )
                raise
        if not cached:
            try:
                async with request_slot():
                    outcome.response = await model.generate(
                        copy.deepcopy(inp), **config.model_options
                    )
            except Exception as err:  # noqa: BLE001 - a failed call is data for retry/failover
                outcome.error = err
                if isinstance(err, ModelError):
                    # What the model did send with its error (Eino hands (resp, err) on).
                    outcome.response = err.partial_response
            if outcome.error is None:
                outcome.error = oversized_reply(config, outcome.response, inp, name)
                if outcome.error is not None:
                    outcome.response = None  # a 300 MB reply is not kept for failover
            if key is not None and outcome.error is None:
                cache.put(key, name, outcome.response)
        attempts.append(
            AttemptRecord(
                phase, attempt, name, outcome.error is None, _err_text(outcome.error), cached, chunk
            )
        )
        await emit(
            GenerateSummary(
                attempt=attempt,
                phase=phase,
                model_response=outcome.response,
                error=outcome.error,
                model=name,
                cached=cached,
                chunk=chunk,
            )
        )
        return outcome

    try:
        return await _retry_and_failover(job, model_input, call, sleep)
    except SpendLimitError:
        raise  # a limit is a hard stop: the fallback does not write a summary around it
    except SummarizationError as err:
        if config.fallback_model is None or (can_adapt and context_limit_error(err)):
            raise
        # The last rung of the ladder: one call of the fallback model on the same input.
        outcome = await call(config.fallback_model, model_input, "fallback", 1)
        if outcome.error is not None:
            raise SummarizationError(
                f"{err}; the fallback summarizer failed too: {outcome.error}"
            ) from outcome.error
        result = _result(outcome.response, model_input, attempts, "fallback")
        result.degraded = True
        return result


async def _retry_and_failover(
    job: _Job[M],
    model_input: list[M],
    call: Callable[[Any, list[M], Phase, int], Awaitable[_Outcome]],
    sleep: Callable[[float], Awaitable[None]],
) -> SummaryResult[M]:
    config, emit, attempts, masker = job.config, job.emit, job.attempts, job.masker
    # ---- primary phase -------------------------------------------------------------------------
    retry = config.retry
    if retry is None:
        primary = await call(config.model, model_input, "primary", 1)
        exhausted = False
    else:
        primary, exhausted = await _primary_with_retry(config, model_input, call, sleep, emit)

    # The primary phase's result, as Eino's generateWithRetry returns it: retries that ran out
    # wrap the last error as ``exceeds max retries: <error>``.
    if primary.error is not None and exhausted:
        primary = _Outcome(primary.response, _exhausted(primary.error))

    failover = config.failover
    should_failover = (failover.should_failover if failover else None) or default_should_failover
    if failover is None or not await call_maybe_async(
        should_failover, primary.response, primary.error
    ):
        if primary.error is not None:
            raise _generate_failed(primary.error)
        return _result(primary.response, model_input, attempts, "primary")

    max_failover = failover.max_retries if failover.max_retries is not None else DEFAULT_MAX_RETRIES
    if max_failover == 0:
        if primary.error is not None:
            raise _generate_failed(primary.error)
        return _result(primary.response, model_input, attempts, "primary")

    # ---- failover phase ------------------------------------------------------------------------
    last = primary  # attempt 1 is told the primary phase's response and error
    last_input = model_input
    last_model: Any = config.model
    backoff = failover.backoff or default_backoff

    async def failover_attempt(attempt: int) -> _Outcome:
        nonlocal last, last_input, last_model
        ctx = FailoverContext(
            attempt=attempt,
            system_instruction=job.system_instruction,
            user_instruction=job.user_instruction,
            original_messages=copy.deepcopy(job.messages),
            last_model_response=last.response,
            last_error=last.error,
        )
        model: Any = config.model
        inp = model_input
        outcome: _Outcome | None = None
        if failover.get_failover_model is not None:
            try:
                chosen = await call_maybe_async(failover.get_failover_model, ctx)
                model, chosen_input = chosen if chosen is not None else (None, None)
            except Exception as err:  # noqa: BLE001 - the attempt fails, the loop goes on
                outcome = _Outcome(error=SummarizationError(f"failed to get failover model: {err}"))
                outcome.error.__cause__ = err  # type: ignore[union-attr]
            else:
                if chosen_input:
                    inp = list(chosen_input)
                    if masker is not None:  # the callback's own input is masked too
                        inp = masker.mask_messages(inp)
                if model is None:
                    outcome = _Outcome(error=SummarizationError("failover model is required"))
        if outcome is not None:
            # No model call: the attempt fails, an event is sent, and the loop goes on.
            attempts.append(
                AttemptRecord("failover", attempt, "-", False, _err_text(outcome.error))
            )
            await emit(GenerateSummary(attempt=attempt, phase="failover", error=outcome.error))
        else:
            outcome = await call(model, inp, "failover", attempt)
            last_input, last_model = inp, model
        last = outcome
        return outcome

    final, rejected = await _run_phase(
        "failover",
        max_failover,
        failover_attempt,
        should_failover,
        backoff,
        sleep,
        emit,
        failover.max_delay,
    )
    if rejected:
        cause = final.error if final.error is not None else "model reply rejected"
        err = SummarizationError(f"exceeds max failover attempts: {cause}")
        if final.error is not None:
            raise err from final.error
        raise err
    if final.error is not None:
        # should_failover accepted a failed attempt: Eino returns its error as is (a partial
        # response that came with it is never a summary).
        if isinstance(final.error, SummarizationError):
            raise final.error
        raise SummarizationError(str(final.error)) from final.error
    result = _result(final.response, last_input, attempts, "failover")
    # A chain that ends on the embedded summarizer is degraded exactly like ``fallback: local``
    # (unless the primary is that summarizer too: then it is simply the model asked for).
    result.degraded = is_embedded(last_model) and not is_embedded(config.model)
    return result


async def _primary_with_retry(
    config: Config[Any],
    model_input: list[M],
    call: Callable[[Any, list[M], Phase, int], Awaitable[_Outcome]],
    sleep: Callable[[float], Awaitable[None]],
    emit: Emit,
) -> tuple[_Outcome, bool]:
    """Up to ``max_retries + 1`` calls; returns (last outcome, retries exhausted with error)."""
    retry = config.retry
    assert retry is not None
    max_retries = retry.max_retries if retry.max_retries is not None else DEFAULT_MAX_RETRIES

    async def attempt_fn(attempt: int) -> _Outcome:
        return await call(config.model, model_input, "primary", attempt)

    outcome, still_wanted = await _run_phase(
        "primary",
        max_retries + 1,
        attempt_fn,
        retry.should_retry or default_should_retry,
        retry.backoff or default_backoff,
        sleep,
        emit,
        retry.max_delay,
    )
    return outcome, still_wanted and max_retries > 0 and outcome.error is not None


async def _run_phase(
    phase: Phase,
    max_calls: int,
    attempt_fn: Callable[[int], Awaitable[_Outcome]],
    go_on: Callable[..., Any],
    backoff: Callable[..., Any],
    sleep: Callable[[float], Awaitable[None]],
    emit: Emit,
    max_delay: float | None = None,
) -> tuple[_Outcome, bool]:
    """Up to ``max_calls`` attempts on tenacity while ``go_on(response, error)`` says so.

    Waits come from ``backoff(attempt, response, error)``, capped at ``max_delay`` (None:
    :data:`DEFAULT_MAX_DELAY`), and are announced as ``RetryWait``. Returns the last outcome and
    whether ``go_on`` still wanted another attempt.
    """
    cap = DEFAULT_MAX_DELAY if max_delay is None else float(max_delay)
    counter = 0
    still_wanted = False

    async def attempt() -> _Outcome:
        nonlocal counter
        counter += 1
        return await attempt_fn(counter)

    async def should_go_on(retry_state: RetryCallState) -> bool:
        nonlocal still_wanted
        outcome: _Outcome = retry_state.outcome.result()  # type: ignore[union-attr]
        still_wanted = bool(await call_maybe_async(go_on, outcome.response, outcome.error))
        return still_wanted

    async def wait(retry_state: RetryCallState) -> float:
        # tenacity asks for the wait before checking stop: no backoff after the last attempt.
        if retry_state.attempt_number >= max_calls:
            return 0.0
        outcome: _Outcome = retry_state.outcome.result()  # type: ignore[union-attr]
        asked = await call_maybe_async(
            backoff, retry_state.attempt_number, outcome.response, outcome.error
        )
        return capped_delay(asked, cap)

    async def announce(retry_state: RetryCallState) -> None:
        delay = float(retry_state.upcoming_sleep)
        await emit(RetryWait(phase=phase, attempt=retry_state.attempt_number, delay=delay))

    outcome: _Outcome = await AsyncRetrying(
        stop=stop_after_attempt(max_calls),
        retry=should_go_on,
        wait=cast(Any, wait),
        sleep=sleep,
        before_sleep=announce,
        retry_error_callback=lambda state: state.outcome.result(),  # type: ignore[union-attr]
    )(attempt)
    return outcome, still_wanted


def oversized_reply(
    config: Config[Any], reply: Any, model_input: list[Any], model: str
) -> ModelError | None:
    """The error for a reply too long to be a summary of ``model_input``, else None.

    Too long: estimated above ``config.max_summary_tokens``, or above the whole input (the
    instructions included) and ``config.reply_reserve_tokens`` both. A model that rambles
    may not on the next try: the error is transient, so it is retried and failed over.
    """
    if not isinstance(reply, Message | AgenticMessage):
        return None
    tokens = estimate_message(reply)
    limit = max(input_tokens(model_input), config.reply_reserve_tokens)
    what = "its whole input"
    if config.max_summary_tokens is not None and config.max_summary_tokens < limit:
        limit, what = config.max_summary_tokens, "max_summary_tokens"
    if tokens <= limit:
        return None
    return ModelError(
        f"reply too long to be a summary: about {tokens:,} tokens, more than {what} "
        f"({limit:,} tokens)",
        kind="too_long",
        transient=True,
        model=model,
    )


def capped_delay(asked: Any, cap: float) -> float:
    """``asked`` seconds as a wait in ``[0, cap]``: whatever a backoff or a server's
    ``retry-after`` says (``inf``, ``nan``, a billion seconds, not a number), never longer."""
    try:
        seconds = float(asked)
    except (TypeError, ValueError, OverflowError):
        return cap
    if math.isnan(seconds):
        return cap
    return min(max(0.0, seconds), cap)


def is_embedded(model: Any) -> bool:
    """Whether ``model`` is an embedded stand-in (``embedded = True``, the local summarizer):
    a summary it writes after the configured models failed is degraded."""
    return getattr(model, "embedded", False) is True


def _exhausted(error: BaseException) -> SummarizationError:
    """The primary phase's error when retries ran out: ``exceeds max retries: <error>``."""
    err = SummarizationError(f"exceeds max retries: {error}")
    err.__cause__ = error
    return err


def _generate_failed(error: BaseException) -> SummarizationError:
    """The primary phase's error raised without failover: ``failed to generate summary: …``
    (``failed to generate summary: exceeds max retries: <last error>`` when retries ran out)."""
    err = SummarizationError(f"failed to generate summary: {error}")
    err.__cause__ = error
    return err


def _result(
    response: Any, model_input: list[M], attempts: list[AttemptRecord], phase: Phase
) -> SummaryResult[M]:
    return SummaryResult(response=response, model_input=model_input, attempts=attempts, phase=phase)


def _err_text(error: BaseException | None) -> str | None:
    if error is None:
        return None
    from ._util import redact

    return redact(f"{type(error).__name__}: {error}")
