"""The retry/failover engine (SPEC §6): one summarizer input through the primary model's
retries, then the failover models.

Retry and failover run on tenacity with an injected ``sleep``; each wait is announced with a
:class:`~compactor.events.RetryWait` event from tenacity's ``before_sleep`` hook, capped at the
phase's ``max_delay``. The engine makes no model call itself: the caller's ``call(model, input,
phase, attempt)`` does (:mod:`compactor.pipeline.ladder`: cache, spend guard, input form, circuit
breaker), and the engine decides from its :class:`Outcome` whether to wait and try again, fail
over, or stop. Errors keep Eino's wording (``exceeds max retries: …``, ``failed to generate
summary: …``).
"""

from __future__ import annotations

import copy
import math
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Generic, Protocol, SupportsFloat, SupportsIndex, cast

from compactor._json import JsonObject
from compactor._util import call_maybe_async, redact
from compactor.counting.config import (
    DEFAULT_MAX_DELAY,
    DEFAULT_MAX_RETRIES,
    Backoff,
    Config,
    FailoverContext,
    ShouldRetry,
)
from compactor.errors import ErrorKind, ModelError, SummarizationError
from compactor.events import Event, GenerateSummary, Phase, RetryWait
from compactor.models.base import ChatModel
from compactor.schema import M

from .replies import is_embedded

if TYPE_CHECKING:
    from tenacity import RetryCallState

    from compactor.secrets.masking import SecretMasker

__all__ = [
    "AttemptRecord",
    "Call",
    "Emit",
    "LadderState",
    "Outcome",
    "SummaryResult",
    "capped_delay",
    "default_backoff",
    "default_should_failover",
    "default_should_retry",
    "default_sleep",
    "embedded_crash",
    "error_text",
    "retry_and_failover",
]

Emit = Callable[[Event], Awaitable[None]]


