"""A run of one transcript file as a transaction, owned by the library (``compact run``).

Two steps, so that nothing is destroyed at the edges:

* :func:`plan` reads the config and resolves every path the run will touch — the input, the
  transcript's destination, ``--report``, ``--events`` and the archive — before the transcript
  or the model is read and before anything is written. A destination that cannot be written
  (missing or read-only folder, a directory, a block device), two destinations that are one
  file (also through a symlink or a hard link), or a report/events path equal to the input or
  the output is a :class:`~compactor.errors.ConfigError` (exit 2), and nothing was written.
* :meth:`Run.execute` reads, decides, summarizes and writes, and returns a :class:`RunResult`
  (plain data: exit code, error, what was and was not written, counts, the report). Events flow
  out through a sink as they happen; a report and an events file are written for every outcome
  after the plan, failures and interrupts included.

The command line only builds :class:`RunOptions`, calls these and renders the result, so a
program compacts a file exactly as ``compact run`` does::

    from compactor.runner import RunOptions, run_file

    result = run_file(RunOptions(input="session.jsonl", in_place=True, model="local"))
    print(result.exit_code, result.archive, result.report())
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._util import maybe_await
from .configfile import FileConfig, Overrides, check_config, load_default_config
from .errors import CompactorError, ConfigError, InputChangedError, StreamError, TranscriptError
from .events import (
    AttemptStart,
    CircuitOpen,
    GenerateSummary,
    ModelSkipped,
    RunEvent,
    RunEventSink,
    RunFinished,
    ShorterSummary,
    TranscriptRead,
    TriggerChecked,
)
from .exitcodes import ExitCode, classify
from .inputs import OUTPUT_SUFFIX
from .interrupts import Interrupted, last_signal, signal_name
from .io import (
    Destination,
    InputFile,
    LineWriter,
    archive_original,
    archive_path,
    is_inside,
    open_input,
    plan_archive_dir,
    resolve_destination,
    write_destination,
)
from .limits import SpendHold, SpendMeter

__all__ = [
    "APPEND_FORMATS",
    "AttemptLog",
    "Run",
    "RunOptions",
    "RunPlan",
    "RunResult",
    "arun_file",
    "default_output",
    "output_path",
    "plan",
    "run_file",
]

APPEND_FORMATS = ("claude-code", "codex")
"""Formats whose files ``--append`` can extend (the others are message lists)."""


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What one ``compact run`` is asked to do (the command line's flags, as data)."""

    input: str
    """A transcript file, or ``-`` for stdin."""
    output: str | None = None
    """A file, a device or FIFO, or ``-`` (stdout). None: ``NAME.compact.jsonl`` beside the
    input, or stdout when the input is stdin."""
    in_place: bool = False
    """Replace the input (its original is archived first)."""
    force: bool = False
    """Summarize even when the trigger does not fire."""
    format: str | None = None
    """Force a transcript format instead of detecting it."""
    model: str | None = None
    """``openai:NAME`` or ``local`` (overrides the config's model)."""
    transcript_path: str | None = None
    """The summary's "full transcript" note: ``auto``, ``none`` or a path."""
    report: str | None = None
    """Write the JSON report here (``-``: stdout, refused when the transcript goes there)."""
    events: str | None = None
    """Write every event as a JSON line here (``-``: stderr)."""
    append: bool = False
    """claude-code/codex: append the compaction instead of shrinking the file."""
    cache: bool | None = None
    """``--cache`` / ``--no-cache`` (None: the config decides)."""
    fallback: str | None = None
    """``local`` or ``none`` (None: the config decides)."""
    config: str | None = None
    """YAML config file (None: ``$COMPACT_CONFIG``, else the built-in defaults)."""
    output_dir: str | None = None
    """Write the output into this existing folder, under the input's own file name."""
    threshold: int | None = None
    """Compact above this many tokens (replaces the config's token trigger)."""
    token_counter: str | None = None
    """Count tokens with this counter instead of the config's (``estimate``, ``tiktoken:...``,
    ``pkg.mod:func``)."""


