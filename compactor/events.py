"""Events the core emits (SPEC §8), as plain dataclasses.

The core never renders anything: it calls ``on_event`` with these objects and the CLI (or any
other consumer) decides how to show them. ``to_dict()`` gives JSON-safe data; errors become
``{"type": ..., "message": ...}`` with secrets removed (plus ``kind`` and ``transient`` for a
:class:`~compactor.errors.ModelError`).

Order within one summarization::

    before_summarize → (attempt_start → generate_summary → retry_wait?)* → after_summarize

Reduction (:mod:`compactor.reduction`, SPEC §10) emits ``before_reduce`` → ``after_reduce``
(counts and tokens freed), before the summarization's events when both run.

``attempt_start`` is ours (not in Eino): it lets a live view show which model is being called
while the call is in flight. So are the events of the robustness features beyond Eino:
``chunk_start`` (chunked summarization), ``context_limit`` (a re-plan), ``input_rendered`` (a
server refused structured messages: the transcript from now on), ``shorter_summary`` (a reply
cut at the token limit is asked again), ``circuit_open`` and ``model_skipped`` (the per-run
circuit breaker).

A run of a file (:mod:`compactor.runs.runner`) adds three events of its own around those:
``transcript_read`` → ``trigger_checked`` → (the summarization's events) → ``run_finished``,
the last one for every outcome, failures and interrupts included (:data:`RunEvent`);
``cache_refused`` before the summarization when the summary cache's folder is unsafe; and
``unknown_records`` after ``transcript_read``, a warning per record type the reader did not
know and kept as metadata (a Claude Code record with no ``message``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from compactor._json import JsonObject

from ._util import MaybeAwaitable, redact
from .errors import ModelError

if TYPE_CHECKING:
    from .schema import AgenticMessage, Message

__all__ = [
    "AfterReduce",
    "AfterSummarize",
    "AttemptStart",
    "BeforeReduce",
    "BeforeSummarize",
    "CacheRefused",
    "ChunkStart",
    "CircuitOpen",
    "ContextLimit",
    "Event",
    "EventSink",
    "GenerateSummary",
    "HybridOutcome",
    "InputRendered",
    "ModelSkipped",
    "Phase",
    "RetryWait",
    "RunEvent",
    "RunEventSink",
    "RunFinished",
    "ShorterSummary",
    "TranscriptRead",
    "TriggerChecked",
    "UnknownRecords",
    "WindowAssumed",
    "error_to_dict",
]

Phase = Literal["primary", "failover", "fallback"]
"""``fallback`` is ours: the last rung of the ladder (``Config.fallback_model``)."""


def error_to_dict(error: BaseException | None) -> JsonObject | None:
    """An error as JSON-safe data: its type name and (redacted) message; a ModelError also gives
    its ``kind`` and ``transient``, so a consumer need not parse the message."""
    if error is None:
        return None
    data: JsonObject = {"type": type(error).__name__, "message": redact(str(error))}
    if isinstance(error, ModelError):
        data["kind"] = str(error.kind)  # the plain string (ErrorKind is a StrEnum)
        data["transient"] = error.transient
    return data


@dataclass(frozen=True, slots=True)
class BeforeSummarize:
    """The trigger fired (or a manual summarize started); ``messages`` is the history.

    The middleware passes a :class:`~compactor.schema.HistoryView`: a read-only sequence that
    hands out copies of the messages as they are read, so the history is not copied for a sink
    that only counts it, and no sink can change it.
    """

    messages: Sequence[Message | AgenticMessage]
    type: Literal["before_summarize"] = "before_summarize"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "messages": len(self.messages)}


def _call_dict(event: AttemptStart | ModelSkipped) -> JsonObject:
    """A model call (made or skipped) as JSON: type, phase, attempt, model, and its chunk."""
    data: JsonObject = {
        "type": event.type,
        "phase": event.phase,
        "attempt": event.attempt,
        "model": event.model,
    }
    if event.chunk is not None:
        data["chunk"] = event.chunk
    return data


@dataclass(frozen=True, slots=True)
class AttemptStart:
    """A model call is about to start (attempt counts from 1 within its phase)."""

    phase: Phase
    attempt: int
    model: str
    chunk: int | None = None
    """1-based chunk number when the input is summarized in chunks, else None."""
    type: Literal["attempt_start"] = "attempt_start"

    def to_dict(self) -> JsonObject:
        return _call_dict(self)


@dataclass(frozen=True, slots=True)
class GenerateSummary:
    """After every model call (success or failure) and every failed failover-model lookup."""

    attempt: int
    phase: Phase
    model_response: object = None
    """What the model returned (checked later: a user's model may return anything)."""
    error: BaseException | None = None
    model: str | None = None
    cached: bool = False
    """The reply came from the summary cache: no model call was made."""
    chunk: int | None = None
    input_form: str = "messages"
    """``transcript``: the conversation was sent as text in one user message
    (:mod:`compactor.pipeline.rendering`); ``messages``: as structured chat messages."""
    type: Literal["generate_summary"] = "generate_summary"

    def to_dict(self) -> JsonObject:
        usage = getattr(self.model_response, "usage", None)
        data: JsonObject = {
            "type": self.type,
            "phase": self.phase,
            "attempt": self.attempt,
            "model": self.model,
            "ok": self.error is None,
            "error": error_to_dict(self.error),
            "usage": dataclasses.asdict(usage) if usage is not None else None,
        }
        if self.cached:
            data["cached"] = True
        if self.chunk is not None:
            data["chunk"] = self.chunk
        if self.input_form != "messages":
            data["input_form"] = self.input_form
        return data


@dataclass(frozen=True, slots=True)
class RetryWait:
    """A wait of ``delay`` seconds is about to start after failed ``attempt`` of ``phase``."""

    phase: Phase
    attempt: int
    delay: float
    type: Literal["retry_wait"] = "retry_wait"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "phase": self.phase,
            "attempt": self.attempt,
            "delay": round(self.delay, 3),
        }


