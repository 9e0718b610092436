"""Summarizer input (SPEC §4) and the model calls with retry and failover (SPEC §6).

Retry and failover run on tenacity with an injected ``sleep``; each wait is announced with a
:class:`~compactor.events.RetryWait` event from tenacity's ``before_sleep`` hook. This module
emits events and never formats anything for a screen. It never mutates its input.

Beyond SPEC, so that any OpenAI-compatible server works, one summarization (one call of
:func:`generate_summary`, a "run") learns about its models as it goes:

* **Input form.** A model whose ``input_mode`` is ``auto`` (the OpenAI model's default) gets
  structured chat messages until its server refuses them with a schema-validation error
  (``ModelError.kind == "validation"``: llama.cpp's server refuses ``content: null``); the same
  call is then made again at once with the conversation rendered as a transcript in one user
  message (:mod:`compactor.rendering`), and so is every later call to that model in the run
  (:class:`~compactor.events.InputRendered`). ``transcript`` always renders; ``messages``, and
  models without the attribute, never do. A validation error is never retried as transient.
* **Learned tokenization.** Chunks are planned (:mod:`compactor.chunking`) with the default
  estimate times a scale: 1 at first, then the provider's own count divided by the estimate of
  the same input, taken from a context-length error that reports the count, or from the
  ``usage.prompt_tokens`` of a reply; a chunk fills at most 80 % of the window left after the
  reply reserve, and what is left to summarize is re-planned once the scale has moved by more
  than :data:`REPLAN_DRIFT`.
* **Replies cut at the token limit** (``kind == "length"``): the same input is asked again at
  once with a stricter instruction (:data:`~compactor.prompts.CONCISE_INSTRUCTION`, a word
  budget; a second time with half the budget) that the rest of the run keeps
  (:class:`~compactor.events.ShorterSummary`). Still cut: an intermediate chunk's reply is
  handed on as the running summary (it is cut to fit the next chunk anyway); otherwise, when
  the window cut it (llama.cpp lowers ``max_tokens`` to the room left), the input is re-planned
  in chunks of half the size (:data:`MAX_SHORTER_REPLANS` times), and a reply that ran into
  the request's own ``max_tokens`` goes up the ladder (failover, fallback, failure) at once: a
  model that talks past its cap does not stop for a smaller chunk. A cut reply is never the
  summary.
* **Circuit breaker** (``Config.circuit_breaker``, per model and run): a model that failed in
  a way that will recur is not called again in the run (:class:`~compactor.events.CircuitOpen`,
  then :class:`~compactor.events.ModelSkipped` for each call not made): at once for a
  ``persistent`` error (a connection that cannot be made, a refused key, an unknown model) and
  for a validation error the transcript did not cure; from the next summarizer input (chunk or
  re-plan) on after :data:`BREAKER_FAILURES` failed calls in a row. Never for a context-length
  error, a cut reply, or a single 5xx/429.
* **Summary check** (``Config.summary_check``): a reply below the floor is a failed attempt.
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

from ._util import call_maybe_async, input_for, model_name, redact
from .chunking import (
    PLANNING_MARGIN,
    SCALE_SAMPLE_MIN,
    ChunkPlan,
    brevity_words,
    clamp_scale,
    initial_brevity,
    input_tokens,
    instruction_text,
    needs_chunks,
    plan_summarizer_chunks,
    running_allowance,
    usable_tokens,
)
from .config import DEFAULT_MAX_DELAY, DEFAULT_MAX_RETRIES, Config, FailoverContext
from .errors import ModelError, SpendLimitError, SummarizationError
from .events import (
    AttemptStart,
    ChunkStart,
    CircuitOpen,
    ContextLimit,
    Event,
    GenerateSummary,
    InputRendered,
    ModelSkipped,
    Phase,
    RetryWait,
    ShorterSummary,
)
from .prompts import CHUNK_NOTE, PREVIOUS_SUMMARY, SYSTEM_INSTRUCTION
from .rendering import transcript_input
from .schema import (
    AgenticMessage,
    M,
    Message,
    assistant_text,
    make_system,
    make_user,
    message_kind,
    split_system,
    user_text,
    with_content_type,
)
from .tokens import estimate_message, estimate_text

__all__ = [
    "BREAKER_FAILURES",
    "MAX_BREVITY",
    "MAX_CONTEXT_ADAPTATIONS",
    "MAX_SHORTER_REPLANS",
    "REPLAN_DRIFT",
    "AttemptRecord",
    "SummaryResult",
    "capped_delay",
    "context_limit_error",
    "default_backoff",
    "default_should_failover",
    "default_should_retry",
    "generate_summary",
    "is_embedded",
    "oversized_reply",
    "reported_limit",
    "reported_prompt_tokens",
    "weak_reply",
]

Emit = Callable[[Event], Awaitable[None]]

MAX_CONTEXT_ADAPTATIONS = 2
"""How often a provider's context-length error re-plans the input in smaller chunks."""
MAX_SHORTER_REPLANS = 2
"""How often replies cut at the token limit (after the stricter instruction) halve the chunks."""
MAX_BREVITY = 2
"""How often a cut reply is asked again at once with a stricter instruction (per run)."""
REPLAN_DRIFT = 0.05
"""What is left to summarize is re-planned when the learned scale moved by more than this
share since the plan was made (re-planning after every chunk made a 224-chunk run 3x slower)."""
BREAKER_FAILURES = 3
"""Failed calls in a row (any failure but a context-length error or a cut or refused reply)
after which a model's breaker opens from the next summarizer input on."""