@dataclass
class RunPlan:
    """Every path of a run, resolved and checked; nothing has been read or written yet."""

    options: RunOptions
    file_config: FileConfig
    overrides: Overrides
    output: Destination
    """Where the transcript goes (the input itself with ``--in-place``)."""
    report: Destination | None = None
    events: Destination | None = None
    archive_dir: Path | None = None
    """Where the original is archived (``--in-place``, stdin with an ``auto`` note)."""
    input_mode: int | None = None
    """Mode bits of a regular input: a new output is never more readable than its input."""
    timestamp: str | None = None
    """The time of the records a compaction adds: ``$SOURCE_DATE_EPOCH`` when set, else (None)
    the newest time recorded in the input; never the clock."""

    @property
    def attempts(self) -> tuple[int, int]:
        """(primary attempts, failover attempts) the config allows."""
        return self.file_config.attempts()


@dataclass(kw_only=True)
class RunResult:
    """What a run did: plain data for the command line to render and the report to hold."""

    input: str
    output: str
    """Where the transcript went: a path, or ``-`` for stdout."""
    exit_code: int = ExitCode.OK
    error: str | None = None
    """``Type: message`` of the failure (None on success)."""
    format: str | None = None
    triggered: bool = False
    """The transcript was summarized (the trigger fired, or ``--force``)."""
    reason: str | None = None
    """Why the trigger fired or did not."""
    messages_before: int | None = None
    messages_after: int | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    transcript_path: str | None = None
    """The path the summary's note names."""
    archive: str | None = None
    """Where the original was archived, when it was."""
    written: dict[str, str] = field(default_factory=dict)
    """Role (``archive``, ``output``, ``events``) → destination written completely."""
    not_written: dict[str, str] = field(default_factory=dict)
    """Role → destination the run meant to write but did not (or not completely)."""
    dropped_records: dict[str, int] = field(default_factory=dict)
    """Shrink mode: kinds of records that are not messages and were left out, with counts."""
    extras: dict[str, Any] = field(default_factory=dict)
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

    def report(self) -> dict[str, Any]:
        """The ``--report`` object: SPEC §9.3's fields, then the outcome and the extras."""
        data: dict[str, Any] = {
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
        self.attempts: list[dict[str, Any]] = []
        self.breakers: dict[str, dict[str, Any]] = {}
        self.forms: dict[str, str] = {}
        self.shorter = 0
        self._models: dict[tuple[str, int], str] = {}

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, AttemptStart):
            self._models[(event.phase, event.attempt)] = event.model
        elif isinstance(event, GenerateSummary):
            error = event.to_dict()["error"]
            entry: dict[str, Any] = {
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

    def report(self) -> dict[str, Any]:
        """The report fields these events give (each present when it applies)."""
        data: dict[str, Any] = {}
        if self.breakers:
            data["circuit_breakers"] = list(self.breakers.values())
        if self.forms:
            data["input_forms"] = dict(self.forms)
        if self.shorter:
            data["shorter_summary_requests"] = self.shorter
        return data


def default_output(path: str) -> str:
    """``NAME.compact.jsonl`` beside ``path``."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}{OUTPUT_SUFFIX}"))


def output_path(options: RunOptions) -> str | None:
    """The file the transcript of ``options`` goes to: ``-o``, ``--output-dir``/NAME or
    ``NAME.compact.jsonl``; None when it goes to stdout or replaces the input."""
    if options.in_place or options.output == "-":
        return None
    if options.output is not None:
        return options.output
    if options.input == "-":
        return None
    if options.output_dir is not None:
        return os.path.join(options.output_dir, os.path.basename(options.input))
    return default_output(options.input)


def check_output_dir(folder: str) -> None:
    """``--output-dir`` must name an existing, writable folder (ConfigError, exit 2)."""
    if not os.path.isdir(folder):
        what = "does not exist" if not os.path.lexists(folder) else "is not a folder"
        raise ConfigError(f"--output-dir {folder!r} {what}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"--output-dir {folder!r} is not writable")


def _check_combinations(options: RunOptions) -> None:
    if options.in_place and options.input == "-":
        raise ConfigError("--in-place needs a file, not stdin")
    if options.in_place and options.output is not None:
        raise ConfigError("use either --in-place or -o/--output, not both")
    if options.output_dir is not None:
        if options.in_place or options.output is not None:
            other = "--in-place" if options.in_place else "-o/--output"
            raise ConfigError(f"use either --output-dir or {other}, not both")
        if options.input == "-":
            raise ConfigError("--output-dir needs a file input; stdin has no name to keep")
        check_output_dir(options.output_dir)


# --------------------------------------------------------------------------------------------------
# Plan


def _input_identity(name: str, in_place: bool) -> tuple[tuple[int, int] | str, int | None]:
    """The input's identity and mode bits (stdin: ``<stdin>``); a missing input is exit 2."""
    if name == "-":
        return "<stdin>", None
    try:
        st = os.stat(name)
    except FileNotFoundError as err:
        raise TranscriptError(name, None, None, "file not found") from err
    except OSError as err:
        raise TranscriptError(name, None, None, f"failed to read: {err.strerror}") from err
    if stat.S_ISDIR(st.st_mode):
        raise TranscriptError(name, None, None, "is a directory, not a file")
    if in_place and not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"--in-place needs a regular file; {name!r} is not one")
    mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
    return (st.st_dev, st.st_ino), mode


