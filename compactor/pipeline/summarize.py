"""Summarizer input (SPEC §4) and one summarization: a single call, or sequential chunks
re-planned when a context-length error or a cut reply says the plan was wrong.

The calls themselves go up the ladder in :mod:`compactor.pipeline.ladder` (primary with retries,
failover models, fallback); the retry/failover engine is :mod:`compactor.pipeline.retry`; what a
reply or an error says is read in :mod:`compactor.pipeline.replies`; chunk sizes come from
:mod:`compactor.pipeline.chunking`. This module emits events and never formats anything for a
screen. It never mutates its input.

Beyond SPEC, so that any OpenAI-compatible server works, one summarization (one call of
:func:`generate_summary`, a "run") learns about its models as it goes:

* **Input form.** A model whose ``input_mode`` is ``auto`` (the OpenAI model's default) gets
  structured chat messages until its server refuses them with a schema-validation error
  (``ModelError.kind == "validation"``: llama.cpp's server refuses ``content: null``); the same
  call is then made again at once with the conversation rendered as a transcript in one user
  message (:mod:`compactor.pipeline.rendering`), and so is every later call to that model in the run
  (:class:`~compactor.events.InputRendered`). ``transcript`` always renders; ``messages``, and
  models without the attribute, never do. A validation error is never retried as transient.
* **Learned tokenization.** Chunks are planned (:mod:`compactor.pipeline.chunking`) with the default
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
  in chunks of half the size (:data:`~compactor.pipeline.ladder.MAX_SHORTER_REPLANS` times), and a
  reply that ran into the request's own ``max_tokens`` goes up the ladder (failover, fallback,
  failure) at once: a model that talks past its cap does not stop for a smaller chunk. A cut
  reply is never the summary.
* **Circuit breaker** (``Config.circuit_breaker``, per model and run): a model that failed in
  a way that will recur is not called again in the run (:class:`~compactor.events.CircuitOpen`,
  then :class:`~compactor.events.ModelSkipped` for each call not made): at once for a
  ``persistent`` error (a connection that cannot be made, a refused key, an unknown model) and
  for a validation error the transcript did not cure; from the next summarizer input (chunk or
  re-plan) on after :data:`~compactor.pipeline.ladder.BREAKER_FAILURES` failed calls in a row. Never
  for a context-length error, a cut reply, or a single 5xx/429.
* **Summary check** (``Config.summary_check``): a reply below the floor is a failed attempt.
* **A summary is never longer than what it replaces.** A chunk's request caps ``max_tokens``
  at what its reply replaces (:func:`~compactor.pipeline.ladder.capped_options`), and a longer reply
  is refused as too long; when no reply to a chunk is shorter than it (refused or still cut, and
  no failover or fallback wrote one), the chunk's rendered text stands in for its summary
  (:data:`VERBATIM_NOTE`), the summary carries every part so kept, and
  ``learned["verbatim_chunks"]`` lists them.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject
from compactor._util import call_maybe_async
from compactor.counting.config import Config
from compactor.errors import ErrorKind, SpendLimitError, SummarizationError
from compactor.events import ChunkStart, ContextLimit
from compactor.models.base import KEPT_AFTER_SUMMARY
from compactor.prompts import CHUNK_NOTE, PREVIOUS_SUMMARY, SYSTEM_INSTRUCTION
from compactor.schema import (
    AgenticMessage,
    M,
    Message,
    assistant_text,
    make_assistant,
    make_system,
    make_user,
    message_kind,
    split_system,
    user_text,
    with_content_type,
)

from .chunking import (
    PLANNING_MARGIN,
    ChunkPlan,
    clamp_scale,
    initial_brevity,
    input_tokens,
    instruction_text,
    needs_chunks,
    plan_summarizer_chunks,
    running_allowance,
    usable_tokens,
)
from .ladder import SummaryRun, adaptable, summarize_input
from .rendering import render_transcript
from .replies import context_limit_error, error_of_kind, reported_limit, reported_prompt_tokens
from .retry import Emit, SummaryResult

if TYPE_CHECKING:
    from compactor.secrets.masking import SecretMasker

__all__ = ["REPLAN_DRIFT", "VERBATIM_NOTE", "build_model_input", "generate_summary"]

REPLAN_DRIFT = 0.05
"""What is left to summarize is re-planned when the learned scale moved by more than this
share since the plan was made (re-planning after every chunk made a 224-chunk run 3x slower)."""


async def build_model_input(
    config: Config[M], messages: list[M], *, brevity: int = 0
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


VERBATIM_NOTE = (
    "Part {index} of the conversation, kept as written (no summary of it was shorter than it):"
)
"""What precedes a chunk kept as written in the summary (:func:`generate_summary`)."""


def _running_text(reply: M | None, job: SummaryRun[M]) -> str:
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
    config: Config[M],
    messages: list[M],
    emit: Emit,
    *,
    masker: SecretMasker | None = None,
    masked: bool = False,
) -> SummaryResult[M]:
    """Call the model (retry, then failover, then the fallback model) and return the first
    acceptable reply.

    ``masker`` (a :class:`compactor.secrets.masking.SecretMasker`) masks the summarizer input;
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
        del done  # 2.7 MB for a 21,775-message history: not kept while the request is sent
    job: SummaryRun[M] = SummaryRun(
        config, messages, emit, masker, system_instruction, user_instruction, masked=masked
    )
    job.brevity = brevity
    first: SummarizationError | None = None
    while True:
        try:
            if needs_chunks(job.config, model_input, job.scale, job.shrink):
                result = await _generate_chunked(job)
            else:
                result = await summarize_input(job, model_input)
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