@dataclass(frozen=True, slots=True)
class ChunkStart:
    """Chunked summarization: chunk ``index`` of ``total`` covers messages [start, end)."""

    index: int
    total: int
    start: int
    end: int
    tokens: int
    """The whole request of this chunk (instructions, running summary, messages)."""
    oversized: bool = False
    """The chunk alone exceeds the budget: its longest texts were cut to fit."""
    chunk_tokens: int = 0
    """The chunk's own messages, as planned: the figure ``check --explain`` shows."""
    type: Literal["chunk_start"] = "chunk_start"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "index": self.index,
            "total": self.total,
            "start": self.start,
            "end": self.end,
            "tokens": self.tokens,
            "chunk_tokens": self.chunk_tokens,
            "oversized": self.oversized,
        }


@dataclass(frozen=True, slots=True)
class ContextLimit:
    """The provider refused the input as too long: it is re-planned in chunks of
    ``planned_with`` tokens (``reported`` is the window the error named, when it named one;
    ``scale`` is the ratio of the provider's own count to compact's estimate, when the error
    gave the count, by which every estimate is multiplied from then on)."""

    reported: int | None
    planned_with: int
    scale: float | None = None
    cause: Literal["context_length", "length"] = "context_length"
    """``length``: not a refusal but replies cut at the token limit even with the strictest
    instruction, so the input is split in smaller chunks."""
    type: Literal["context_limit"] = "context_limit"

    def to_dict(self) -> JsonObject:
        data: JsonObject = {
            "type": self.type,
            "reported": self.reported,
            "planned_with": self.planned_with,
        }
        if self.scale is not None:
            data["scale"] = round(self.scale, 3)
        if self.cause != "context_length":
            data["cause"] = self.cause
        return data


@dataclass(frozen=True, slots=True)
class InputRendered:
    """``model`` refused the structured chat messages (``error``, a schema-validation error):
    it gets the conversation as a transcript in one user message for the rest of the run, and
    the same call is made again at once in that form."""

    model: str
    error: BaseException
    type: Literal["input_rendered"] = "input_rendered"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "model": self.model, "error": error_to_dict(self.error)}