_UNTRIPPING = frozenset({"context_length", "length", "too_long", "weak_summary", "circuit_open"})
"""Failures that say nothing about the model's health: they never count toward the breaker."""


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
    input_form: str = "messages"
    """``transcript`` when the conversation was sent as text (:mod:`compactor.rendering`)."""


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
    learned: dict[str, Any] = field(default_factory=dict)
    """What the run learned about its models, for the report (empty keys left out):
    ``circuit_breakers`` (model, kind, error, calls skipped), ``input_forms`` (model →
    ``transcript``), ``shorter_summary_requests``, ``cut_running_summaries``, ``token_scale``."""


@dataclass(slots=True)
class _Outcome:
    response: Any = None
    error: BaseException | None = None
    skipped: bool = False
    """No call was made: the model's circuit breaker is open."""


ModelKey = tuple[str, str]


def _model_key(model: Any) -> ModelKey:
    """One breaker and one input form per model name and server."""
    return model_name(model), str(getattr(model, "base_url", None) or "")


@dataclass(slots=True)
class _Breaker:
    model: str
    error: BaseException
    skipped: int = 0


@dataclass(slots=True)
class _Job(Generic[M]):
    """What every model call of one summarization shares, and what the run learned."""

    config: Config[Any]
    messages: list[M]
    """The history being summarized (masked when masking is on)."""
    emit: Emit
    masker: Any
    system_instruction: M
    user_instruction: M
    attempts: list[AttemptRecord] = field(default_factory=list)
    masked: bool = False
    """``messages`` are masked already."""
    scale: float = 1.0
    """The provider's token count per estimated token (see the module docstring)."""
    brevity: int = 0
    """0: the configured instruction; 1-2: the stricter one (:func:`instruction_text`)."""
    shrink: float = 1.0
    """The share of the message budget chunks may use (halved after cut replies)."""
    breakers: dict[ModelKey, _Breaker] = field(default_factory=dict)
    failures: dict[ModelKey, tuple[int, str, BaseException]] = field(default_factory=dict)
    """Failed calls in a row per model (count, name, last error)."""
    rendered: dict[ModelKey, str] = field(default_factory=dict)
    """Models sent the transcript form in this run (key → name)."""
    switched: set[ModelKey] = field(default_factory=set)
    """``auto`` models that switched to the transcript after a validation error."""
    adaptations: list[dict[str, Any]] = field(default_factory=list)
    shorter: int = 0
    cut_kept: int = 0
    """Running summaries kept although cut at the token limit (intermediate chunks only)."""
    refused_tokens: int | None = None
    """The estimate of the last input refused as too long (for the learned scale)."""

    def count(self, msg: Any) -> int:
        """A message's estimated tokens times the learned scale."""
        return math.ceil(estimate_message(msg) * self.scale)

    def set_brevity(self, level: int) -> None:
        self.brevity = level
        kind = message_kind(self.messages)
        self.user_instruction = make_user(kind, instruction_text(self.config, level))

    def is_open(self, model: Any) -> bool:
        return self.config.circuit_breaker and _model_key(model) in self.breakers

    def form(self, model: Any) -> str:
        """``transcript`` or ``messages``: how ``model`` gets its input now."""
        if getattr(model, "input_mode", "messages") == "transcript":
            return "transcript"
        return "transcript" if _model_key(model) in self.switched else "messages"

    def learned(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.breakers:
            data["circuit_breakers"] = [
                {
                    "model": b.model,
                    "kind": getattr(b.error, "kind", type(b.error).__name__),
                    "error": _err_text(b.error),
                    "skipped_calls": b.skipped,
                }
                for b in self.breakers.values()
            ]
        if self.rendered:
            data["input_forms"] = dict.fromkeys(sorted(self.rendered.values()), "transcript")
        if self.shorter:
            data["shorter_summary_requests"] = self.shorter
        if self.cut_kept:
            data["cut_running_summaries"] = self.cut_kept
        if self.scale != 1.0:
            data["token_scale"] = round(self.scale, 3)
        return data


async def _default_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


async def build_model_input(
    config: Config[Any], messages: list[M], *, brevity: int = 0
) -> tuple[M, M, list[M]]:
    """(system instruction, user instruction, summarizer input) for ``messages`` (SPEC §4).

    ``brevity`` picks the instruction (:func:`instruction_text`)."""
    kind = message_kind(messages)
    system_instruction = make_system(kind, config.system_instruction or SYSTEM_INSTRUCTION)
    user_instruction = make_user(kind, instruction_text(config, brevity))
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
    # The caller's messages themselves: nothing here changes them, and a model that does not
    # promise to only read its input gets a copy when it is called (``input_for``).
    return system_instruction, user_instruction, [system_instruction, *context, user_instruction]


_LIMIT_RES = (
    re.compile(r"maximum context length is ([\d,]+) tokens", re.IGNORECASE),
    re.compile(r"context (?:length|window|size)(?: limit)? (?:of|is) ([\d,]+)", re.IGNORECASE),
    re.compile(r"available context size \(([\d,]+) tokens\)", re.IGNORECASE),
    re.compile(r"exceeds? (?:the )?context window of ([\d,]+)", re.IGNORECASE),
    re.compile(r"tokens > ([\d,]+) maximum", re.IGNORECASE),
)
_PROMPT_RES = (
    re.compile(r"your messages resulted in ([\d,]+) tokens", re.IGNORECASE),  # OpenAI
    re.compile(r"\(([\d,]+) in the messages", re.IGNORECASE),  # llama-cpp-python
    re.compile(r"requested tokens \(([\d,]+)\)", re.IGNORECASE),  # llama.cpp (python)
    re.compile(r"request \(([\d,]+) tokens\)", re.IGNORECASE),  # llama.cpp server
    re.compile(r"prompt is too long: ([\d,]+) tokens", re.IGNORECASE),  # Anthropic
)


def context_limit_error(error: BaseException | None) -> ModelError | None:
    """The provider's context-length error in ``error``'s cause chain, if there is one."""
    return _error_of_kind(error, "context_length")


def _error_of_kind(error: BaseException | None, kind: str) -> ModelError | None:
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModelError) and error.kind == kind:
            return error
        error = error.__cause__ or error.__context__
    return None


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


