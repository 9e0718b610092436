"""Summarizer input (SPEC §4) and the model calls with retry and failover (SPEC §6).

Retry and failover run on tenacity with an injected ``sleep``; each wait is announced with a
:class:`~compactor.events.RetryWait` event from tenacity's ``before_sleep`` hook. This module
emits events and never formats anything for a screen. It never mutates its input.
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, cast

from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from ._util import call_maybe_async, model_name
from .config import DEFAULT_MAX_RETRIES, Config, FailoverContext
from .errors import ModelError, SummarizationError
from .events import AttemptStart, Event, GenerateSummary, Phase, RetryWait
from .prompts import SYSTEM_INSTRUCTION, USER_INSTRUCTION
from .schema import M, make_system, make_user, message_kind

__all__ = [
    "AttemptRecord",
    "SummaryResult",
    "default_backoff",
    "default_should_failover",
    "default_should_retry",
    "generate_summary",
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

    A server's ``retry-after`` (carried by :class:`ModelError`) wins when it is given.
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


@dataclass(slots=True)
class SummaryResult(Generic[M]):
    """What the summarizer produced and the input that produced it."""

    response: M
    model_input: list[M]
    attempts: list[AttemptRecord] = field(default_factory=list)
    phase: Phase = "primary"


@dataclass(slots=True)
class _Outcome:
    response: Any = None
    error: BaseException | None = None


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


async def generate_summary(config: Config[Any], messages: list[M], emit: Emit) -> SummaryResult[M]:
    """Call the model (retry, then failover) and return the first acceptable reply."""
    system_instruction, user_instruction, model_input = await build_model_input(config, messages)
    sleep = config.sleep or _default_sleep
    attempts: list[AttemptRecord] = []

    async def call(model: Any, inp: list[M], phase: Phase, attempt: int) -> _Outcome:
        name = model_name(model)
        await emit(AttemptStart(phase=phase, attempt=attempt, model=name))
        outcome = _Outcome()
        try:
            outcome.response = await model.generate(copy.deepcopy(inp), **config.model_options)
        except Exception as err:  # noqa: BLE001 - a failed call is data for retry/failover
            outcome.error = err
        attempts.append(
            AttemptRecord(phase, attempt, name, outcome.error is None, _err_text(outcome.error))
        )
        await emit(
            GenerateSummary(
                attempt=attempt,
                phase=phase,
                model_response=outcome.response,
                error=outcome.error,
                model=name,
            )
        )
        return outcome

    # ---- primary phase -------------------------------------------------------------------------
    retry = config.retry
    if retry is None:
        primary = await call(config.model, model_input, "primary", 1)
        exhausted = False
    else:
        primary, exhausted = await _primary_with_retry(config, model_input, call, sleep, emit)

    failover = config.failover
    should_failover = (failover.should_failover if failover else None) or default_should_failover
    if failover is None or not await call_maybe_async(
        should_failover, primary.response, primary.error
    ):
        if primary.error is not None:
            raise _primary_error(primary.error, exhausted)
        return _result(primary.response, model_input, attempts, "primary")

    max_failover = failover.max_retries if failover.max_retries is not None else DEFAULT_MAX_RETRIES
    if max_failover == 0:
        if primary.error is not None:
            raise _primary_error(primary.error, exhausted)
        return _result(primary.response, model_input, attempts, "primary")

    # ---- failover phase ------------------------------------------------------------------------
    last = primary
    last_input = model_input
    backoff = failover.backoff or default_backoff

    async def failover_attempt(attempt: int) -> _Outcome:
        nonlocal last, last_input
        ctx = FailoverContext(
            attempt=attempt,
            system_instruction=system_instruction,
            user_instruction=user_instruction,
            original_messages=copy.deepcopy(messages),
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
            last_input = inp
        last = outcome
        return outcome

    final, rejected = await _run_phase(
        "failover", max_failover, failover_attempt, should_failover, backoff, sleep, emit
    )
    if rejected:
        cause = final.error if final.error is not None else "model reply rejected"
        err = SummarizationError(f"exceeds max failover attempts: {cause}")
        if final.error is not None:
            raise err from final.error
        raise err
    return _result(final.response, last_input, attempts, "failover")


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
) -> tuple[_Outcome, bool]:
    """Up to ``max_calls`` attempts on tenacity while ``go_on(response, error)`` says so.

    Waits come from ``backoff(attempt, response, error)`` and are announced as ``RetryWait``.
    Returns the last outcome and whether ``go_on`` still wanted another attempt.
    """
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
        return float(
            await call_maybe_async(
                backoff, retry_state.attempt_number, outcome.response, outcome.error
            )
        )

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


def _primary_error(error: BaseException, exhausted: bool) -> SummarizationError:
    if exhausted:
        err = SummarizationError(f"exceeds max retries: {error}")
    else:
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
