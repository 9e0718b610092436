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

This module owns the execution (:class:`Run`, :func:`run_file`, :func:`arun_file`; its
summarize step is :mod:`compactor.runs.run_summarize`); the plan
lives in :mod:`compactor.runs.run_plan` (:class:`RunOptions`, :func:`plan`, :class:`RunPlan`) and
the result in :mod:`compactor.runs.run_result` (:class:`RunResult`, :class:`AttemptLog`). Their
public names are re-exported here, and a program imports them as ``compactor.runner`` (the name
the README documents, a module that re-exports this one) or from ``compactor``.

The command line only builds :class:`RunOptions`, calls these and renders the result, so a
program compacts a file exactly as ``compact run`` does::

    from compactor.runner import RunOptions, run_file

    result = run_file(RunOptions(input="session.jsonl", in_place=True, model="local"))
    print(result.exit_code, result.archive, result.report())
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from compactor._util import fewer_gc_passes, maybe_await
from compactor.errors import CompactorError, InputChangedError, StreamError
from compactor.events import (
    RunEvent,
    RunEventSink,
    RunFinished,
    TranscriptRead,
    TriggerChecked,
)
from compactor.exitcodes import ExitCode, classify
from compactor.interrupts import Interrupted, last_signal, signal_name
from compactor.io import (
    ArchiveHold,
    Destination,
    InputFile,
    LineWriter,
    archive_held,
    json_bytes,
    open_input,
    write_destination,
)
from compactor.io.writing import current_umask
from compactor.pipeline.limits import SpendMeter

from .run_plan import (
    APPEND_FORMATS,
    RunOptions,
    RunPlan,
    default_output,
    in_option_names,
    output_path,
    plan,
    refuse_append,
)
from .run_result import AttemptLog, RunResult

if TYPE_CHECKING:
    from compactor.counting.trigger import TriggerDecision
    from compactor.formats.base import CompactionInfo, Transcript
    from compactor.models.base import ChatModel
    from compactor.reduction.offload import FileOffload
    from compactor.schema import AgenticMessage, Message

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


# --------------------------------------------------------------------------------------------------
# Execute


def _cancelled(err: BaseException) -> bool:
    """``err`` is asyncio's cancellation (asyncio is imported only by runs that need a loop:
    ``--strategy reduce`` runs without one, and then nothing can be cancelled)."""
    aio = sys.modules.get("asyncio")
    return aio is not None and isinstance(err, aio.CancelledError)