@dataclass(frozen=True, slots=True)
class ShorterSummary:
    """``model``'s reply was cut at the token limit: the same input is asked again at once
    with a stricter instruction (a concise summary of at most ``words`` words), and the rest of
    the run keeps that instruction."""

    model: str
    words: int
    chunk: int | None = None
    type: Literal["shorter_summary"] = "shorter_summary"

    def to_dict(self) -> JsonObject:
        data: JsonObject = {"type": self.type, "model": self.model, "words": self.words}
        if self.chunk is not None:
            data["chunk"] = self.chunk
        return data


@dataclass(frozen=True, slots=True)
class CircuitOpen:
    """``model``'s circuit breaker opened: it failed in a way that will recur (``error``: a
    connection that cannot be made, a refused key, an unknown model, a validation error the
    transcript did not cure, or several failed calls in a row), so it is not asked again for
    the rest of the run."""

    model: str
    error: BaseException
    type: Literal["circuit_open"] = "circuit_open"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "model": self.model, "error": error_to_dict(self.error)}


@dataclass(frozen=True, slots=True)
class ModelSkipped:
    """A call to ``model`` was not made because its circuit breaker is open (no request)."""

    phase: Phase
    attempt: int
    model: str
    chunk: int | None = None
    type: Literal["model_skipped"] = "model_skipped"

    def to_dict(self) -> JsonObject:
        return _call_dict(self)


@dataclass(frozen=True, slots=True)
class BeforeReduce:
    """Reduction (SPEC §10) starts: the history's size, its tool results and its tokens."""

    messages: int
    tool_results: int
    tokens: int
    type: Literal["before_reduce"] = "before_reduce"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            **{k: v for k, v in dataclasses.asdict(self).items() if k != "type"},
        }


@dataclass(frozen=True, slots=True)
class AfterReduce:
    """Reduction is done: results truncated and cleared, the tokens before and after it, and
    why clearing did nothing (``clear_skipped``; None when it cleared)."""

    truncated: int
    cleared: int
    tokens_before: int
    tokens_after: int
    clear_skipped: str | None = None
    kept: int = 0
    """Results left as they were: their placeholder would have been longer."""
    tokens_before_usage: int | None = None
    """The count before from the provider's usage (``tokens_before`` is then the text's
    estimate, counted as ``tokens_after`` is); None when before was counted that way already."""
    truncated_then_cleared: int = 0
    """Results counted in both ``truncated`` and ``cleared`` (one placeholder each)."""
    job_ends_kept: int = 0
    """Short results not cleared because they report that a background job ended."""
    type: Literal["after_reduce"] = "after_reduce"

    @property
    def tokens_freed(self) -> int:
        return self.tokens_before - self.tokens_after

    def to_dict(self) -> JsonObject:
        data = {k: v for k, v in dataclasses.asdict(self).items() if k != "type"}
        return {"type": self.type, **data, "tokens_freed": self.tokens_freed}


@dataclass(frozen=True, slots=True)
class AfterSummarize:
    """Last event: the new history, after finalize and after the callback."""

    messages: list[Message] | list[AgenticMessage]
    type: Literal["after_summarize"] = "after_summarize"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "messages": len(self.messages)}


Event: TypeAlias = (
    BeforeSummarize
    | AttemptStart
    | GenerateSummary
    | RetryWait
    | ChunkStart
    | ContextLimit
    | InputRendered
    | ShorterSummary
    | CircuitOpen
    | ModelSkipped
    | AfterSummarize
    | BeforeReduce
    | AfterReduce
)
EventSink: TypeAlias = Callable[[Event], MaybeAwaitable[None]]


@dataclass(frozen=True, slots=True)
class TranscriptRead:
    """A run read its input: ``messages`` model-visible messages in ``format``."""

    path: str
    format: str
    messages: int
    records: int
    type: Literal["transcript_read"] = "transcript_read"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "path": self.path,
            "format": self.format,
            "messages": self.messages,
            "records": self.records,
        }


