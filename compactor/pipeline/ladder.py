"""One summarizer input up the ladder: the primary model with its retries, the failover models
(:mod:`compactor.pipeline.retry`), then the fallback model; and what one summarization (a "run")
learns about its models on the way (see :mod:`compactor.pipeline.summarize` for the rules).

:class:`SummaryRun` holds a run's state. :func:`summarize_input` makes each call through the
summary cache, the spend guard, the model's input form (messages, or a transcript after a
validation error), a stricter instruction after a cut reply, and the circuit breaker.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, cast

from compactor._json import JsonObject, JsonValue
from compactor._util import input_for, model_name
from compactor.counting.config import Config
from compactor.counting.tokens import estimate_message
from compactor.errors import ErrorKind, ModelError, SpendLimitError, SummarizationError
from compactor.events import (
    AttemptStart,
    CircuitOpen,
    GenerateSummary,
    InputRendered,
    ModelSkipped,
    Phase,
    ShorterSummary,
)
from compactor.models.base import INPUT_TOKENS, KEPT_AFTER_SUMMARY, ChatModel
from compactor.schema import AgenticMessage, M, Message, make_user, message_kind, user_text

from .chunking import (
    SCALE_SAMPLE_MIN,
    brevity_words,
    clamp_scale,
    input_tokens,
    instruction_text,
)
from .rendering import transcript_input
from .replies import (
    context_limit_error,
    error_of_kind,
    is_embedded,
    oversized_reply,
    reply_limit,
    weak_reply,
)
from .retry import (
    AttemptRecord,
    Emit,
    Outcome,
    SummaryResult,
    default_sleep,
    embedded_crash,
    error_text,
    retry_and_failover,
)

if TYPE_CHECKING:
    from compactor.secrets.masking import SecretMasker

__all__ = [
    "BREAKER_FAILURES",
    "MAX_BREVITY",
    "MAX_CONTEXT_ADAPTATIONS",
    "MAX_SHORTER_REPLANS",
    "ModelKey",
    "SummaryRun",
    "adaptable",
    "capped_options",
    "model_key",
    "replaced_tokens",
    "summarize_input",
]

MAX_CONTEXT_ADAPTATIONS = 2
"""How often a provider's context-length error re-plans the input in smaller chunks."""


MAX_SHORTER_REPLANS = 2
"""How often replies cut at the token limit (after the stricter instruction) halve the chunks."""


MAX_BREVITY = 2
"""How often a cut reply is asked again at once with a stricter instruction (per run)."""


BREAKER_FAILURES = 3
"""Failed calls in a row (any failure but a context-length error or a cut or refused reply)
after which a model's breaker opens from the next summarizer input on."""


_UNTRIPPING = frozenset(
    {
        ErrorKind.CONTEXT_LENGTH,
        ErrorKind.LENGTH,
        ErrorKind.TOO_LONG,
        ErrorKind.WEAK_SUMMARY,
        ErrorKind.CIRCUIT_OPEN,
    }
)
"""Failures that say nothing about the model's health: they never count toward the breaker."""


ModelKey = tuple[str, str]


def model_key(model: ChatModel) -> ModelKey:
    """One breaker and one input form per model name and server."""
    return model_name(model), str(getattr(model, "base_url", None) or "")


class _Serialising(Protocol):
    """A model that serialises its own requests: the body is built once, sent per attempt."""

    def request_body(self, messages: list[M], **options: JsonValue) -> object: ...

    async def send_body(
        self, body: object, kind: type[Message | AgenticMessage], **options: JsonValue
    ) -> object: ...


@dataclass(slots=True)
class _Breaker:
    model: str
    error: BaseException
    skipped: int = 0


