"""``compact run``: build :class:`~compactor.runner.RunOptions`, let the library plan and
execute the run, render its :class:`~compactor.runner.RunResult`.

Everything that touches a file lives in :mod:`compactor.runner` (one file) and
:mod:`compactor.batch` (several); this module turns flags into options, drives the live view
(an event sink) and prints the final line.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import common
from .common import ConfigOpt, DebugOpt, FormatOpt

if TYPE_CHECKING:  # the runner (asyncio, io, events) is imported when `run` runs
    from compactor.events import RunEvent
    from compactor.runner import RunOptions, RunResult

    from .live import LiveView

__all__ = ["run"]


def run(
    transcripts: Annotated[
        list[str],
        typer.Argument(
            metavar="TRANSCRIPT...",
            help="Transcript file, or - for stdin; several files or a directory (its *.jsonl) "
            "run as a batch.",
        ),
    ],
    config: ConfigOpt = None,
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="OUT",
            help="Output file, - for stdout (default: NAME.compact.jsonl beside the input; "
            "stdout when reading stdin).",
        ),
    ] = None,
    in_place: Annotated[
        bool, typer.Option("--in-place", help="Replace the input (the original is archived).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Summarize even if not triggered.")
    ] = False,
    fmt: FormatOpt = None,
    model: Annotated[
        str | None,
        typer.Option("--model", metavar="SPEC", help="Summarizer: openai:NAME or local."),
    ] = None,
    transcript_path: Annotated[
        str | None,
        typer.Option(
            "--transcript-path",
            metavar="PATH",
            help="Path named in the summary's 'full transcript' note: auto, none, or a path.",
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
            help="Write every event as JSON lines to FILE (- = stderr), also on failure.",
        ),
    ] = None,
    append: Annotated[
        bool,
        typer.Option(
            "--append",
            help="claude-code/codex: append the compaction to the session instead of "
            "shrinking the file.",
        ),
    ] = False,
    cache: Annotated[
        bool | None,
        typer.Option(
            "--cache/--no-cache",
            help="Reuse summaries of identical summarizer inputs (default: the config's "
            "cache section; off without one).",
        ),
    ] = None,
    fallback: Annotated[
        str | None,
        typer.Option(
            "--fallback",
            metavar="local|none",
            help="Last resort after retry and failover: the embedded summarizer (the summary "
            "and the report say it is degraded).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            metavar="N",
            help="Batch: at most N summarizer requests at a time (default 4), while up to 2N "
            "files are read and written; with --jobs a lone DIRECTORY means its *.jsonl.",
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Compact TRANSCRIPT when its trigger fires (--force: always).

    The output keeps the input's format. Not triggered → the output is the input, byte for byte.
    Every destination is checked before any work; an in-place run archives the original first.

    Examples:

      compact run session.jsonl

      compact run session.jsonl --model openai:gpt-4o-mini -o short.jsonl

      cat session.jsonl | compact run - --force > short.jsonl

      compact run ~/.claude/projects/x/abc.jsonl --in-place --report report.json

      compact run sessions/ --jobs 8 --report batch.json
    """
    from compactor.runner import RunOptions

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
    )
    # Batch: several inputs, or --jobs with a directory. One input runs exactly as always.
    if len(transcripts) > 1 or (
        jobs is not None and any(t != "-" and os.path.isdir(t) for t in transcripts)
    ):
        from .batch import run_batch_command

        raise typer.Exit(run_batch_command(transcripts, options, jobs or 4, quiet, debug))
    raise typer.Exit(run_one(options, quiet=quiet, debug=debug))


class _ViewSink:
    """Feeds the live view; a view that cannot write (stderr closed or full) is switched off
    instead of stopping the run, and the run's outcome then says so (exit 6)."""

    def __init__(self, view: LiveView) -> None:
        self.view = view
        self.error: BaseException | None = None

    def __call__(self, event: RunEvent) -> None:
        if self.error is None:
            try:
                self.view(event)
            except (OSError, ValueError) as err:
                self.error = err

    def call(self, method: Any, *args: Any) -> None:
        if self.error is None:
            try:
                method(*args)
            except (OSError, ValueError) as err:
                self.error = err


def run_one(options: RunOptions, *, quiet: bool, debug: bool) -> int:
    """Plan, execute and render one run; the exit code."""
    import asyncio

    from compactor.runner import Run, plan

    from .live import LiveView

    try:
        planned = plan(options)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    primary, failover = planned.attempts
    view = LiveView(
        common.err_console(),
        quiet=quiet or options.events == "-",  # stderr carries the events: no other lines
        primary_attempts=primary,
        failover_attempts=failover,
    )
    sink = _ViewSink(view)
    job = Run(planned, sink=sink)
    try:
        with view:
            result = asyncio.run(job.execute())
    except KeyboardInterrupt:
        result = job.result  # the run recorded the interrupt and what it had written
    render(result, sink, options, debug=debug, exception=job.exception)
    if sink.error is not None and result.exit_code == 0:
        return 6  # the final line could not be shown (stderr closed or full)
    return int(result.exit_code)


_DATA = ("archive", "output")


def written_clause(result: RunResult) -> str:
    """What a failed or interrupted run left behind, for its error line: the archive and the
    output it wrote (or ``nothing was written``), then what it meant to write and did not. A
    report or events file written is not listed (the report's ``written`` has everything)."""
    done = {k: v for k, v in result.written.items() if k in _DATA}
    missing = {k: v for k, v in result.not_written.items() if done or k not in _DATA}
    text = "written: " + _listing(done) if done else "nothing was written"
    return text + ("; not written: " + _listing(missing) if missing else "")


def _listing(files: dict[str, str]) -> str:
    return ", ".join(f"{role} {label}" for role, label in files.items())


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def render(
    result: RunResult,
    sink: _ViewSink,
    options: RunOptions,
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
            f"compacted {_n(result.messages_before)} → {_n(result.messages_after)} messages, "
            f"{_n(result.tokens_before)} → {_n(result.tokens_after)} tokens → {where}"
        )
        if result.archive:
            line += f" (original archived at {result.archive})"
        if result.degraded:
            line += " (DEGRADED: written by the embedded fallback summarizer)"
    else:
        kept = "input left as is" if options.in_place else f"copied to {where}"
        line = f"not compacted ({result.reason}); {kept}"
    sink.call(sink.view.summary, line)