def _same(a: Destination, b: Destination) -> bool:
    return a.identity == b.identity and not (a.char_device and b.char_device)


def _check_distinct(
    dests: list[Destination], input_id: tuple[int, int] | str, options: RunOptions
) -> None:
    """Rule 1: no two destinations are one file; report/events are neither input nor output."""
    if any(d.kind == "stdout" and d.role in ("output", "in-place") for d in dests) and any(
        d.kind == "stdout" and d.role == "report" for d in dests
    ):
        raise ConfigError("--report - writes to stdout, where the transcript goes; name a file")
    for i, dest in enumerate(dests):
        if dest.role != "in-place" and dest.identity == input_id and not dest.char_device:
            if dest.role == "output":
                raise ConfigError(
                    f"output {dest.name!r} is the input; use --in-place to replace it "
                    "(archives it first)"
                )
            raise ConfigError(f"{dest.flag} {dest.name!r} is the input file {options.input!r}")
        for other in dests[:i]:
            if _same(dest, other):
                raise ConfigError(
                    f"{dest.flag} {dest.name!r} is the same file as {other.flag} {other.name!r}"
                )


def plan(
    options: RunOptions,
    *,
    file_config: FileConfig | None = None,
    config_checked: bool = False,
) -> RunPlan:
    """Resolve and check everything the run will touch; raise ConfigError/TranscriptError
    (exit 2) before anything is read or written.

    ``file_config``: an already loaded config (a batch loads it once); ``config_checked``: it
    already passed :func:`~compactor.configfile.check_config`.
    """
    from .formats.base import source_date_epoch

    _check_combinations(options)
    timestamp = source_date_epoch()
    file_cfg = file_config if file_config is not None else load_default_config(options.config)
    file_cfg = file_cfg.with_flags(threshold=options.threshold, token_counter=options.token_counter)
    overrides = Overrides(
        model=options.model,
        transcript_file_path=options.transcript_path,
        format=options.format,
        cache=options.cache,
        fallback=options.fallback,
    )
    # The whole config before the transcript: a bad callback or provider is exit 2 even when
    # the trigger does not fire (models are validated, not built: no openai import).
    if not config_checked:
        check_config(file_cfg, overrides)
    input_id, input_mode = _input_identity(options.input, options.in_place)
    target = output_path(options)
    if options.in_place:
        output = resolve_destination(options.input, "in-place")
    else:
        output = resolve_destination("-" if target is None else target, "output")
    report = resolve_destination(options.report, "report") if options.report else None
    events = resolve_destination(options.events, "events") if options.events else None
    _check_distinct([d for d in (output, report, events) if d is not None], input_id, options)

    archive_dir = None
    setting = options.transcript_path or file_cfg.transcript_file_path or "auto"
    if options.in_place or (options.input == "-" and setting == "auto"):
        archive_dir = plan_archive_dir(file_cfg.archive_dir)
        if options.in_place and is_inside(options.input, archive_dir):
            raise ConfigError(
                f"--in-place on {options.input!r}, a file inside the archive folder "
                f"{str(archive_dir)!r}: it may be the only copy of a transcript; copy it out first"
            )
    return RunPlan(
        options=options,
        file_config=file_cfg,
        overrides=overrides,
        output=output,
        report=report,
        events=events,
        archive_dir=archive_dir,
        input_mode=input_mode,
        timestamp=timestamp,
    )