@dataclass(slots=True)
class SummaryRun(Generic[M]):
    """What every model call of one summarization shares, and what the run learned."""

    config: Config[M]
    messages: list[M]
    """The history being summarized (masked when masking is on)."""
    emit: Emit
    masker: SecretMasker | None
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
    adaptations: list[JsonObject] = field(default_factory=list)
    shorter: int = 0
    cut_kept: int = 0
    """Running summaries kept although cut at the token limit (intermediate chunks only)."""
    refused_tokens: int | None = None
    """The estimate of the last input refused as too long (for the learned scale)."""
    reply_cap: int | None = None
    """The ``max_tokens`` the last chunk request was capped at (:func:`capped_options`)."""
    verbatim: list[int] = field(default_factory=list)
    """Chunks kept as their rendered text: no reply to them was shorter than they are."""

    def count(self, msg: Message | AgenticMessage) -> int:
        """A message's estimated tokens times the learned scale."""
        return math.ceil(estimate_message(msg) * self.scale)

    def set_brevity(self, level: int) -> None:
        self.brevity = level
        kind = message_kind(self.messages)
        self.user_instruction = make_user(kind, instruction_text(self.config, level))

    def is_open(self, model: ChatModel) -> bool:
        return self.config.circuit_breaker and model_key(model) in self.breakers

    def form(self, model: ChatModel) -> str:
        """``transcript`` or ``messages``: how ``model`` gets its input now."""
        if getattr(model, "input_mode", "messages") == "transcript":
            return "transcript"
        return "transcript" if model_key(model) in self.switched else "messages"

    def learned(self) -> JsonObject:
        data: JsonObject = {}
        if self.breakers:
            data["circuit_breakers"] = [
                {
                    "model": b.model,
                    "kind": getattr(b.error, "kind", type(b.error).__name__),
                    "error": error_text(b.error),
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
        if self.verbatim:
            data["verbatim_chunks"] = list(self.verbatim)
        return data


def replaced_tokens(chunk_input: Sequence[Message | AgenticMessage]) -> int:
    """The estimated tokens of what a chunk's reply replaces: its input but the system
    instruction (first) and the chunk's note with the user instruction (last)."""
    return input_tokens(chunk_input[1:-1])


def capped_options(
    job: SummaryRun[M], model_input: Sequence[Message | AgenticMessage]
) -> JsonObject:
    """The model options for a chunk's request, its reply capped at what a reply to
    ``model_input`` may be (:func:`~compactor.pipeline.replies.reply_limit`, in the server's
    tokens): a summary never has to be longer than what it replaces, and a small server asked for
    more may talk past the chunk's size on every try. The cap goes in ``max_completion_tokens``
    when the config uses that key, else ``max_tokens``; a smaller configured cap stays."""
    options = job.config.model_options
    limit, _ = reply_limit(job.config, model_input, replaced=replaced_tokens(model_input))
    cap = max(math.ceil(limit * job.scale), 1)
    key = "max_completion_tokens" if "max_completion_tokens" in options else "max_tokens"
    configured = options.get(key)
    if isinstance(configured, int) and not isinstance(configured, bool) and 0 < configured <= cap:
        job.reply_cap = configured
        return options
    job.reply_cap = cap
    return {**options, key: cap}


def adaptable(job: SummaryRun[M], error: BaseException | None) -> bool:
    """Whether :func:`compactor.pipeline.summarize` would re-plan after ``error`` (so the fallback
    waits)."""
    if job.config.gen_model_input is not None:
        return False
    causes = [a.get("cause", "context_length") for a in job.adaptations]
    if context_limit_error(error) is not None:
        return causes.count("context_length") < MAX_CONTEXT_ADAPTATIONS
    cut = error_of_kind(error, ErrorKind.LENGTH)
    if cut is not None:
        return causes.count("length") < MAX_SHORTER_REPLANS and not _at_own_cap(job, cut)
    return False


def _at_own_cap(job: SummaryRun[M], cut: ModelError) -> bool:
    """Whether a cut reply stopped at the reply cap the request asked for (``max_tokens``):
    the model talked past what it was allowed, and a smaller chunk will not make it stop. A
    reply cut earlier was cut by the window (llama.cpp lowers ``max_tokens`` to the room
    left), and a smaller chunk leaves it more room."""
    options = job.config.model_options
    cap = job.reply_cap or options.get("max_tokens") or options.get("max_completion_tokens")
    usage = getattr(cut.partial_response, "usage", None)
    written = getattr(usage, "completion_tokens", 0) if usage is not None else 0
    return isinstance(cap, int) and cap > 0 and written >= cap


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


def _breaks(job: SummaryRun[M], model: ChatModel, error: BaseException | None) -> bool:
    """Whether ``error`` from ``model`` opens its breaker at once."""
    if not isinstance(error, ModelError) or error.kind in _UNTRIPPING:
        return False
    if error.persistent or error.kind in (ErrorKind.AUTH, ErrorKind.NOT_FOUND):
        return True
    # A validation error the transcript did not cure (or that no transcript will try to).
    return error.kind == ErrorKind.VALIDATION and (
        getattr(model, "input_mode", "messages") != "auto" or model_key(model) in job.switched
    )


async def _open(job: SummaryRun[M], key: ModelKey, name: str, error: BaseException) -> None:
    if not job.config.circuit_breaker or key in job.breakers:
        return
    job.breakers[key] = _Breaker(name, error)
    await job.emit(CircuitOpen(model=name, error=error))


async def summarize_input(
    job: SummaryRun[M],
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
    sleep = config.sleep or default_sleep
    cache = config.cache
    kind = message_kind(model_input) if model_input else message_kind(job.messages)
    # Models that failed BREAKER_FAILURES calls in a row are not asked again from here on.
    for key, (failed, name, last_error) in job.failures.items():
        if failed >= BREAKER_FAILURES:
            await _open(job, key, name, last_error)

    prepared: dict[tuple[int, int, str], tuple[list[M], str | None, object, JsonObject]] = {}

    def prepare(
        model: ChatModel, inp: list[M], sent: list[M], form: str, options: JsonObject
    ) -> tuple[str | None, object]:
        """(cache key, request body) of ``sent``, built once for all the attempts of one input
        to one model. A model that serialises its own requests (``request_body``) is sent those
        bytes, and the cache key hashes the same bytes."""
        slot = (id(model), id(inp), form)
        hit = prepared.get(slot)
        if hit is not None and hit[0] is inp and hit[3] == options:
            return hit[1], hit[2]
        key: str | None = None
        body: object = None
        if cache is not None:
            from .cache import request_key

            # a summary written with the kept tail in view is cached for that tail only
            reads = getattr(model, "reads_kept_tail", False)
            kept: list[Message | AgenticMessage] = list(KEPT_AFTER_SUMMARY.get()) if reads else []
            key, body = request_key(model, model_name(model), options, [*sent, *kept])
        elif callable(getattr(model, "request_body", None)):
            body = cast("_Serialising", model).request_body(sent, **options)
        prepared.clear()  # one at a time: a 50 MB body is not kept for the next model
        prepared[slot] = (inp, key, body, options)
        return key, body

    async def send(model: ChatModel, inp: list[M], phase: Phase, attempt: int) -> Outcome:
        """One model call (or cache hit) of ``inp`` in the model's current form."""
        name = model_name(model)
        form = job.form(model)
        sent = transcript_input(inp) if form == "transcript" else inp
        last_rung = phase == "fallback"
        options = config.model_options
        if chunk is not None and not last_rung:
            options = capped_options(job, inp)
        elif not last_rung:
            job.reply_cap = None
        if form == "transcript":
            job.rendered[model_key(model)] = name
        await emit(AttemptStart(phase=phase, attempt=attempt, model=name, chunk=chunk))
        outcome = Outcome()
        key, body = prepare(model, inp, sent, form, options)
        cached = False

        counted: list[int] = []  # input_tokens(inp), once for the reply checks and the scale

        def inp_tokens() -> int:
            if not counted:
                counted.append(input_tokens(inp))
            return counted[0]

        def refused(reply: object) -> ModelError | None:
            """What a reply (fresh or cached) fails of the run's reply checks, if anything."""
            replaced = replaced_tokens(inp) if chunk is not None else None
            return oversized_reply(
                config, reply, inp, name, last_rung=last_rung, replaced=replaced,
                input_size=inp_tokens,
            ) or weak_reply(config, reply, name)  # fmt: skip

        if cache is not None and key is not None:
            # A hit goes through the checks a fresh reply does; a refused one is a miss.
            outcome.response = cache.get(key, kind, name, lambda r: refused(r) is None)
            cached = outcome.response is not None
        if not cached and config.spend is not None and not is_embedded(model):
            try:
                config.spend.charge(input_tokens(sent), name)
            except SpendLimitError as err:
                # Not sent: the attempt is recorded and the run stops (no retry, no failover).
                attempts.append(
                    AttemptRecord(phase, attempt, name, False, error_text(err), False, chunk)
                )
                await emit(
                    GenerateSummary(
                        attempt=attempt, phase=phase, error=err, model=name, chunk=chunk
                    )
                )
                raise
        if not cached:
            try:
                if body is not None:
                    serialising = cast("_Serialising", model)  # a body comes from such a model
                    outcome.response = await serialising.send_body(
                        body, message_kind(sent), **options
                    )
                else:
                    handed = input_for(model, sent)  # counted once: the reply checks need it
                    told = INPUT_TOKENS.set((handed, inp_tokens()) if handed is inp else None)
                    try:
                        outcome.response = await model.generate(handed, **options)
                    finally:
                        INPUT_TOKENS.reset(told)
            except Exception as err:  # noqa: BLE001 - a failed call is data for retry/failover
                outcome.error = err
                if isinstance(err, ModelError):
                    # What the model did send with its error (Eino hands (resp, err) on).
                    outcome.response = err.partial_response
                elif is_embedded(model):  # a bug: the same input fails the same way
                    outcome.error = embedded_crash(err, name)
            if outcome.error is None:
                outcome.error = refused(outcome.response)
                if outcome.error is not None:
                    outcome.response = None  # a 300 MB reply is not kept for failover
            if cache is not None and key is not None and outcome.error is None:
                cache.put(key, name, outcome.response)
            if outcome.error is None and phase != "fallback":
                _learn_scale(job, outcome.response, sent, inp_tokens if sent is inp else None)
            elif context_limit_error(outcome.error) is not None:
                job.refused_tokens = input_tokens(sent)
        attempts.append(
            AttemptRecord(
                phase,
                attempt,
                name,
                outcome.error is None,
                error_text(outcome.error),
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

    async def call(model: ChatModel, inp: list[M], phase: Phase, attempt: int) -> Outcome:
        """``send``, unless the model's breaker is open; asked again at once in the transcript
        form after a validation error (``auto``), and shorter after a cut reply."""
        key = model_key(model)
        name = model_name(model)
        if job.is_open(model):
            breaker = job.breakers[key]
            breaker.skipped += 1
            await emit(ModelSkipped(phase=phase, attempt=attempt, model=name, chunk=chunk))
            skipped = ModelError(
                f"circuit open: {name} is not called again in this run after "
                f"{error_text(breaker.error)}",
                kind=ErrorKind.CIRCUIT_OPEN,
                model=name,
            )
            return Outcome(error=skipped, skipped=True)
        outcome = await send(model, inp, phase, attempt)
        error: BaseException | None = outcome.error
        if (
            isinstance(error, ModelError)
            and error.kind == ErrorKind.VALIDATION
            and getattr(model, "input_mode", "messages") == "auto"
            and key not in job.switched
        ):
            job.switched.add(key)
            await emit(InputRendered(model=name, error=error))
            outcome = await send(model, inp, phase, attempt)
        error = outcome.error
        if (
            isinstance(error, ModelError)
            and error.kind == ErrorKind.LENGTH
            and job.brevity < MAX_BREVITY
        ):
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
            and error.kind == ErrorKind.LENGTH
            and error.partial_response is not None
        ):
            job.cut_kept += 1
            outcome = Outcome(response=error.partial_response)
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
        return await retry_and_failover(job, model_input, call, sleep)
    except SpendLimitError:
        raise  # a limit is a hard stop: the fallback does not write a summary around it
    except SummarizationError as err:
        if config.fallback_model is None or adaptable(job, err):
            raise
        # The last rung of the ladder: one call of the fallback model on the same input.
        outcome = await call(config.fallback_model, model_input, "fallback", 1)
        if outcome.error is not None:
            raise SummarizationError(
                f"{err}; the fallback summarizer failed too: {outcome.error}"
            ) from outcome.error
        result = SummaryResult(  # its error is None: a reply of the input's type
            response=cast("M", outcome.response),
            model_input=model_input,
            attempts=attempts,
            phase="fallback",
        )
        result.degraded = True
        return result


def _learn_scale(
    job: SummaryRun[M],
    reply: object,
    sent: Sequence[Message | AgenticMessage],
    estimated: Callable[[], int] | None = None,
) -> None:
    """The provider's ``usage.prompt_tokens`` per estimated token of ``sent``, when the input
    was large enough for the count to mean something (``estimated``: gives ``sent``'s
    :func:`input_tokens`, counted already)."""
    usage = getattr(reply, "usage", None)
    counted = getattr(usage, "prompt_tokens", 0) if usage is not None else 0
    if not isinstance(counted, int) or counted <= 0:
        return
    estimate = input_tokens(sent) if estimated is None else estimated()
    if estimate >= SCALE_SAMPLE_MIN:
        job.scale = clamp_scale(counted / estimate)
