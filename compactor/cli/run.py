"""``compact run``: build :class:`~compactor.runs.runner.RunOptions`, let the library plan and
execute the run, render its :class:`~compactor.runs.runner.RunResult`.

Everything that touches a file lives in :mod:`compactor.runs.runner` (one file; its plan in
:mod:`compactor.runs.run_plan`) and :mod:`compactor.runs.batch` (several); this module turns flags
into options, drives the live view (an event sink) and prints the final line.
"""

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from compactor.formats import APPEND_FORMATS
from compactor.models.providers import DEFAULT_REMOTE
from compactor.models.registry import model_flag_help

from . import common
from .common import (
    ConfigOpt,
    DebugOpt,
    FormatOpt,
    InstructionsFileOpt,
    InstructionsOpt,
    OffloadDirOpt,
    StrategyOpt,
    ThresholdOpt,
    TokenCounterOpt,
    count,
    number,
)
from .exitcodes import EXIT_CODES_HELP
from .helptext import epilog

if TYPE_CHECKING:  # the runner (asyncio, io, events) is imported when `run` runs
    from compactor.events import RunEvent
    from compactor.runs.run_plan import RunPlan
    from compactor.runs.runner import RunOptions, RunResult

    from .live import LiveView

__all__ = ["APPEND_OPTION_HELP", "EPILOG", "run"]

APPEND_OPTION_HELP = (
    f"{', '.join(APPEND_FORMATS)}: keep the session byte for byte and append the compaction, "
    "so the client resumes from it."
)
"""``--append``'s help: the formats whose declaration says they can be appended to."""

EPILOG = epilog(
    [
        (
            "writes session.compact.jsonl beside it (a copy when not triggered)",
            "compact run session.jsonl",
        ),
        (
            "always summarize, with the embedded summarizer (no key, no network)",
            "compact run session.jsonl --force --model local",
        ),
        (
            "a model of a provider; the output to a file of your choice",
            f"compact run session.jsonl --model {DEFAULT_REMOTE.label({})} -o short.jsonl",
        ),
        ("a pipeline: stdin to stdout", "cat session.jsonl | compact run - > short.jsonl"),
        (
            "replace the session file itself (the original is archived first)",
            "compact run ~/.claude/projects/x/abc.jsonl --in-place --report report.json",
        ),
        (
            "every *.jsonl of a folder, outputs into small/ under their own names",
            "compact run logs/ --output-dir small/ --report batch.json",
        ),
    ],
    EXIT_CODES_HELP,
)