@dataclass(frozen=True, slots=True)
class TriggerChecked:
    """A run decided whether to summarize (``forced``: ``--force`` summarizes anyway)."""

    triggered: bool
    forced: bool
    reason: str
    tokens: int | None
    messages: int
    type: Literal["trigger_checked"] = "trigger_checked"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "triggered": self.triggered,
            "forced": self.forced,
            "reason": self.reason,
            "tokens": self.tokens,
            "messages": self.messages,
        }


@dataclass(frozen=True, slots=True)
class WindowAssumed:
    """A run plans its summarizer input for a window it assumed: ``model`` is unknown to
    compact and has no ``model.context_tokens``, so its requests are cut to ``tokens``."""

    model: str
    tokens: int
    type: Literal["window_assumed"] = "window_assumed"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "model": self.model, "tokens": self.tokens}


@dataclass(frozen=True, slots=True)
class UnknownRecords:
    """A warning, not an error: ``count`` records of a ``record_type`` the reader does not
    know, the first at ``line``, hold no conversation (no ``message``): they are kept as they
    are, as metadata, and counted nowhere (one event per type)."""

    path: str
    format: str
    record_type: str
    line: int
    count: int
    type: Literal["unknown_records"] = "unknown_records"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "path": self.path,
            "format": self.format,
            "record_type": self.record_type,
            "line": self.line,
            "count": self.count,
        }

    def message(self) -> str:
        """The warning's one line."""
        more = f" ({self.count} records, the first here)" if self.count > 1 else ""
        return (
            f"compact: warning: {self.path}:{self.line}: unknown {self.format} record type "
            f"{self.record_type!r}{more} has no message: kept as it is, as metadata"
        )


@dataclass(frozen=True, slots=True)
class RunFinished:
    """The last event of a run, whatever its outcome: the exit code, the error (None on
    success), and which destinations were written completely and which were not."""

    exit_code: int
    error: str | None
    written: dict[str, str]
    """Role (``archive``, ``output``) → the path (or ``<stdout>``) written completely."""
    not_written: dict[str, str]
    """Role → destination the run meant to write but did not (or not completely)."""
    type: Literal["run_finished"] = "run_finished"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "exit_code": self.exit_code,
            "error": None if self.error is None else redact(self.error),
            "written": dict(self.written),
            "not_written": dict(self.not_written),
        }


@dataclass(frozen=True, slots=True)
class HybridOutcome:
    """``--strategy hybrid`` summarized after reducing: each try (the messages kept verbatim,
    the tokens after it), whether one got under the trigger and below the reduced history's
    ``tokens_reduced`` (its text counted as the tries are, never the provider usage an
    unchanged history keeps) (``reached``; else nothing summarized is written), and the
    trigger."""

    tokens_reduced: int
    tries: list[JsonObject]
    reached: bool
    trigger: str
    type: Literal["hybrid_outcome"] = "hybrid_outcome"

    def to_dict(self) -> JsonObject:
        return {
            "type": self.type,
            "tokens_reduced": self.tokens_reduced,
            "tries": [dict(t) for t in self.tries],
            "reached": self.reached,
            "trigger": self.trigger,
        }


@dataclass(frozen=True, slots=True)
class CacheRefused:
    """The summary cache's folder is unsafe (another user can write it, or owns it): the run
    goes on without the cache (:func:`compactor.io.unsafe_folder` says why)."""

    directory: str
    reason: str
    type: Literal["cache_refused"] = "cache_refused"

    def to_dict(self) -> JsonObject:
        return {"type": self.type, "directory": self.directory, "reason": self.reason}


RunEvent: TypeAlias = (
    Event
    | TranscriptRead
    | TriggerChecked
    | CacheRefused
    | WindowAssumed
    | UnknownRecords
    | HybridOutcome
    | RunFinished
)
"""What a run's sink receives: the summarization's events plus the run's own."""
RunEventSink: TypeAlias = Callable[[RunEvent], MaybeAwaitable[None]]
