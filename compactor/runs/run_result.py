"""What a run did, as plain data: :class:`RunResult` (exit code, error, what was and was not
written, counts) and the ``--report`` object it renders, with the fields gathered from the
run's events (:class:`AttemptLog`) and from the summarizer's outcome (:func:`outcome_report`).

The command line renders a :class:`RunResult`; nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compactor._json import JsonObject
from compactor.events import (
    AttemptStart,
    CircuitOpen,
    GenerateSummary,
    ModelSkipped,
    RunEvent,
    ShorterSummary,
)
from compactor.exitcodes import ExitCode, classify

from .run_plan import RunOptions

if TYPE_CHECKING:
    from compactor.counting.config import Config
    from compactor.pipeline.middleware import SummarizeOutcome
    from compactor.schema import M

__all__ = ["AttemptLog", "RunResult", "outcome_report"]


@dataclass(kw_only=True)
class RunResult:
    """What a run did: plain data for the command line to render and the report to hold."""

    input: str
    output: str
    """Where the transcript went: a path, or ``-`` for stdout."""
    exit_code: int = ExitCode.OK
    error: str | None = None
    """The failure's one line, as ``compact`` prints it (None on success)."""
    format: str | None = None
    triggered: bool = False
    """The transcript was summarized (the trigger fired, or ``--force``)."""
    reason: str | None = None
    """Why the trigger fired or did not."""
    messages_before: int | None = None
    messages_after: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    attempts: list[JsonObject] = field(default_factory=list)
    transcript_path: str | None = None
    """The path the summary's note names."""
    archive: str | None = None
    """Where the original was archived, when it was."""
    written: dict[str, str] = field(default_factory=dict)
    """Role (``archive``, ``output``, ``events``) → destination written completely."""
    not_written: dict[str, str] = field(default_factory=dict)
    """Role → destination the run meant to write but did not (or not completely)."""
    incomplete: dict[str, dict[str, int]] = field(default_factory=dict)
    """Role → ``{"bytes_written": N, "bytes": TOTAL}`` for a stream (stdout, a FIFO, a device)
    that took part of what it was given before it failed: its reader got a cut-short output.
    (``bytes`` is absent for the events, whose total is not known.) In the report only when
    not empty."""
    dropped_records: dict[str, int] = field(default_factory=dict)
    """Shrink mode: kinds of records that are not messages and were left out, with counts."""
    extras: JsonObject = field(default_factory=dict)
    """Report fields of the features beyond SPEC §9.3 (chunks, cache, masking, ...)."""
    duration_s: float = 0.0

    @property
    def degraded(self) -> bool:
        """The summary came from the embedded fallback summarizer."""
        return bool(self.extras.get("degraded"))

    @classmethod
    def refused(cls, options: RunOptions, err: BaseException) -> RunResult:
        """The result of a run its plan refused (nothing was read or written)."""
        message, code = classify(err)
        return cls(input=options.input, output=options.output or "", exit_code=code, error=message)

    def report(self) -> JsonObject:
        """The ``--report`` object: SPEC §9.3's fields, then the outcome and the extras."""
        data: JsonObject = {
            "input": self.input,
            "output": self.output,
            "format": self.format,
            "triggered": self.triggered,
            "messages_before": self.messages_before,
            "messages_after": self.messages_after,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "attempts": self.attempts,
            "transcript_path": self.transcript_path,
            "duration_s": round(self.duration_s, 3),
            "exit_code": int(self.exit_code),
            "error": self.error,
            "written": self.written,
            "not_written": self.not_written,
            "archive": self.archive,
            "dropped_records": self.dropped_records,
        }
        if self.incomplete:
            data["incomplete"] = self.incomplete
        data.update(self.extras)
        return data


class AttemptLog:
    """Collects ``{"phase", "attempt", "model", "ok", "error"}`` for the run report (plus the
    ``chunk`` it was for, and ``input_form: transcript`` when the conversation went as text),
    and what the run learned
    about its models: circuit breakers (with the calls they skipped), the models sent the
    transcript form, requests for a shorter summary. Kept from the events, so a failed run's
    report has them too."""

    def __init__(self) -> None:
        self.attempts: list[JsonObject] = []
        self.breakers: dict[str, JsonObject] = {}
        self.forms: dict[str, str] = {}
        self.shorter = 0
        self._models: dict[tuple[str, int], str] = {}

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, AttemptStart):
            self._models[(event.phase, event.attempt)] = event.model
        elif isinstance(event, GenerateSummary):
            error = event.to_dict()["error"]
            entry: JsonObject = {
                "phase": event.phase,
                "attempt": event.attempt,
                "model": event.model or self._models.get((event.phase, event.attempt)),
                "ok": event.error is None,
                "error": None if error is None else f"{error['type']}: {error['message']}",
            }
            if event.chunk is not None:
                entry["chunk"] = event.chunk
            if event.input_form != "messages":
                entry["input_form"] = event.input_form
                if event.model is not None:
                    self.forms[event.model] = event.input_form
            self.attempts.append(entry)
        elif isinstance(event, CircuitOpen):
            error = event.to_dict()["error"]
            self.breakers[event.model] = {
                "model": event.model,
                "kind": error.get("kind", error["type"]),
                "error": f"{error['type']}: {error['message']}",
                "skipped_calls": 0,
            }
        elif isinstance(event, ModelSkipped) and event.model in self.breakers:
            self.breakers[event.model]["skipped_calls"] += 1
        elif isinstance(event, ShorterSummary):
            self.shorter += 1

    def report(self) -> JsonObject:
        """The report fields these events give (each present when it applies)."""
        data: JsonObject = {}
        if self.breakers:
            data["circuit_breakers"] = list(self.breakers.values())
        if self.forms:
            data["input_forms"] = dict(self.forms)
        if self.shorter:
            data["shorter_summary_requests"] = self.shorter
        return data


def outcome_report(outcome: SummarizeOutcome[M], cfg: Config[M]) -> JsonObject:
    """The report fields of the features beyond SPEC §9.3 (each present when it applies)."""
    extras: JsonObject = {"summarizer_phase": outcome.phase, "degraded": outcome.degraded}
    if outcome.chunks:
        extras["chunks"] = outcome.chunks
    if outcome.adaptations:
        extras["context_adaptations"] = outcome.adaptations
    for key in ("token_scale", "cut_running_summaries", "verbatim_chunks"):
        if key in outcome.learned:
            extras[key] = outcome.learned[key]
    if cfg.keep is not None:
        extras["tail_messages"] = outcome.tail_messages
    if outcome.masked is not None:
        extras["masked_secrets"] = outcome.masked
    if outcome.retention is not None:
        extras["retention"] = outcome.retention
    if cfg.cache is not None:
        extras["cache"] = {
            "dir": str(cfg.cache.directory),
            "hits": cfg.cache.hits,
            "misses": cfg.cache.misses,
            "stores": cfg.cache.stores,
            "errors": cfg.cache.errors,
        }
    if cfg.loop_guard is not None or cfg.max_growth is not None:
        extras["loop_guard"] = {
            "max_ratio": cfg.loop_guard,
            "max_growth": cfg.max_growth,
            "tokens_before": outcome.tokens_before,
            "tokens_after": outcome.tokens_after,
        }
    return extras