def default_backoff(
    attempt: int, response: object = None, error: BaseException | None = None
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


def default_should_retry(response: object, error: BaseException | None) -> bool:
    """Retry when an error happened, except errors known to be permanent (400/401/404, ...)."""
    if error is None:
        return False
    if isinstance(error, ModelError):
        return error.transient
    return True


def default_should_failover(response: object, error: BaseException | None) -> bool:
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
    input_form: str = "messages"
    """``transcript`` when the conversation was sent as text
    (:mod:`compactor.pipeline.rendering`)."""


@dataclass(slots=True)
class SummaryResult(Generic[M]):
    """What the summarizer produced and the input that produced it."""

    response: M
    model_input: list[M]
    attempts: list[AttemptRecord] = field(default_factory=list)
    phase: Phase = "primary"
    chunks: list[JsonObject] = field(default_factory=list)
    """One record per chunk when the input was summarized in chunks (empty otherwise)."""
    adaptations: list[JsonObject] = field(default_factory=list)
    """Each re-plan after a context-length error: the window reported and the one planned with."""
    degraded: bool = False
    """The summary (or a chunk's) was written by a stand-in after the configured models
    failed: the ``fallback_model``, or an embedded summarizer in the failover chain."""
    learned: JsonObject = field(default_factory=dict)
    """What the run learned about its models, for the report (empty keys left out):
    ``circuit_breakers`` (model, kind, error, calls skipped), ``input_forms`` (model →
    ``transcript``), ``shorter_summary_requests``, ``cut_running_summaries``, ``token_scale``,
    ``verbatim_chunks`` (chunks kept as written: no reply was shorter)."""


@dataclass(slots=True)
class Outcome:
    """One attempt: the reply or the error (a partial reply may come with it)."""

    response: object = None
    """The model's reply, unchecked until ``refused`` passes it (then the input's message type)."""
    error: BaseException | None = None
    skipped: bool = False
    """No call was made: the model's circuit breaker is open."""


Call = Callable[[ChatModel, list[M], Phase, int], Awaitable["Outcome"]]
"""``call(model, input, phase, attempt)``: one attempt (a model call, a cache hit, or none when
the model's circuit breaker is open)."""


class LadderState(Protocol[M]):
    """What the engine reads of the summarization it runs for (:class:`compactor.pipeline.ladder.
    SummaryRun`): the config, where events go, the attempt records, and, for a failover
    callback, the history and the current instructions."""

    @property
    def config(self) -> Config[M]: ...

    @property
    def emit(self) -> Emit: ...

    @property
    def attempts(self) -> list[AttemptRecord]: ...

    @property
    def masker(self) -> SecretMasker | None: ...

    @property
    def messages(self) -> list[M]: ...

    @property
    def system_instruction(self) -> M: ...

    @property
    def user_instruction(self) -> M: ...

    def is_open(self, model: ChatModel) -> bool:
        """Whether ``model``'s circuit breaker is open (no retry then)."""
        ...


async def default_sleep(seconds: float) -> None:
    """``asyncio.sleep``: the clock when ``Config.sleep`` is None; a plain ``time.sleep`` in a
    run driven without an event loop (:func:`compactor.runs.run_reduce.loopless`: only the
    embedded summarizer, which awaits no I/O, so nothing else could run meanwhile)."""
    aio = sys.modules.get("asyncio")  # never imported: no loop can be running
    if aio is None or not _loop_running(aio):
        time.sleep(seconds)  # noqa: ASYNC251 - no loop runs: nothing else could run meanwhile
        return
    await aio.sleep(seconds)


def _loop_running(aio: ModuleType) -> bool:
    try:
        aio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def retry_and_failover(
    job: LadderState[M],
    model_input: list[M],
    call: Call[M],
    sleep: Callable[[float], Awaitable[None]],
) -> SummaryResult[M]:
    config, emit, attempts, masker = job.config, job.emit, job.attempts, job.masker
    # ---- primary phase -------------------------------------------------------------------------
    retry = config.retry
    if retry is None:
        primary = await call(config.model, model_input, "primary", 1)
        exhausted = False
    else:
        primary, exhausted = await _primary_with_retry(job, model_input, call, sleep)

    # The primary phase's result, as Eino's generateWithRetry returns it: retries that ran out
    # wrap the last error as ``exceeds max retries: <error>``.
    if primary.error is not None and exhausted:
        primary = Outcome(primary.response, _exhausted(primary.error))

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
    last_model: ChatModel = config.model
    backoff = failover.backoff or default_backoff

    async def failover_attempt(attempt: int) -> Outcome:
        nonlocal last, last_input, last_model
        model: ChatModel | None = config.model
        inp = model_input
        outcome: Outcome | None = None
        if failover.get_failover_model is not None:
            ctx = FailoverContext(  # user code: its own copy of the history
                attempt=attempt,
                system_instruction=job.system_instruction,
                user_instruction=job.user_instruction,
                original_messages=copy.deepcopy(job.messages),
                last_model_response=cast("M | None", last.response),  # the model's, as Eino
                last_error=last.error,
            )
            try:
                chosen = await call_maybe_async(failover.get_failover_model, ctx)
                model, chosen_input = chosen if chosen is not None else (None, None)
            except Exception as err:  # noqa: BLE001 - the attempt fails, the loop goes on
                outcome = Outcome(error=SummarizationError(f"failed to get failover model: {err}"))
                outcome.error.__cause__ = err  # type: ignore[union-attr]
            else:
                if chosen_input:
                    inp = list(chosen_input)
                    if masker is not None:  # the callback's own input is masked too
                        inp = masker.mask_messages(inp)
                if model is None:
                    outcome = Outcome(error=SummarizationError("failover model is required"))
        if outcome is not None:
            # No model call: the attempt fails, an event is sent, and the loop goes on.
            attempts.append(
                AttemptRecord("failover", attempt, "-", False, error_text(outcome.error))
            )
            await emit(GenerateSummary(attempt=attempt, phase="failover", error=outcome.error))
        else:
            assert model is not None  # else the attempt failed above without a call
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
    job: LadderState[M],
    model_input: list[M],
    call: Call[M],
    sleep: Callable[[float], Awaitable[None]],
) -> tuple[Outcome, bool]:
    """Up to ``max_retries + 1`` calls; returns (last outcome, retries exhausted with error).

    No retry once the model's circuit breaker is open, whatever ``should_retry`` says."""
    config = job.config
    retry = config.retry
    assert retry is not None
    max_retries = retry.max_retries if retry.max_retries is not None else DEFAULT_MAX_RETRIES
    should_retry = retry.should_retry or default_should_retry

    async def attempt_fn(attempt: int) -> Outcome:
        return await call(config.model, model_input, "primary", attempt)

    async def go_on(response: object, error: BaseException | None) -> bool:
        if job.is_open(config.model):
            return False
        return bool(await call_maybe_async(should_retry, response, error))

    outcome, still_wanted = await _run_phase(
        "primary",
        max_retries + 1,
        attempt_fn,
        go_on,
        retry.backoff or default_backoff,
        sleep,
        job.emit,
        retry.max_delay,
    )
    return outcome, still_wanted and max_retries > 0 and outcome.error is not None