# --------------------------------------------------------------------------------------------------
# Execute


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Run:
    """One execution of a :class:`RunPlan`. ``result`` is filled in as the run goes, so it
    also tells what an interrupted run wrote."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        sink: RunEventSink | None = None,
        model: Any = None,
        meter: SpendMeter | None = None,
    ) -> None:
        self.plan = plan
        self.sink = sink
        self.model = model
        """A model object to use instead of the config's (tests, programs)."""
        self.meter = meter
        """The spend budget this run draws from (a batch shares one); None: the config's
        ``limits`` for this run alone, or no limit."""
        out = plan.output
        self.result = RunResult(
            input=plan.options.input, output="-" if out.kind == "stdout" else out.name
        )
        self.attempts = AttemptLog()
        self._events: LineWriter | None = None
        self._events_error: StreamError | None = None
        self._intended: dict[str, str] = {}
        self._input: InputFile | None = None
        self.exception: BaseException | None = None
        """The error the run failed with (for ``--debug`` tracebacks); None on success."""

    # -- events ----------------------------------------------------------------------------------
    async def emit(self, event: RunEvent) -> None:
        """Hand ``event`` to the attempt log, the events file and the caller's sink."""
        self.attempts(event)
        if self._events is not None and self._events_error is None:
            line = json.dumps(event.to_dict(), ensure_ascii=False, default=str) + "\n"
            try:
                self._events.write(line.encode("utf-8"))
            except StreamError as err:
                self._events_error = err  # the run goes on; the outcome says so
        if self.sink is not None:
            await maybe_await(self.sink(event))

    def _wrote(self, role: str, label: str) -> Callable[[], None]:
        def mark() -> None:
            self.result.written[role] = label

        return mark

    # -- the run ---------------------------------------------------------------------------------
    async def execute(self) -> RunResult:
        """Run the plan. Failures become the result's exit code and error; an interrupt
        (KeyboardInterrupt, :class:`~compactor.interrupts.Interrupted`, cancellation)
        propagates after temp files are removed and the report says what was written."""
        started = time.monotonic()
        try:
            try:
                if self.plan.events is not None:
                    self._events = LineWriter(self.plan.events)
                await self._work()
            except Exception as err:  # noqa: BLE001 - every failure becomes the result
                self.exception = err
                self._fail(*classify(err))
            await self._finish(started)
        except (KeyboardInterrupt, asyncio.CancelledError) as err:
            self.exception = err
            signum = err.signum if isinstance(err, Interrupted) else (last_signal() or 2)
            self._fail(f"interrupted by {signal_name(signum)}", 128 + signum, force=True)
            try:
                await self._finish(started)
            except BaseException:  # noqa: BLE001 - a second signal: stop writing at once
                if self._events is not None:
                    self._events.abort()
            raise
        finally:
            if self._input is not None:
                self._input.close()
        return self.result

    def _fail(self, message: str, code: int, *, force: bool = False) -> None:
        """Record a failure; the first one wins (an interrupt always does)."""
        if force or self.result.error is None or self.result.exit_code == ExitCode.OK:
            self.result.error = message
            self.result.exit_code = code

    async def _work(self) -> None:
        from .formats.registry import read_transcript
        from .trigger import decide

        opts, file_cfg, r = self.plan.options, self.plan.file_config, self.result
        # A regular input (not --in-place, which archives it first) is parsed as it is read
        # and not kept: what is written back unchanged is read again, and checked. No snapshot
        # either: nothing in the run edits a message in place (the pipeline only reads the
        # history). So the transcript is held once, as parsed.
        self._input = open_input(opts.input, lock=opts.in_place, stream=not opts.in_place)
        parsed = read_transcript(
            self._input.display,
            self._input.source,
            format=opts.format or file_cfg.format,
            snapshot=False,
        )
        r.format = parsed.format
        if opts.append and parsed.format not in APPEND_FORMATS:
            raise ConfigError(
                f"--append works only for {' and '.join(APPEND_FORMATS)} transcripts, "
                f"not {parsed.format!r}"
            )
        counter, trigger = file_cfg.counter(), file_cfg.trigger_condition()
        decision = await decide(parsed.messages, parsed.tools, trigger, counter, always_count=True)
        r.triggered = decision.triggered or opts.force
        r.reason = decision.reason
        r.messages_before = r.messages_after = len(parsed.messages)
        r.tokens_before = r.tokens_after = decision.tokens
        await self.emit(
            TranscriptRead(opts.input, parsed.format, len(parsed.messages), len(parsed.records))
        )
        await self.emit(
            TriggerChecked(
                decision.triggered, opts.force, decision.reason, decision.tokens, decision.messages
            )
        )
        if not r.triggered:
            if not opts.in_place:  # --in-place: the input is left as it is
                del parsed  # a streamed input is read again whole: not next to its records
                self._write_output(self._input.raw)
            return
        data = await self._summarize(parsed, decision)
        self._write_output(data)

    async def _summarize(self, parsed: Any, decision: Any) -> bytes:
        from . import new
        from .configfile import build_config
        from .formats.base import CompactionInfo, WriteMode
        from .formats.records import dropped_records
        from .formats.registry import write_transcript
        from .schema import AgentState
        from .trigger import decide

        opts, file_cfg, r = self.plan.options, self.plan.file_config, self.result
        raw = b""  # the input's bytes, for its archive only (a streamed input is read again)
        if self.plan.archive_dir is not None:
            raw = self._input.raw if self._input is not None else b""
            auto_path: str | None = archive_path(raw, self.plan.archive_dir)
        else:
            auto_path = os.path.abspath(opts.input)  # noqa: ASYNC240 - string work, no I/O
        cfg = build_config(
            file_cfg, self.plan.overrides, transcript_path_auto=auto_path, model=self.model
        )
        if not decision.triggered:
            # --force on a transcript below its trigger: it cannot loop, so no ratio guard;
            # the growth guard (loop_guard.max_growth) still refuses a result that blows it up.
            cfg = dataclasses.replace(cfg, loop_guard=None)
        r.transcript_path = cfg.transcript_file_path
        cfg = dataclasses.replace(cfg, emit_internal_events=True, on_event=self.emit)
        # Spend limits: the plan must fit before anything is sent or written (the archive too).
        hold = await self._reserve(cfg, parsed.messages)
        try:
            if self.plan.archive_dir is not None:
                # The original first (fsynced): the summary's note points at it, and an
                # --in-place run never replaces a file whose bytes are not safe elsewhere.
                self._intended["archive"] = str(self.plan.archive_dir)
                r.archive = archive_original(raw, self.plan.archive_dir)
                r.written["archive"] = r.archive
                del self._intended["archive"]
            if hold is not None:
                cfg = dataclasses.replace(cfg, spend=hold)
            outcome = await new(cfg).summarize_detailed(
                AgentState(messages=list(parsed.messages), tools=list(parsed.tools)),
                tokens_before=decision.tokens,  # the same counter and trigger as the config's
            )
        finally:
            if hold is not None:
                hold.release()
                r.extras["limits"] = hold.report()
        r.attempts = self.attempts.attempts
        r.extras = {**_outcome_report(outcome, cfg), **r.extras, **self.attempts.report()}
        r.messages_after = len(outcome.messages)
        tokens_after = outcome.tokens_after  # counted by the loop guard, when it ran
        if tokens_after is None:
            counter, trigger = file_cfg.counter(), file_cfg.trigger_condition()
            after = await decide(
                outcome.messages, parsed.tools, trigger, counter, always_count=True
            )
            tokens_after = after.tokens
        r.tokens_after = tokens_after
        mode: WriteMode = "append" if opts.append else "shrink"
        data = write_transcript(
            parsed,
            outcome.messages,
            mode=mode,
            info=CompactionInfo(
                tokens_before=decision.tokens,
                tokens_after=tokens_after,
                trigger="auto" if decision.triggered else "manual",
                timestamp=self.plan.timestamp,
            ),
        )
        r.dropped_records = dropped_records(parsed, outcome.messages, data, mode)
        return data

    async def _reserve(self, cfg: Any, messages: list[Any]) -> SpendHold | None:
        """Set aside the requests this run plans to send (:mod:`compactor.limits`);
        :class:`~compactor.errors.SpendLimitError` when they do not fit what is left."""
        if self.meter is None:
            limits = self.plan.file_config.spend_limits()
            if limits is None:
                return None
            self.meter = SpendMeter(limits)
        from .explain import plan_requests

        planned = await plan_requests(cfg, messages)
        self.result.extras["limits"] = {
            **self.meter.limits.to_dict(),
            "planned_requests": planned.requests,
            "planned_input_tokens": planned.input_tokens,
            "requests": 0,
            "input_tokens": 0,
        }
        return self.meter.reserve(planned.requests, planned.input_tokens)

    def _write_output(self, data: bytes) -> None:
        out, r = self.plan.output, self.result
        label = r.output
        self._intended["output"] = label
        mode = None
        if self.plan.input_mode is not None:  # never more readable than the input
            mode = (0o666 & ~_umask()) & self.plan.input_mode
        before = self._check_input_unchanged if self.plan.options.in_place else None
        write_destination(
            out, data, mode=mode, before_replace=before, on_commit=self._wrote("output", label)
        )
        del self._intended["output"]

    def _check_input_unchanged(self) -> None:
        if self._input is None:
            return
        reason = self._input.changed()
        if reason is not None:
            kept = f"; the original read is archived at {self.result.archive}" * bool(
                self.result.archive
            )
            raise InputChangedError(
                self._input.display,
                f"the input changed during the run ({reason}); it was not replaced{kept}",
            )

    async def _finish(self, started: float) -> None:
        r = self.result
        r.attempts = self.attempts.attempts
        r.extras.update(self.attempts.report())
        r.not_written = {k: v for k, v in self._intended.items() if k not in r.written}
        r.duration_s = time.monotonic() - started
        await self.emit(RunFinished(int(r.exit_code), r.error, dict(r.written), r.not_written))
        if self._events is not None:
            events, label = self._events, self._events.dest.label
            self._events = None
            if self._events_error is not None:
                events.abort()
                r.not_written["events"] = label
                self._fail(*classify(self._events_error))
            else:
                try:
                    events.commit(self._wrote("events", label))
                except Exception as err:  # noqa: BLE001 - StreamError, or OSError from rename
                    events.abort()
                    r.not_written["events"] = label
                    self._fail(*classify(err))
        if self.plan.report is not None:
            self._write_report(self.plan.report)

    def _write_report(self, dest: Destination) -> None:
        r = self.result
        body = (json.dumps(r.report(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            write_destination(dest, body, on_commit=self._wrote("report", dest.label))
        except Exception as err:  # noqa: BLE001 - StreamError, or OSError from mkstemp/rename
            r.not_written["report"] = dest.label
            self._fail(*classify(err))


def _outcome_report(outcome: Any, cfg: Any) -> dict[str, Any]:
    """The report fields of the features beyond SPEC §9.3 (each present when it applies)."""
    extras: dict[str, Any] = {"summarizer_phase": outcome.phase, "degraded": outcome.degraded}
    if outcome.chunks:
        extras["chunks"] = outcome.chunks
    if outcome.adaptations:
        extras["context_adaptations"] = outcome.adaptations
    for key in ("token_scale", "cut_running_summaries"):
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


# --------------------------------------------------------------------------------------------------
# One call


async def arun_file(
    options: RunOptions, *, sink: RunEventSink | None = None, model: Any = None
) -> RunResult:
    """Plan and execute one run in the running event loop (a planning error is a result
    with exit code 2 and nothing written)."""
    try:
        planned = plan(options)
    except CompactorError as err:
        return RunResult.refused(options, err)
    return await Run(planned, sink=sink, model=model).execute()


def run_file(
    options: RunOptions, *, sink: RunEventSink | None = None, model: Any = None
) -> RunResult:
    """:func:`arun_file` in an event loop of its own: compact one file as ``compact run``."""
    return asyncio.run(arun_file(options, sink=sink, model=model))