class Run:
    """One execution of a :class:`RunPlan`. ``result`` is filled in as the run goes, so it
    also tells what an interrupted run wrote."""

    def __init__(
        self,
        plan: RunPlan,
        *,
        sink: RunEventSink | None = None,
        model: ChatModel | None = None,
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
        self._archive: ArchiveHold | None = None
        self.exception: BaseException | None = None
        """The error the run failed with (for ``--debug`` tracebacks); None on success."""
        self.offload: FileOffload | None = None
        """``--strategy reduce|hybrid``: the offload backend (its files are removed when the
        run fails)."""
        self.held: list[object] | None = None
        """A list: what the run would free at its end goes there (a caller about to exit)."""

    # -- events ----------------------------------------------------------------------------------
    async def emit(self, event: RunEvent) -> None:
        """Hand ``event`` to the attempt log, the events file and the caller's sink."""
        self.attempts(event)
        if self._events is not None and self._events_error is None:
            line = json_bytes(event.to_dict()) + b"\n"  # a name's undecodable bytes escaped
            try:
                self._events.write(line)
            except StreamError as err:
                self._events_error = err  # the run goes on; the outcome says so
        if self.sink is not None:
            await maybe_await(self.sink(event))

    def _archived(self, path: str) -> None:
        """The original is in the archive (recorded with signals held, right at its rename)."""
        self.result.archive = self.result.written["archive"] = path

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
            # a history of up to millions of objects, none in a cycle: see fewer_gc_passes
            with fewer_gc_passes():
                try:
                    if self.plan.events is not None:  # never more readable than the input
                        self._events = LineWriter(self.plan.events, cap=self.plan.input_mode)
                    await self._work()
                except Exception as err:  # noqa: BLE001 - every failure becomes the result
                    self.exception = err
                    self._fail(*classify(err))
                await self._finish(started)
        except BaseException as err:
            if not isinstance(err, KeyboardInterrupt) and not _cancelled(err):
                raise
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
            if self._archive is not None:
                self._archive.release()
        return self.result

    def _fail(self, message: str, code: int, *, force: bool = False) -> None:
        """Record a failure; the first one wins (an interrupt always does)."""
        if force or self.result.error is None or self.result.exit_code == ExitCode.OK:
            self.result.error = message
            self.result.exit_code = code

    async def _work(self) -> None:
        from compactor.counting.trigger import decide
        from compactor.formats.registry import read_transcript

        opts, file_cfg, r = self.plan.options, self.plan.file_config, self.result
        # A regular input (not --in-place, which archives it first) is parsed as it is read
        # and not kept: what is written back unchanged is read again, and checked. No snapshot
        # either: nothing in the run edits a message in place (the pipeline only reads the
        # history). So the transcript is held once, as parsed.
        self._input = open_input(
            opts.input,
            lock=opts.in_place,
            stream=not opts.in_place,
            limits=file_cfg.input_limits(),
        )
        if opts.input == "-" and not self._input.raw.strip():
            # An empty stdin (a pipeline with nothing to shrink) passes through: nothing to
            # read, nothing written, exit 0.
            r.reason = "stdin was empty"
            r.messages_before = r.messages_after = r.tokens_before = r.tokens_after = 0
            return
        if opts.in_place:
            self._check_planned_file()
        if self.plan.strategy == "reduce" and await self._reduce_streaming():
            return
        parsed = read_transcript(
            self._input.display,
            self._input.source,
            format=opts.format or file_cfg.format,
            snapshot=False,
        )
        r.format = parsed.format
        if opts.append:
            refuse_append(parsed)
        counter, trigger = file_cfg.counter(), file_cfg.trigger_condition()
        decision = await decide(parsed.messages, parsed.tools, trigger, counter, always_count=True)
        r.triggered = decision.triggered or opts.force
        r.reason = decision.reason
        r.messages_before = r.messages_after = len(parsed.messages)
        r.tokens_before = r.tokens_after = decision.tokens
        await self.emit(
            TranscriptRead(opts.input, parsed.format, len(parsed.messages), len(parsed.records))
        )
        if parsed.meta.unknown:
            from compactor.formats.registry import unknown_notes

            for note in unknown_notes(parsed):
                await self.emit(note)
        await self.emit(
            TriggerChecked(
                decision.triggered, opts.force, decision.reason, decision.tokens, decision.messages
            )
        )
        if self.plan.strategy != "summarize":
            await self._reduce(parsed, decision)
            return
        if not r.triggered:
            if not opts.in_place:  # --in-place: the input is left as it is
                del parsed  # a streamed input is read again whole: not next to its records
                self._write_output(self._input.raw)
            return
        data = await self._summarize(parsed, decision)
        self._write_output(data)

    async def _reduce(self, parsed: Transcript, decision: TriggerDecision) -> None:
        """``--strategy reduce|hybrid`` (:mod:`compactor.runs.run_reduce`); offloaded files are
        removed again when the run fails before its output is written."""
        from .run_reduce import reduce_run

        try:
            data = await reduce_run(self, parsed, decision)
            del parsed
            self._write_reduced(data)
        except BaseException:
            if self.offload is not None and "output" not in self.result.written:
                self.offload.discard()
            raise

    async def _reduce_streaming(self) -> bool:
        """``--strategy reduce`` as one streaming pass when the input allows it
        (:func:`compactor.runs.run_reduce.stream_reduce`); False: nothing done, parse it."""
        from .run_reduce import stream_reduce

        try:
            done, data = await stream_reduce(self)
            if done:
                self._write_reduced(data)
        except BaseException:
            if self.offload is not None and "output" not in self.result.written:
                self.offload.discard()
            raise
        return done

    def _write_reduced(self, data: bytes | None) -> None:
        """The reduced bytes, else (nothing reduced) the input as it is (not with --in-place)."""
        if data is not None:
            self._write_output(data)
        elif not self.plan.options.in_place:
            assert self._input is not None
            self._write_output(self._input.raw)

    def read_input(self) -> bytes:
        """The whole input, read once through its limits (what a streaming pass reads). The
        bytes are kept as the input's: what is written back unchanged, or archived, is these
        bytes, never read again (so no CRC is taken to check a second read)."""
        assert self._input is not None
        source = self._input.source
        if isinstance(source, bytes):
            return source
        raw = source.whole()
        source.close()
        self._input.source = raw
        return raw

    def input_bytes(self) -> bytes:
        """The input's bytes (a streamed input is read again, and checked)."""
        return self._input.raw if self._input is not None else b""

    async def archive_original(self) -> None:
        """Archive the original when the plan says so (fsynced; once per run)."""
        if self.plan.archive_dir is None or self._archive is not None:
            return
        raw = self._input.raw if self._input is not None else b""
        # The original first: the summary's note points at it, and an --in-place run never
        # replaces a file whose bytes are not safe elsewhere.
        self._intended["archive"] = str(self.plan.archive_dir)
        # Held (a shared lock) until the run ends: a prune never takes it meanwhile.
        self._archive = archive_held(raw, self.plan.archive_dir, on_commit=self._archived)
        self._archived(self._archive.path)
        self._index_archive(self._archive.path)
        del self._intended["archive"]

    async def summarize(
        self,
        parsed: Transcript,
        decision: TriggerDecision,
        *,
        messages: list[Message] | list[AgenticMessage] | None = None,
        retained_from: int = 0,
        exact_tail: bool = False,
    ) -> bytes:
        """Summarize ``messages`` (default: the transcript's), keeping the messages from
        ``retained_from`` on verbatim (hybrid: the rounds reduction retained, the summarizer
        reading the transcript's own messages for the part it replaces; ``exact_tail``: those
        only, not up to ``keep.messages``); the bytes."""
        return await self._summarize(
            parsed, decision, messages=messages, retained_from=retained_from, exact=exact_tail
        )

    async def _summarize(
        self,
        parsed: Transcript,
        decision: TriggerDecision,
        *,
        messages: list[Message] | list[AgenticMessage] | None = None,
        retained_from: int = 0,
        exact: bool = False,
    ) -> bytes:
        from compactor.schema import is_agentic

        from .run_summarize import summarize_as

        given = parsed.messages if messages is None else messages
        # One history holds one message type: the generic steps are called with it bound.
        if is_agentic(given):  # (not copied: nothing changes it; the middleware copies it)
            return await summarize_as(self, parsed, decision, given, retained_from, exact)
        return await summarize_as(self, parsed, decision, given, retained_from, exact)

    def compaction_info(self, decision: TriggerDecision, after: int | None) -> CompactionInfo:
        """What the written transcript may record of this compaction (Claude Code's metadata),
        ``after``: its tokens."""
        from compactor.formats.base import CompactionInfo

        how: Literal["auto", "manual"] = "auto" if decision.triggered else "manual"
        return CompactionInfo(decision.tokens, after, how, self.plan.timestamp)

    @property
    def archive_entry(self) -> str | None:
        """The original's path in the archive once :meth:`archive_original` took it."""
        return self._archive.path if self._archive is not None else None

    def _index_archive(self, entry: str) -> None:
        """Note in the archive's index which file ``entry`` was (``compact archive restore``)."""
        from compactor.io.archive_index import record_archived

        opts = self.plan.options
        original = None if opts.input == "-" else os.path.abspath(opts.input)
        by = "run --in-place" if opts.in_place else "run --transcript-path archive"
        assert self.plan.archive_dir is not None
        record_archived(self.plan.archive_dir, entry, original, by=by)

    def _write_output(self, data: bytes) -> None:
        out, r = self.plan.output, self.result
        label = r.output
        self._intended["output"] = label
        mode = None
        if self.plan.input_mode is not None:  # never more readable than the input
            mode = (0o666 & ~current_umask()) & self.plan.input_mode
        before = self._check_input_unchanged if self.plan.options.in_place else None
        try:
            write_destination(
                out, data, mode=mode, before_replace=before, on_commit=self._wrote("output", label)
            )
        except StreamError as err:
            self._cut_short("output", err, len(data))
            raise
        del self._intended["output"]

    def _cut_short(self, role: str, err: StreamError, total: int | None = None) -> None:
        """A stream that took part of its bytes before failing: say how much went out."""
        if err.written > 0:
            cut = {"bytes_written": err.written}
            self.result.incomplete[role] = cut if total is None else {**cut, "bytes": total}

    def _check_planned_file(self) -> None:
        """``--in-place``: the file just opened (and locked) is the file the plan will replace.

        The plan resolved the destination (symlinks followed) before the run; the input is
        opened by name afterwards. A link retargeted in between (an agent rotating
        ``current.jsonl``) would have the run replace the planned file with a compaction of
        another file's content: exit 5 instead, before the archive or the model, nothing
        written. From here on the run reads only this descriptor, and the check before the
        rename (:meth:`InputFile.changed`) looks at the planned path: the file it replaces."""
        assert self._input is not None
        read = self._input.identity[:2] if self._input.identity is not None else None
        if read != self.plan.output.identity:
            raise InputChangedError(
                self._input.display,
                f"it is no longer the file the run planned to replace "
                f"({self.plan.output.path!r}): a link was retargeted or the file replaced "
                "before it was read; nothing was replaced",
            )
        self._input.path = self.plan.output.path

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
                self._cut_short("events", self._events_error)
                self._fail(*classify(self._events_error))
            else:
                try:
                    events.commit(self._wrote("events", label))
                except BaseException as err:  # StreamError, OSError from rename, a signal
                    events.abort()  # no temp file left behind, whatever stopped the commit
                    if "events" not in r.written:  # a signal just after the rename: it was
                        r.not_written["events"] = label
                    if not isinstance(err, Exception):
                        raise
                    self._fail(*classify(err))
        elif self.plan.events is not None and "events" not in r.written:
            r.not_written["events"] = self.plan.events.label  # a signal stopped its commit
        if self.plan.report is not None:
            self._write_report(self.plan.report)

    def _write_report(self, dest: Destination) -> None:
        r = self.result
        body = json_bytes(r.report(), indent=2) + b"\n"
        try:
            write_destination(  # it holds transcript lines: never more readable than the input
                dest, body, cap=self.plan.input_mode, on_commit=self._wrote("report", dest.label)
            )
        except Exception as err:  # noqa: BLE001 - StreamError, or OSError from mkstemp/rename
            r.not_written["report"] = dest.label
            if isinstance(err, StreamError):
                self._cut_short("report", err, len(body))
            self._fail(*classify(err))


# --------------------------------------------------------------------------------------------------
# One call


async def arun_file(
    options: RunOptions, *, sink: RunEventSink | None = None, model: ChatModel | None = None
) -> RunResult:
    """Plan and execute one run in the running event loop (a planning error is a result
    with exit code 2 and nothing written). Errors name the :class:`RunOptions` fields
    (``RunOptions.output``), not the command line's flags."""
    try:
        planned = plan(options)
    except CompactorError as err:
        result = RunResult.refused(options, err)
    else:
        result = await Run(planned, sink=sink, model=model).execute()
    if result.error is not None:
        result.error = in_option_names(result.error)
    return result


def run_file(
    options: RunOptions, *, sink: RunEventSink | None = None, model: ChatModel | None = None
) -> RunResult:
    """:func:`arun_file` in an event loop of its own: compact one file as ``compact run``."""
    import asyncio

    return asyncio.run(arun_file(options, sink=sink, model=model))