def _single_input(job: SummaryRun[M]) -> list[M]:
    """The one-pass input with the run's current instruction (masked)."""
    context: list[M] = split_system(job.messages)[1]  # read only: no copy (see generate)
    if job.masker is not None and not job.masked:
        context = job.masker.mask_messages(context)
    out: list[M] = [job.system_instruction]
    out.extend(context)
    out.append(job.user_instruction)
    return out


async def _adapt(job: SummaryRun[M], err: BaseException, sent: list[M]) -> bool:
    """Re-plan after a context-length error or replies cut at the token limit: learn the scale
    and the window, or halve the chunks. False when there is nothing (left) to try."""
    if not adaptable(job, err):
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
        record: JsonObject = {"reported": reported, "planned_with": usable_tokens(job.config)}
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


def _not_shorter(err: BaseException) -> bool:
    """Whether ``err`` says the replies to a chunk were not shorter than it: refused as too
    long, or cut at the request's cap (which is the chunk's size)."""
    return (
        error_of_kind(err, ErrorKind.TOO_LONG) is not None
        or error_of_kind(err, ErrorKind.LENGTH) is not None
    )


def _verbatim_text(index: int, part: Sequence[Message | AgenticMessage]) -> str:
    """Chunk ``index`` kept as written (no reply to it was shorter than it): a note, then its
    messages as a transcript (:func:`~compactor.pipeline.rendering.render_transcript`)."""
    return f"{VERBATIM_NOTE.format(index=index)}\n\n{render_transcript(part)}"


def _with_parts(text: str, parts: list[str]) -> str:
    """``text`` (a summary) with ``parts`` (chunks kept as written) at the end of its
    ``<summary>`` block, else at its end."""
    extra = "\n\n".join(parts)
    end = text.rfind("</summary>")
    if end >= 0:
        head = text[:end].rstrip()
        return (
            f"{head}\n\n{extra}\n{text[end:]}"
            if head != "<summary>"
            else f"{head}\n{extra}\n{text[end:]}"
        )
    return f"{text.rstrip()}\n\n{extra}"


async def _generate_chunked(job: SummaryRun[M]) -> SummaryResult[M]:
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
    chunk_records: list[JsonObject] = []
    degraded = False
    kept: list[str] = []  # the rendered text of the chunks (but the last) kept as written
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
        last = taken == len(plan.chunks) - 1
        # only the last part is followed by the kept tail (models.base.KEPT_AFTER_SUMMARY)
        hidden = None if last else KEPT_AFTER_SUMMARY.set(())
        try:
            result = await summarize_input(job, chunk_input, chunk=index, running=not last)
        except SpendLimitError:
            raise
        except SummarizationError as err:
            if await _adapt(job, err, chunk_input):
                index -= 1  # the same chunk again, re-planned
                plan = None
                continue
            if not _not_shorter(err):
                raise
            # No reply was shorter than the chunk: the chunk itself stands in for its summary,
            # after the summary of the parts before it (and, at the end, every part so kept).
            own = _verbatim_text(index, part)
            text = _with_parts(
                f"<summary>\n{running or ''}\n</summary>", [*kept, own] if last else [own]
            )
            kept = [] if last else [*kept, own]
            result = SummaryResult(
                response=make_assistant(kind, text), model_input=chunk_input, attempts=job.attempts
            )
            job.verbatim.append(index)
        finally:
            if hidden is not None:
                KEPT_AFTER_SUMMARY.reset(hidden)
        degraded = degraded or result.degraded
        record = {
            "index": index,
            "start": start,
            "end": end,
            "messages": end - start,
            "tokens": chunk.tokens,
            "input_tokens": tokens,
            "oversized": chunk.oversized,
            "phase": result.phase,
        }
        if job.verbatim and job.verbatim[-1] == index:
            record["kept_verbatim"] = True
        chunk_records.append(record)
        running = _running_text(result.response, job)
        pos = at + chunk.end
        taken += 1
    assert result is not None
    if kept:
        # The parts kept as written reached the later chunks through a capped running
        # summary only: the summary carries them whole.
        result.response = make_assistant(
            kind, _with_parts(assistant_text(result.response), kept), result.response.usage
        )
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