async def _run_phase(
    phase: Phase,
    max_calls: int,
    attempt_fn: Callable[[int], Awaitable[Outcome]],
    go_on: ShouldRetry,
    backoff: Backoff,
    sleep: Callable[[float], Awaitable[None]],
    emit: Emit,
    max_delay: float | None = None,
) -> tuple[Outcome, bool]:
    """Up to ``max_calls`` attempts on tenacity while ``go_on(response, error)`` says so.

    Waits come from ``backoff(attempt, response, error)``, capped at ``max_delay`` (None:
    :data:`DEFAULT_MAX_DELAY`), and are announced as ``RetryWait``. Returns the last outcome and
    whether ``go_on`` still wanted another attempt.
    """
    cap = DEFAULT_MAX_DELAY if max_delay is None else float(max_delay)
    # The first attempt runs here, without tenacity: most phases end with it (the reply was
    # good), and importing tenacity (and the tornado it loads) is ~12 ms of every run's
    # start-up. Only when ``go_on`` wants another attempt does tenacity run, and its first
    # attempt then replays this one (neither the call nor ``go_on`` runs twice), so that the
    # calls, waits and events are exactly those of tenacity from the first attempt on.
    first = await attempt_fn(1)
    still_wanted = bool(await call_maybe_async(go_on, first.response, first.error))
    if not still_wanted:
        return first, False
    from tenacity import AsyncRetrying, stop_after_attempt

    counter = 0

    async def attempt() -> Outcome:
        nonlocal counter
        counter += 1
        if counter == 1:
            return first
        return await attempt_fn(counter)

    async def should_go_on(retry_state: RetryCallState) -> bool:
        nonlocal still_wanted
        if retry_state.attempt_number == 1:
            return True  # the first attempt's answer, asked above
        outcome: Outcome = retry_state.outcome.result()  # type: ignore[union-attr]
        still_wanted = bool(await call_maybe_async(go_on, outcome.response, outcome.error))
        return still_wanted

    async def wait(retry_state: RetryCallState) -> float:
        # tenacity asks for the wait before checking stop: no backoff after the last attempt.
        if retry_state.attempt_number >= max_calls:
            return 0.0
        outcome: Outcome = retry_state.outcome.result()  # type: ignore[union-attr]
        if outcome.skipped:
            return 0.0  # no call was made: nothing to wait for
        asked = await call_maybe_async(
            backoff, retry_state.attempt_number, outcome.response, outcome.error
        )
        return capped_delay(asked, cap)

    async def announce(retry_state: RetryCallState) -> None:
        if retry_state.outcome.result().skipped:  # type: ignore[union-attr]
            return
        delay = float(retry_state.upcoming_sleep)
        await emit(RetryWait(phase=phase, attempt=retry_state.attempt_number, delay=delay))

    outcome: Outcome = await AsyncRetrying(
        stop=stop_after_attempt(max_calls),
        retry=should_go_on,
        # AsyncRetrying awaits an async wait; its annotation names only the sync kind
        wait=cast("Callable[[RetryCallState], float]", wait),
        sleep=sleep,
        before_sleep=announce,
        retry_error_callback=lambda state: state.outcome.result(),  # type: ignore[union-attr]
    )(attempt)
    return outcome, still_wanted


def capped_delay(asked: object, cap: float) -> float:
    """``asked`` seconds as a wait in ``[0, cap]``: whatever a backoff or a server's
    ``retry-after`` says (``inf``, ``nan``, a billion seconds, not a number), never longer."""
    if not isinstance(asked, SupportsFloat | SupportsIndex | str | bytes | bytearray):
        return cap  # float() would raise TypeError
    try:
        seconds = float(asked)
    except (TypeError, ValueError, OverflowError):
        return cap
    if math.isnan(seconds):
        return cap
    return min(max(0.0, seconds), cap)


def embedded_crash(error: BaseException, name: str) -> ModelError:
    """What an exception raised by an embedded summarizer becomes (blind check 20): a bug in
    compact, not a failure of the model's service. The summarizer is deterministic, so the same
    input fails the same way: the error is not transient (no retry, no backoff) but
    persistent (its circuit breaker opens: it is not asked again in this run), and the
    configured fallback (if any) is asked at once. Its message names the crash, secrets redacted,
    no traceback."""
    what = redact(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)
    err = ModelError(
        f"the embedded summarizer {name!r} crashed ({what}); this is a bug in compact, "
        "not in the input: please report it",
        kind=ErrorKind.OTHER,
        transient=False,
        persistent=True,
        model=name,
    )
    err.__cause__ = error
    return err


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
    response: object, model_input: list[M], attempts: list[AttemptRecord], phase: Phase
) -> SummaryResult[M]:
    # A reply reaches here only once ``refused`` passed it: a message of the input's type.
    return SummaryResult(
        response=cast("M", response), model_input=model_input, attempts=attempts, phase=phase
    )


def error_text(error: BaseException | None) -> str | None:
    """``Type: message`` of ``error`` for records and reports, secrets redacted."""
    if error is None:
        return None
    return redact(f"{type(error).__name__}: {error}")