def reported_limit(error: ModelError) -> int | None:
    """The window size a context-length error names (``maximum context length is N``)."""
    if error.window:
        return error.window
    return _first_number(_LIMIT_RES, str(error))


def reported_prompt_tokens(error: ModelError) -> int | None:
    """The provider's own count of the refused input, when the error gives it (OpenAI: "your
    messages resulted in N tokens"; llama.cpp: "(N in the messages, …)")."""
    if error.prompt_tokens:
        return error.prompt_tokens
    return _first_number(_PROMPT_RES, str(error))


def _running_text(reply: Any, job: _Job[Any]) -> str:
    """The part of a chunk's reply handed to the next chunk: its <summary> block, capped."""
    text = assistant_text(reply) if reply is not None else ""
    start, end = text.find("<summary>"), text.rfind("</summary>")
    if 0 <= start < end:
        text = text[start + len("<summary>") : end].strip()
    cap = int(running_allowance(job.config) * 4 / job.scale)
    if len(text.encode("utf-8")) > cap:
        keep = max(cap // 2 - 64, 0)
        text = f"{text[:keep]}\n…[running summary cut to fit]…\n{text[-keep:] if keep else ''}"
    return text


async def generate_summary(
    config: Config[Any],
    messages: list[M],
    emit: Emit,
    *,
    masker: Any = None,
    masked: bool = False,
) -> SummaryResult[M]:
    """Call the model (retry, then failover, then the fallback model) and return the first
    acceptable reply.

    ``masker`` (a :class:`compactor.masking.SecretMasker`) masks the summarizer input;
    ``masked``: ``messages`` went through that masker already (the middleware masks the history
    once), so only what is added to them is masked, not a 50 MB history a second time. When
    ``config.summarizer_context_tokens`` is set and the input would not fit, the context is
    summarized in sequential chunks (SummaryResult.chunks says which messages each covered).
    When the provider refuses the input as too long for its window, the input is re-planned in
    chunks that fit the window it names (at most :data:`MAX_CONTEXT_ADAPTATIONS` times) before
    the fallback model is tried; replies cut at the token limit are asked again shorter and
    then re-planned in smaller chunks (see the module docstring).
    """
    brevity = initial_brevity(config) if config.gen_model_input is None else 0
    system_instruction, user_instruction, model_input = await build_model_input(
        config, messages, brevity=brevity
    )
    if masker is not None:
        done = {id(m) for m in messages} if masked else set()
        model_input = [m if id(m) in done else masker.mask_messages([m])[0] for m in model_input]
    job: _Job[M] = _Job(
        config, messages, emit, masker, system_instruction, user_instruction, masked=masked
    )
    job.brevity = brevity
    first: SummarizationError | None = None
    while True:
        try:
            if needs_chunks(job.config, model_input, job.scale, job.shrink):
                result = await _generate_chunked(job)
            else:
                result = await _generate_one(job, model_input)
        except SpendLimitError:
            raise  # a hard stop: nothing is re-planned around it
        except SummarizationError as err:
            if not await _adapt(job, err, model_input):
                if job.adaptations and first is not None and first is not err:
                    # Say first what the provider said, then why re-planning did not help.
                    planned = job.adaptations[-1]["planned_with"]
                    raise SummarizationError(
                        f"{first}; re-planned for {planned:,}-token inputs: {err}"
                    ) from err
                raise
            first = first or err
            if job.config.gen_model_input is None:
                model_input = _single_input(job)
            continue
        result.adaptations = job.adaptations
        result.learned = job.learned()
        return result


def _single_input(job: _Job[M]) -> list[M]:
    """The one-pass input with the run's current instruction (masked)."""
    context: list[M] = split_system(job.messages)[1]  # read only: no copy (see generate)
    if job.masker is not None and not job.masked:
        context = job.masker.mask_messages(context)
    out: list[M] = [job.system_instruction]
    out.extend(context)
    out.append(job.user_instruction)
    return out


def _adaptable(job: _Job[Any], error: BaseException | None) -> bool:
    """Whether :func:`_adapt` would re-plan after ``error`` (so the fallback waits)."""
    if job.config.gen_model_input is not None:
        return False
    causes = [a.get("cause", "context_length") for a in job.adaptations]
    if context_limit_error(error) is not None:
        return causes.count("context_length") < MAX_CONTEXT_ADAPTATIONS
    cut = _error_of_kind(error, "length")
    if cut is not None:
        return causes.count("length") < MAX_SHORTER_REPLANS and not _at_own_cap(job, cut)
    return False


def _at_own_cap(job: _Job[Any], cut: ModelError) -> bool:
    """Whether a cut reply stopped at the reply cap the request asked for (``max_tokens``):
    the model talked past what it was allowed, and a smaller chunk will not make it stop. A
    reply cut earlier was cut by the window (llama.cpp lowers ``max_tokens`` to the room
    left), and a smaller chunk leaves it more room."""
    options = job.config.model_options
    cap = options.get("max_tokens") or options.get("max_completion_tokens")
    usage = getattr(cut.partial_response, "usage", None)
    written = getattr(usage, "completion_tokens", 0) if usage is not None else 0
    return isinstance(cap, int) and cap > 0 and written >= cap


async def _adapt(job: _Job[Any], err: BaseException, sent: list[Any]) -> bool:
    """Re-plan after a context-length error or replies cut at the token limit: learn the scale
    and the window, or halve the chunks. False when there is nothing (left) to try."""
    if not _adaptable(job, err):
        return False
    config = job.config
    limit_error = context_limit_error(err)
    if limit_error is not None:
        reported = reported_limit(limit_error)
        counted = reported_prompt_tokens(limit_error)
        estimate = job.refused_tokens or input_tokens(sent)
        learned: float | None = None
        if counted and estimate:
            learned = job.scale = clamp_scale(counted / estimate)
        if reported:
            window = reported
            before = config.summarizer_context_tokens
            if learned is None and before is not None and before <= reported:
                window = before // 2  # planned for this window already, and it overflowed
        else:
            window = max(math.ceil(estimate * job.scale) // 2, 1)
            if config.summarizer_context_tokens is not None:
                window = min(window, config.summarizer_context_tokens // 2)
        job.config = dataclasses.replace(
            config,
            summarizer_context_tokens=max(window, 1),
            reply_reserve_tokens=min(config.reply_reserve_tokens, max(window, 1) // 4),
        )
        record: dict[str, Any] = {"reported": reported, "planned_with": usable_tokens(job.config)}
        if learned is not None:
            record["scale"] = round(learned, 3)
        planned = usable_tokens(job.config)
        event = ContextLimit(reported=reported, planned_with=planned, scale=learned)
    else:
        if config.summarizer_context_tokens is None:
            # No window known: the one the cut input just used (so the chunks halve it).
            used = input_tokens(sent, job.scale)
            window = math.ceil(used / PLANNING_MARGIN) + config.reply_reserve_tokens
            job.config = dataclasses.replace(config, summarizer_context_tokens=window)
        job.shrink /= 2
        planned = math.floor(usable_tokens(job.config) * job.shrink)
        record = {"reported": None, "planned_with": planned, "cause": "length"}
        event = ContextLimit(reported=None, planned_with=planned, cause="length")
    job.adaptations.append(record)
    level = max(job.brevity, initial_brevity(job.config, job.scale))
    if level != job.brevity:
        job.set_brevity(level)
    await job.emit(event)
    return True


async def _generate_chunked(job: _Job[M]) -> SummaryResult[M]:
    """Summarize the context in sequential chunks. What is left is re-planned when the learned
    scale moved by more than :data:`REPLAN_DRIFT` since the plan was made, and after a
    re-plannable failure (the same chunk again, smaller)."""
    from .planning import truncate_to_budget

    messages, masker = job.messages, job.masker
    kind = message_kind(messages)
    system_messages, context = split_system(messages)
    offset = len(system_messages)
    if masker is not None and not job.masked:
        context = masker.mask_messages(context)
    pos = 0
    index = 0
    running: str | None = None
    result: SummaryResult[M] | None = None
    chunk_records: list[dict[str, Any]] = []
    degraded = False
    plan: ChunkPlan | None = None
    planned_at = (0, 1.0, 0)  # (position, scale, brevity) the plan was made for
    taken = 0  # chunks of the plan done
    while pos < len(context):
        instruction = user_text(job.user_instruction)
        at, scale, brevity = planned_at
        if (
            plan is None
            or taken >= len(plan.chunks)
            or brevity != job.brevity
            or abs(job.scale / scale - 1) > REPLAN_DRIFT
        ):
            plan = plan_summarizer_chunks(
                job.config,
                context[pos:],
                job.system_instruction,
                job.user_instruction,
                scale=job.scale,
                shrink=job.shrink,
            )
            planned_at, taken = (pos, job.scale, job.brevity), 0
            at = pos
        chunk = plan.chunks[taken]
        index += 1
        total = index + len(plan.chunks) - taken - 1
        part = context[at + chunk.start : at + chunk.end]
        if chunk.oversized:
            part = truncate_to_budget(part, plan.budget, job.count)
        previous = (
            f" The summary of parts 1-{index - 1} is in <previous_summary> above."
            if running
            else ""
        )
        note = CHUNK_NOTE.format(index=index, total=total, previous=previous)
        chunk_input: list[M] = [job.system_instruction]
        if running:
            previous_msg = make_user(kind, PREVIOUS_SUMMARY.format(upto=index - 1, text=running))
            # internal: never quoted back as one of the user's own messages
            chunk_input.append(with_content_type(previous_msg, "summary"))
        chunk_input.extend(part)
        chunk_input.append(make_user(kind, f"{note}\n\n{instruction}"))
        tokens = input_tokens(chunk_input, job.scale)
        start, end = at + chunk.start + offset, at + chunk.end + offset
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
        try:
            last = taken == len(plan.chunks) - 1
            result = await _generate_one(job, chunk_input, chunk=index, running=not last)
        except SummarizationError as err:
            if await _adapt(job, err, chunk_input):
                index -= 1  # the same chunk again, re-planned
                plan = None
                continue
            raise
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
        running = _running_text(result.response, job)
        pos = at + chunk.end
        taken += 1
    assert result is not None
    # PreserveSkills scans what the model saw: all chunks together.
    full: list[M] = [job.system_instruction]
    full.extend(context)
    full.append(job.user_instruction)
    result.model_input = full
    result.chunks = chunk_records
    result.degraded = degraded
    if any(r["phase"] == "fallback" for r in chunk_records):
        result.phase = "fallback"
    return result


def _stricter(inp: list[M], old: str, new: str) -> list[M] | None:
    """``inp`` with the instruction ``old`` at the end of its last (user) message replaced by
    ``new``; None when the input does not end with it (a custom ``gen_model_input``)."""
    if not inp or inp[-1].role != "user":
        return None
    last = inp[-1]
    text = user_text(last)
    if not text.endswith(old):
        return None
    replaced: M = make_user(type(last), text[: len(text) - len(old)] + new)
    out = list(inp[:-1])
    out.append(replaced)
    return out


def _breaks(job: _Job[Any], model: Any, error: BaseException | None) -> bool:
    """Whether ``error`` from ``model`` opens its breaker at once."""
    if not isinstance(error, ModelError) or error.kind in _UNTRIPPING:
        return False
    if error.persistent or error.kind in ("auth", "not_found"):
        return True
    # A validation error the transcript did not cure (or that no transcript will try to).
    return error.kind == "validation" and (
        getattr(model, "input_mode", "messages") != "auto" or _model_key(model) in job.switched
    )


async def _open(job: _Job[Any], key: ModelKey, name: str, error: BaseException) -> None:
    if not job.config.circuit_breaker or key in job.breakers:
        return
    job.breakers[key] = _Breaker(name, error)
    await job.emit(CircuitOpen(model=name, error=error))


async def _generate_one(
    job: _Job[M],
    model_input: list[M],
    *,
    chunk: int | None = None,
    running: bool = False,
) -> SummaryResult[M]:
    """One summarizer input through retry, failover and the fallback model.

    A failure :func:`generate_summary` can re-plan (context length, cut replies) is raised
    instead of falling back, so that the input is re-planned in smaller chunks first.
    ``running``: the reply is only a running summary for the next chunk (not the last chunk),
    so a reply still cut after the stricter instruction is kept as that (it is cut to fit the
    next chunk anyway); the summary itself is never a cut reply.
    """
    config, emit, attempts = job.config, job.emit, job.attempts
    sleep = config.sleep or _default_sleep
    cache = config.cache
    kind = message_kind(model_input) if model_input else message_kind(job.messages)
    # Models that failed BREAKER_FAILURES calls in a row are not asked again from here on.
    for key, (failed, name, last_error) in job.failures.items():
        if failed >= BREAKER_FAILURES:
            await _open(job, key, name, last_error)

    async def send(model: Any, inp: list[M], phase: Phase, attempt: int) -> _Outcome:
        """One model call (or cache hit) of ``inp`` in the model's current form."""
        name = model_name(model)
        form = job.form(model)
        sent = transcript_input(inp) if form == "transcript" else inp
        if form == "transcript":
            job.rendered[_model_key(model)] = name
        await emit(AttemptStart(phase=phase, attempt=attempt, model=name, chunk=chunk))
        outcome = _Outcome()
        key: str | None = None
        cached = False
        if cache is not None:
            from .cache import cache_key, model_endpoint

            key = cache_key(name, config.model_options, sent, model_endpoint(model))
            outcome.response = cache.get(key, kind)
            cached = outcome.response is not None
        if not cached and config.spend is not None and not is_embedded(model):
            try:
                config.spend.charge(input_tokens(sent), name)
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
                outcome.response = await model.generate(
                    input_for(model, sent), **config.model_options
                )
            except Exception as err:  # noqa: BLE001 - a failed call is data for retry/failover
                outcome.error = err
                if isinstance(err, ModelError):
                    # What the model did send with its error (Eino hands (resp, err) on).
                    outcome.response = err.partial_response
            if outcome.error is None:
                outcome.error = oversized_reply(
                    config, outcome.response, inp, name, last_rung=phase == "fallback"
                ) or weak_reply(config, outcome.response, name)
                if outcome.error is not None:
                    outcome.response = None  # a 300 MB reply is not kept for failover
            if key is not None and outcome.error is None:
                cache.put(key, name, outcome.response)
            if outcome.error is None and phase != "fallback":
                _learn_scale(job, outcome.response, sent)
            elif context_limit_error(outcome.error) is not None:
                job.refused_tokens = input_tokens(sent)
        attempts.append(
            AttemptRecord(
                phase,
                attempt,
                name,
                outcome.error is None,
                _err_text(outcome.error),
                cached,
                chunk,
                form,
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
                input_form=form,
            )
        )
        return outcome

    async def call(model: Any, inp: list[M], phase: Phase, attempt: int) -> _Outcome:
        """``send``, unless the model's breaker is open; asked again at once in the transcript
        form after a validation error (``auto``), and shorter after a cut reply."""
        key = _model_key(model)
        name = model_name(model)
        if job.is_open(model):
            breaker = job.breakers[key]
            breaker.skipped += 1
            await emit(ModelSkipped(phase=phase, attempt=attempt, model=name, chunk=chunk))
            skipped = ModelError(
                f"circuit open: {name} is not called again in this run after "
                f"{_err_text(breaker.error)}",
                kind="circuit_open",
                model=name,
            )
            return _Outcome(error=skipped, skipped=True)
        outcome = await send(model, inp, phase, attempt)
        error: BaseException | None = outcome.error
        if (
            isinstance(error, ModelError)
            and error.kind == "validation"
            and getattr(model, "input_mode", "messages") == "auto"
            and key not in job.switched
        ):
            job.switched.add(key)
            await emit(InputRendered(model=name, error=error))
            outcome = await send(model, inp, phase, attempt)
        error = outcome.error
        if isinstance(error, ModelError) and error.kind == "length" and job.brevity < MAX_BREVITY:
            old = user_text(job.user_instruction)
            job.set_brevity(job.brevity + 1)
            shorter = _stricter(inp, old, user_text(job.user_instruction))
            if shorter is not None:
                job.shorter += 1
                words = brevity_words(job.config, job.brevity)
                await emit(ShorterSummary(model=name, words=words, chunk=chunk))
                outcome = await send(model, shorter, phase, attempt)
        error = outcome.error
        if (
            running
            and isinstance(error, ModelError)
            and error.kind == "length"
            and error.partial_response is not None
        ):
            job.cut_kept += 1
            outcome = _Outcome(response=error.partial_response)
            error = None
        if error is None:
            job.failures.pop(key, None)
        elif not (isinstance(error, ModelError) and error.kind in _UNTRIPPING):
            failed = job.failures.get(key, (0, name, error))[0] + 1
            job.failures[key] = (failed, name, error)
        if _breaks(job, model, error):
            assert error is not None
            await _open(job, key, name, error)
        return outcome

    try:
        return await _retry_and_failover(job, model_input, call, sleep)
    except SpendLimitError:
        raise  # a limit is a hard stop: the fallback does not write a summary around it
    except SummarizationError as err:
        if config.fallback_model is None or _adaptable(job, err):
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


def _learn_scale(job: _Job[Any], reply: Any, sent: list[Any]) -> None:
    """The provider's ``usage.prompt_tokens`` per estimated token of ``sent``, when the input
    was large enough for the count to mean something."""
    usage = getattr(reply, "usage", None)
    counted = getattr(usage, "prompt_tokens", 0) if usage is not None else 0
    if not isinstance(counted, int) or counted <= 0:
        return
    estimate = input_tokens(sent)
    if estimate >= SCALE_SAMPLE_MIN:
        job.scale = clamp_scale(counted / estimate)


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
        primary, exhausted = await _primary_with_retry(job, model_input, call, sleep)

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
        model: Any = config.model
        inp = model_input
        outcome: _Outcome | None = None
        if failover.get_failover_model is not None:
            ctx = FailoverContext(  # user code: its own copy of the history
                attempt=attempt,
                system_instruction=job.system_instruction,
                user_instruction=job.user_instruction,
                original_messages=copy.deepcopy(job.messages),
                last_model_response=last.response,
                last_error=last.error,
            )
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
    job: _Job[M],
    model_input: list[M],
    call: Callable[[Any, list[M], Phase, int], Awaitable[_Outcome]],
    sleep: Callable[[float], Awaitable[None]],
) -> tuple[_Outcome, bool]:
    """Up to ``max_retries + 1`` calls; returns (last outcome, retries exhausted with error).

    No retry once the model's circuit breaker is open, whatever ``should_retry`` says."""
    config = job.config
    retry = config.retry
    assert retry is not None
    max_retries = retry.max_retries if retry.max_retries is not None else DEFAULT_MAX_RETRIES
    should_retry = retry.should_retry or default_should_retry

    async def attempt_fn(attempt: int) -> _Outcome:
        return await call(config.model, model_input, "primary", attempt)

    async def go_on(response: Any, error: BaseException | None) -> bool:
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
    config: Config[Any], reply: Any, model_input: list[Any], model: str, *, last_rung: bool = False
) -> ModelError | None:
    """The error for a reply too long to be a summary of ``model_input``, else None.

    Too long: estimated above ``config.max_summary_tokens``, or above the whole input (the
    instructions included) and ``config.reply_reserve_tokens`` both. A model that rambles
    may not on the next try: the error is transient, so it is retried and failed over.
    ``last_rung`` (the fallback model: compact's own deterministic summarizer, whose nine
    section headings can outweigh a small chunk) is held to ``max_summary_tokens`` only.
    """
    if not isinstance(reply, Message | AgenticMessage):
        return None
    tokens = estimate_message(reply)
    limit: float = max(input_tokens(model_input), config.reply_reserve_tokens)
    if last_rung:
        limit = math.inf
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


def weak_reply(config: Config[Any], reply: Any, model: str) -> ModelError | None:
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
            kind="weak_summary",
            transient=True,
            model=model,
        )
    if check.require_sections and "<summary>" not in text.lower():
        return ModelError(
            "reply is not a summary: no <summary> block (summary_check.require_sections)",
            kind="weak_summary",
            transient=True,
            model=model,
        )
    return None


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
    return redact(f"{type(error).__name__}: {error}")