def run(
    transcripts: Annotated[
        list[str],
        typer.Argument(
            metavar="TRANSCRIPT...",
            help="A transcript file, - for stdin, or a folder (its *.jsonl). Several run as "
            "a batch.",
        ),
    ],
    config: ConfigOpt = None,
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            help="Write the result to FILE, - for stdout (default: NAME.compact.jsonl beside "
            "the input; stdout when reading stdin).",
        ),
    ] = None,
    output_dir: Annotated[
        str | None,
        typer.Option(
            "--output-dir",
            metavar="DIR",
            help="Write each result into the folder DIR (created if missing), under its "
            "input's name.",
        ),
    ] = None,
    in_place: Annotated[
        bool,
        typer.Option("--in-place", help="Replace the input (the original is archived first)."),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Summarize even when the trigger does not fire.")
    ] = False,
    threshold: ThresholdOpt = None,
    token_counter: TokenCounterOpt = None,
    strategy: StrategyOpt = None,
    offload_dir: OffloadDirOpt = None,
    instructions: InstructionsOpt = None,
    instructions_file: InstructionsFileOpt = None,
    fmt: FormatOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="MODEL",
            autocompletion=common.complete_model,
            help=f"The summarizer: {model_flag_help()}.",
        ),
    ] = None,
    transcript_path: Annotated[
        str | None,
        typer.Option(
            "--transcript-path",
            metavar="PATH",
            help="The full transcript the summary's note points at: auto (the input; stdin: "
            "says so), archive (archive the original and point there), none, or a path.",
        ),
    ] = None,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            metavar="FILE",
            help="Write a JSON report to FILE (- = stdout), also when the run fails.",
        ),
    ] = None,
    events: Annotated[
        str | None,
        typer.Option(
            "--events",
            metavar="FILE",
            help="Write every event as a JSON line to FILE (- = stderr), also when the run fails.",
        ),
    ] = None,
    append: Annotated[
        bool,
        typer.Option(
            "--append",
            help=APPEND_OPTION_HELP,
        ),
    ] = False,
    cache: Annotated[
        bool | None,
        typer.Option(
            "--cache/--no-cache",
            help="Reuse the summary of an identical summarizer request (default: the "
            "config's cache section; without one, on for remote models).",
        ),
    ] = None,
    fallback: Annotated[
        str | None,
        typer.Option(
            "--fallback",
            metavar="local|none",
            help="After retry and failover, fall back to the embedded summarizer (the summary "
            "and the report say it is degraded).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Say what was read, decided and sent, also when not on a terminal "
            "(tracebacks: --debug).",
        ),
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            metavar="N",
            help="Batch: at most N summarizer requests at a time (default 4), while up to 2N "
            "files are read and written.",
        ),
    ] = None,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            metavar="ADDRESS",
            help="Batch: one task per file on a Dask cluster (a scheduler ADDRESS, or local[:N] "
            "for N worker processes here); --jobs holds across the cluster; a re-run skips "
            "files whose output is up to date.",
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Compact transcripts whose trigger fires, in their own format.

    A transcript whose trigger does not fire is copied byte for byte (--force summarizes it
    anyway). Every destination is checked before any work, and a failed run writes nothing.
    A folder or several files run as a batch: a line per file, then a summary line; earlier
    outputs (*.compact.jsonl) are left out.
    """
    from compactor.runs.runner import RunOptions

    from .distributed import is_remote, localized

    # file:// is a local path; other URLs (s3://, gs://, az://, memory://) and --dask go
    # through compactor.distributed.
    transcripts = [localized(t) or t for t in transcripts]
    output, output_dir, report = localized(output), localized(output_dir), localized(report)
    events = localized(events)
    options = RunOptions(
        input=transcripts[0],
        output=output,
        in_place=in_place,
        force=force,
        format=fmt,
        model=model,
        transcript_path=transcript_path,
        report=report,
        events=events,
        append=append,
        cache=cache,
        fallback=fallback,
        config=config,
        output_dir=output_dir,
        threshold=common.tokens(threshold),
        token_counter=token_counter,
        strategy=strategy,
        offload_dir=offload_dir,
        instructions=common.focus_instructions(instructions, instructions_file),
    )
    if is_remote([*transcripts, output, output_dir, report, events], dask):
        from .distributed import run_remote_command

        code = run_remote_command(transcripts, options, jobs or 4, quiet, debug, dask)
        raise typer.Exit(code)
    # A batch: several inputs, or a folder. One file runs exactly as always.
    if len(transcripts) > 1 or (transcripts[0] != "-" and os.path.isdir(transcripts[0])):
        from .batch import run_batch_command

        raise typer.Exit(run_batch_command(transcripts, options, jobs or 4, quiet, debug, verbose))
    raise typer.Exit(run_one(options, quiet=quiet, debug=debug, verbose=verbose))


class _ViewSink:
    """Feeds the live view; a view that cannot write (stderr closed or full) is switched off
    instead of stopping the run, and the run's outcome then says so (exit 6)."""

    def __init__(self, view: "LiveView | _Silent") -> None:
        self.view = view
        self.error: BaseException | None = None

    def __call__(self, event: "RunEvent") -> None:
        if self.error is None:
            try:
                self.view(event)
            except (OSError, ValueError) as err:
                self.error = err

    def call(self, method: Callable[..., object], *args: object) -> None:
        if self.error is None:
            try:
                method(*args)
            except (OSError, ValueError) as err:
                self.error = err


_KEPT: list[object] = []
"""The last run this process made: ``compact`` exits with ``os._exit`` right after it, so
freeing what it holds (a 50 MB input, a streaming pass's records: 10-15 ms) would be time spent
for nothing (one run at most: a process that runs the command again frees the one before)."""


def run_one(options: "RunOptions", *, quiet: bool, debug: bool, verbose: bool = False) -> int:
    """Plan, execute and render one run; the exit code."""
    from compactor.runs.run_reduce import loopless
    from compactor.runs.runner import Run, plan

    try:
        planned = plan(options)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    if options.input == "-" and not quiet and _stdin_is_a_terminal():
        common.print_error(
            "waiting for a transcript on stdin (paste it, then Ctrl-D; Ctrl-C to stop)"
        )
    quiet = quiet or options.events == "-"  # stderr carries the events: no other lines
    view: LiveView | _Silent = _Silent() if quiet else _live_view(planned, verbose)
    sink = _ViewSink(view)
    if view.verbose:
        sink.call(view.config, *_verbose_setup(planned))
    job = Run(planned, sink=sink)
    job.held = []  # kept with the run: the process exits without freeing them (_hard_exit)
    _KEPT[:] = [job]
    try:
        with view:
            if loopless(planned):  # nothing awaits I/O: no event loop, asyncio not imported
                from compactor._util import run_without_loop

                result = run_without_loop(job.execute())
            else:
                import asyncio

                result = asyncio.run(job.execute())
    except KeyboardInterrupt:
        result = job.result  # the run recorded the interrupt and what it had written
    render(result, sink, options, debug=debug, exception=job.exception)
    if sink.error is not None and result.exit_code == 0:
        return 6  # the final line could not be shown (stderr closed or full)
    return int(result.exit_code)


def _live_view(planned: "RunPlan", verbose: bool) -> "LiveView":
    from .live import LiveView

    primary, failover = planned.attempts
    return LiveView(
        common.err_console(),
        primary_attempts=primary,
        failover_attempts=failover,
        verbose=verbose,
    )


class _Silent:
    """The view of a quiet run (``-q``, or ``--events -``): it shows nothing, so it needs
    neither rich nor the live view (a quiet :class:`LiveView` shows nothing either)."""

    verbose = False

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, event: object) -> None:
        return None

    def summary(self, line: str) -> None:
        return None

    def config(self, *shown: object) -> None:
        return None


def _verbose_setup(planned: "RunPlan") -> tuple[str | None, str, str]:
    """(config file, summarizer, destination) of a planned run, for ``-v``."""
    file_cfg = planned.file_config  # the resolved tree: --model is laid over the file's
    settings = file_cfg.model or {}
    provider = settings.get("provider")
    name = settings.get("name")
    model = f"{provider}:{name}" if provider and name else str(provider or "default")
    if provider is not None and "model" in file_cfg.flagged and planned.options.model:
        model = planned.options.model  # as typed (``local``, not ``local:None``)
    out = planned.output
    where = "stdout" if out.kind == "stdout" else str(out.name)
    if planned.options.in_place:
        where = f"{planned.options.input} (in place)"
    return getattr(file_cfg, "path", None), model, where


def _stdin_is_a_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


_DATA = ("archive", "output")


def written_clause(result: "RunResult") -> str:
    """What a failed or interrupted run left behind, for its error line: the archive and the
    output it wrote (or ``nothing was written``), a stream it cut short (``incomplete: output
    <stdout> cut short after 102,400 of 524,288 bytes``), then what it meant to write and did
    not. A report or events file written is not listed (the report's ``written`` has it)."""
    done = {k: v for k, v in result.written.items() if k in _DATA}
    cut = result.incomplete
    missing = {k: v for k, v in result.not_written.items() if (done or cut or k not in _DATA)}
    parts = ["written: " + _listing(done)] if done else []
    if cut:  # a stream's reader got part of it: never "nothing was written"
        shown = [
            f"{k} {_stream(missing.pop(k, '?'))} cut short after {_bytes(v)}"
            for k, v in cut.items()
        ]
        parts.append("incomplete: " + ", ".join(shown))
    if missing:
        parts.append("not written: " + _listing(missing))
    return "; ".join(parts) if done or cut else "; ".join(["nothing was written", *parts])


def _stream(label: str) -> str:
    return "<stdout>" if label == "-" else label


def _bytes(sizes: dict[str, int]) -> str:
    written, total = sizes["bytes_written"], sizes.get("bytes")
    return f"{written:,} bytes" if total is None else f"{written:,} of {total:,} bytes"


def _listing(files: dict[str, str]) -> str:
    return ", ".join(f"{role} {label}" for role, label in files.items())


def _counted(result: "RunResult") -> str:
    """What a reduce/hybrid run's token figures count when the history had a provider's usage
    (blind check 71 N5): the text, with that usage as its own figure; else nothing."""
    reduction = result.extras.get("reduction")
    usage = reduction.get("tokens_before_usage") if isinstance(reduction, dict) else None
    if result.extras.get("tokens_counted") != "text" or not isinstance(usage, int):
        return ""
    return f" (counted from the text; the provider's usage before: {usage:,})"


def render(
    result: "RunResult",
    sink: _ViewSink,
    options: "RunOptions",
    *,
    debug: bool,
    exception: BaseException | None,
) -> None:
    """The final line: a success line, or ``compact: error; what was written``."""
    if result.exit_code != 0:
        common.print_error(f"{result.error}; {written_clause(result)}", exception, debug)
        return
    where = "stdout" if result.output == "-" else result.output
    if result.triggered:
        line = (
            f"compacted {number(result.messages_before)} → "
            f"{count(result.messages_after, 'message')}, "
            f"{number(result.tokens_before)} → {count(result.tokens_after, 'token')}"
            f"{_counted(result)} → {where}"
        )
        if result.archive:
            line += f" (original archived at {result.archive})"
        if result.degraded:
            line += " (DEGRADED: written by the embedded fallback summarizer)"
        verbatim = result.extras.get("verbatim_chunks")
        if verbatim:
            parts = ", ".join(str(i) for i in verbatim)
            line += f" (chunk{'s' if len(verbatim) > 1 else ''} {parts} kept as written: no "
            line += "summary of them was shorter)"
    else:
        kept = "input left as is" if options.in_place else f"copied to {where}"
        if "output" not in result.written and not options.in_place:
            kept = "nothing written"
        line = f"not compacted ({result.reason}); {kept}"
    sink.call(sink.view.summary, line)
