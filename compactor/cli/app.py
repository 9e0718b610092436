"""``compact``: compact LLM-agent transcripts from the command line (SPEC §9).

Thin by design: reading, deciding and summarizing live in the core; this module wires flags to it,
renders progress (``live.py``), writes reports (``report.py``) and maps errors to exit codes
(``exitcodes.py``). The OpenAI client is imported only by ``run``, and only when it is used.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar, cast

import typer

from compactor import __version__
from compactor.configfile import (
    FileConfig,
    Overrides,
    build_config,
    check_config,
    load_config_file,
    load_default_config,
)
from compactor.errors import ConfigError
from compactor.trigger import TriggerDecision, decide, decide_sync, thresholds

from . import _typer_fast
from .exitcodes import EXIT_CODES_HELP, ExitCode, classify

if TYPE_CHECKING:  # the UI modules are imported when used: keeps start-up fast
    from rich.console import Console

    from .live import LiveView

__all__ = ["app", "main"]

T = TypeVar("T")

EPILOG = EXIT_CODES_HELP

_typer_fast.install()  # plain option values skip pydantic: `compact check` starts fast

app = typer.Typer(
    name="compact",
    help=(
        "Compact long LLM-agent transcripts with a summary (Eino's summarization middleware).\n\n"
        "Examples:\n\n"
        "  compact check session.jsonl\n\n"
        "  compact run session.jsonl                 # writes session.compact.jsonl\n\n"
        "  cat session.jsonl | compact run - > out.jsonl\n\n"
        "  compact run session.jsonl --in-place -c configs/openai.yaml"
    ),
    epilog=EPILOG,
    pretty_exceptions_show_locals=False,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
config_app = typer.Typer(
    help=(
        "Show or validate config files.\n\nExamples:\n\n"
        "  compact config show -c configs/openai.yaml\n\n"
        "  compact config validate configs/failover.yaml"
    ),
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(config_app, name="config")


def _err_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _traceback_text(err: BaseException) -> str:
    """The traceback for --debug, with every API key in use masked (server errors echo keys)."""
    from compactor._util import redact

    return redact("".join(traceback.format_exception(err)))


def _fail(err: BaseException, debug: bool = False) -> NoReturn:
    """Print ``Type: message`` (a traceback only with --debug) and exit with err's code."""
    message, code = classify(err)
    console = _err_console()
    if debug:
        console.print(_traceback_text(err), markup=False, highlight=False, end="")
    console.print(f"compact: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(int(code))


def _report_and_go_on(err: BaseException, debug: bool) -> BaseException:
    """``check``: print one file's error (a traceback only with --debug) and go on."""
    message, _ = classify(err)
    if debug:
        _err_console().print(_traceback_text(err), markup=False)
    _err_console().print(f"compact: {message}", markup=False, soft_wrap=True)
    return err


def _version(value: bool) -> None:
    if value:
        typer.echo(f"compact {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Compact long LLM-agent transcripts."""


# --------------------------------------------------------------------------------------------------
# run

ConfigOpt = Annotated[
    str | None,
    typer.Option(
        "-c",
        "--config",
        metavar="CONFIG",
        help="YAML config file (default: $COMPACT_CONFIG, else built-ins).",
    ),
]
FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="FORMAT",
        help="Force a format: openai, eino, claude-code, codex, anthropic.",
    ),
]


APPEND_FORMATS = ("claude-code", "codex")


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _default_output(path: str) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}.compact.jsonl"))


@app.command(epilog=EPILOG)
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
        str | None, typer.Option("--report", metavar="FILE", help="Write a JSON report to FILE.")
    ] = None,
    events: Annotated[
        str | None,
        typer.Option("--events", metavar="FILE", help="Write every event as JSON lines to FILE."),
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
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Compact TRANSCRIPT when its trigger fires (--force: always).

    The output keeps the input's format. Not triggered → the output is the input, byte for byte.

    Examples:

      compact run session.jsonl

      compact run session.jsonl --model openai:gpt-4o-mini -o short.jsonl

      cat session.jsonl | compact run - --force > short.jsonl

      compact run ~/.claude/projects/x/abc.jsonl --in-place --report report.json

      compact run sessions/ --jobs 8 --report batch.json
    """
    # Batch: several inputs, or --jobs with a directory. One input runs exactly as always.
    if len(transcripts) > 1 or (
        jobs is not None and any(t != "-" and os.path.isdir(t) for t in transcripts)
    ):
        try:
            files = _batch_inputs(transcripts, output=output, events=events)
        except typer.Exit:
            raise
        except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
            _fail(err, debug)
        options: dict[str, Any] = {
            "output": None,
            "in_place": in_place,
            "force": force,
            "fmt": fmt,
            "model": model,
            "transcript_path": transcript_path,
            "cache": cache,
            "fallback": fallback,
            "events": None,
            "append": append,
            "quiet": True,
        }
        try:
            code = _run_batch(
                files, options, config=config, jobs=jobs or 4, report=report, quiet=quiet
            )
        except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
            _fail(err, debug)
        raise typer.Exit(code)
    transcript = transcripts[0]
    try:
        code = _run(
            transcript=transcript,
            config=config,
            output=output,
            in_place=in_place,
            force=force,
            fmt=fmt,
            model=model,
            transcript_path=transcript_path,
            cache=cache,
            fallback=fallback,
            report=report,
            events=events,
            append=append,
            quiet=quiet,
        )
    except typer.Exit:
        raise
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        _fail(err, debug)
    raise typer.Exit(int(code))


def _run(
    *,
    transcript: str,
    config: str | None,
    output: str | None,
    in_place: bool,
    force: bool,
    fmt: str | None,
    model: str | None,
    transcript_path: str | None,
    report: str | None,
    events: str | None,
    append: bool,
    quiet: bool,
    cache: bool | None = None,
    fallback: str | None = None,
) -> ExitCode:
    """``compact run FILE``: :func:`_run_file` in an event loop of its own."""
    import asyncio

    return asyncio.run(
        _run_file(
            transcript=transcript,
            load_config=lambda: load_default_config(config),
            output=output,
            in_place=in_place,
            force=force,
            fmt=fmt,
            model=model,
            transcript_path=transcript_path,
            report=report,
            events=events,
            append=append,
            quiet=quiet,
            cache=cache,
            fallback=fallback,
        )
    )


async def _run_file(
    *,
    transcript: str,
    load_config: Callable[[], FileConfig],
    output: str | None,
    in_place: bool,
    force: bool,
    fmt: str | None,
    model: str | None,
    transcript_path: str | None,
    report: str | None,
    events: str | None,
    append: bool,
    quiet: bool,
    report_sink: Callable[[dict[str, Any]], None] | None = None,
    console: Console | None = None,
    cache: bool | None = None,
    fallback: str | None = None,
    check: bool = True,
) -> ExitCode:
    """Read, decide, summarize and write one transcript (a batch runs many in one loop).

    ``check=False``: the caller already ran :func:`check_config` on this config (a batch).
    """
    from compactor.formats.base import CompactionInfo
    from compactor.formats.registry import read_transcript, write_transcript
    from compactor.io import archive_original, atomic_write, read_input

    from .live import LiveView
    from .report import AttemptLog, JsonLinesSink, Tee, run_report

    started = time.monotonic()
    if in_place and transcript == "-":
        raise ConfigError("--in-place needs a file, not stdin")
    if in_place and output is not None:
        raise ConfigError("use either --in-place or -o/--output, not both")
    file_cfg = load_config()
    overrides = Overrides(
        model=model,
        transcript_file_path=transcript_path,
        format=fmt,
        cache=cache,
        fallback=fallback,
    )
    # The whole config, before reading: a bad callback or provider is exit 2 even when the
    # trigger does not fire (models are validated, not built: no openai import).
    if check:
        check_config(file_cfg, overrides)

    display, raw = read_input(transcript)
    parsed = read_transcript(display, raw, format=fmt or file_cfg.format)
    if append and parsed.format not in APPEND_FORMATS:
        raise ConfigError(
            f"--append works only for {' and '.join(APPEND_FORMATS)} transcripts, "
            f"not {parsed.format!r}"
        )
    counter = file_cfg.counter()
    trigger = file_cfg.trigger_condition()
    decision = await decide(parsed.messages, parsed.tools, trigger, counter, always_count=True)

    if in_place:
        target: str | None = transcript
    elif output == "-" or (output is None and transcript == "-"):
        target = None  # stdout
    else:
        target = output or _default_output(transcript)
        if transcript != "-" and _same_file(target, transcript):
            raise ConfigError(
                f"output {target!r} is the input; use --in-place to replace it (archives it first)"
            )

    retry_n = (file_cfg.retry or {}).get("max_retries", 3) if file_cfg.retry is not None else 0
    failover_n = (
        (file_cfg.failover or {}).get("max_retries", 3) if file_cfg.failover is not None else 0
    )
    view = LiveView(
        console or _err_console(),
        quiet=quiet,
        primary_attempts=retry_n + 1,
        failover_attempts=failover_n,
    )
    view.read(display, parsed.format, len(parsed.messages))
    view.decision(decision.triggered, decision.reason, force)

    attempts = AttemptLog()
    extras: dict[str, Any] = {}
    messages_after = len(parsed.messages)
    tokens_after = decision.tokens
    note_path: str | None = None
    summarized = decision.triggered or force

    if not summarized:
        data = raw
    else:
        auto_path: str | None
        setting = transcript_path or file_cfg.transcript_file_path or "auto"
        if in_place or transcript == "-":
            # The note must point at something that survives: archive the original first.
            auto_path = (
                archive_original(raw, file_cfg.archive_dir)
                if (in_place or setting == "auto")
                else None
            )
        else:
            auto_path = os.path.abspath(transcript)  # noqa: ASYNC240 - string work, no I/O
        cfg = build_config(file_cfg, overrides, transcript_path_auto=auto_path)
        if not decision.triggered:
            # --force on a transcript below its trigger: it cannot loop, so no guard.
            cfg = dataclasses.replace(cfg, loop_guard=None)
        note_path = cfg.transcript_file_path
        # --events is for one input only (never in a batch's shared loop)
        events_fh = open(events, "w", encoding="utf-8") if events else None  # noqa: ASYNC230
        try:
            sink = Tee(view, attempts, JsonLinesSink(events_fh) if events_fh else None)
            cfg = dataclasses.replace(cfg, emit_internal_events=True, on_event=sink)
            outcome = await _summarize(cfg, parsed.messages, parsed.tools, view)
        finally:
            if events_fh is not None:
                events_fh.close()
        new_messages = outcome.messages
        extras = _outcome_report(outcome, cfg)
        messages_after = len(new_messages)
        tokens_after = outcome.tokens_after  # counted by the loop guard, when it ran
        if tokens_after is None:
            tokens_after = (
                await decide(new_messages, parsed.tools, trigger, counter, always_count=True)
            ).tokens
        data = write_transcript(
            parsed,
            new_messages,
            mode="append" if append else "shrink",
            info=CompactionInfo(
                tokens_before=decision.tokens,
                tokens_after=tokens_after,
                trigger="auto" if decision.triggered else "manual",
            ),
        )

    degraded = bool(extras.get("degraded"))
    if target is None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    elif not (in_place and not summarized):
        atomic_write(target, data)

    if summarized:
        view.summary(
            f"compacted {len(parsed.messages):,} → {messages_after:,} messages, "
            f"{_n(decision.tokens)} → {_n(tokens_after)} tokens → {target or 'stdout'}"
            + (" (DEGRADED: written by the embedded fallback summarizer)" if degraded else "")
        )
    else:
        view.summary(
            f"not compacted ({decision.reason}); "
            + ("input left as is" if in_place else f"copied to {target or 'stdout'}")
        )
    if report or report_sink is not None:
        rep = run_report(
            input=display,
            output=target if target is not None else "-",
            fmt=parsed.format,
            triggered=summarized,
            messages_before=len(parsed.messages),
            messages_after=messages_after,
            tokens_before=decision.tokens,
            tokens_after=tokens_after,
            attempts=attempts.attempts,
            transcript_path=note_path,
            duration_s=time.monotonic() - started,
        )
        rep.update(extras)
        if report_sink is not None:
            report_sink(rep)
        if report:
            body = (json.dumps(rep, indent=2, ensure_ascii=False) + "\n").encode()
            atomic_write(report, body)
    return ExitCode.OK


def _batch_inputs(transcripts: list[str], *, output: str | None, events: str | None) -> list[str]:
    """The files of a batch: files as given, directories as their ``*.jsonl`` (sorted, without
    ``*.compact.jsonl`` outputs)."""
    if output is not None:
        raise ConfigError(
            "-o/--output works with one input only; a batch writes NAME.compact.jsonl beside "
            "each input (or use --in-place)"
        )
    if events is not None:
        raise ConfigError("--events works with one input only")
    files: list[str] = []
    for item in transcripts:
        if item == "-":
            raise ConfigError("stdin (-) cannot be part of a batch of several inputs")
        if os.path.isdir(item):
            files.extend(
                str(p)
                for p in sorted(Path(item).glob("*.jsonl"))
                if not p.name.endswith(".compact.jsonl") and p.is_file()
            )
        else:
            files.append(item)
    if not files:
        raise ConfigError(f"no *.jsonl transcripts in {', '.join(transcripts)}")
    return files


def _once(fn: Callable[[], T]) -> Callable[[], T]:
    """``fn()`` computed on the first call; later calls return that value or raise that error."""
    outcome: list[tuple[bool, Any]] = []

    def call() -> T:
        if not outcome:
            try:
                outcome.append((True, fn()))
            except Exception as err:  # noqa: BLE001 - replayed to every caller
                outcome.append((False, err))
        ok, value = outcome[0]
        if not ok:
            raise value
        return cast("T", value)

    return call


def _run_batch(
    files: list[str],
    options: dict[str, Any],
    *,
    config: str | None,
    jobs: int,
    report: str | None,
    quiet: bool,
) -> int:
    """Compact ``files`` with at most ``jobs`` model requests in flight; one status line each;
    max of the exits.

    Every file runs :func:`_run_file` as a task of ONE event loop. ``jobs`` bounds the model
    requests (:func:`compactor.models.pool.request_slot`), and ``2 * jobs`` the files open at
    once: while ``jobs`` requests wait on the network, the next files are read, counted and
    masked, so a freed slot sends at once, and finished files are written off that path. The
    config file is read once, and model calls with equal settings share one
    client and its connections (:func:`compactor.models.pool.shared_clients`). File I/O stays in
    the loop: a small file's read or atomic write takes well under a millisecond, while a hop to
    a worker thread waits for the GIL (5-10 ms per hop measured with 16 files in flight). Each
    file still gets its own config, view, report and exit code, and a failing file writes
    nothing and stops no other file.
    """
    import asyncio

    from compactor.io import atomic_write
    from compactor.models.pool import shared_clients

    console = _err_console()
    live = console.is_terminal and not quiet
    results: list[tuple[int, str, dict[str, Any]]] = [(0, "", {}) for _ in files]
    load_config = _once(lambda: load_default_config(config))
    checked = _warm_up(load_config, options)

    async def one(index: int, path: str, sem: asyncio.Semaphore) -> None:
        async with sem:
            reps: list[dict[str, Any]] = []
            try:
                code = int(
                    await _run_file(
                        transcript=path,
                        load_config=load_config,
                        report=None,
                        report_sink=reps.append,
                        console=console,
                        check=not checked,
                        **options,
                    )
                )
                rep = reps[-1] if reps else {"input": path}
                line = (
                    f"{path}: {'compacted' if rep.get('triggered') else 'not compacted'}"
                    f" → {rep.get('output')}"
                )
            except Exception as err:  # noqa: BLE001 - mapped in exitcodes.py
                message, exit_code = classify(err)
                code = int(exit_code)
                rep = {"input": path, "error": message}
                line = f"{path}: failed (exit {code}): {message}"
            results[index] = (code, line, {**rep, "exit_code": code})
            if live:
                console.print(line, markup=False, highlight=False, soft_wrap=True)

    async def main() -> None:
        sem = asyncio.Semaphore(2 * jobs)
        async with shared_clients(requests=jobs):
            await asyncio.gather(*(one(i, p, sem) for i, p in enumerate(files)))

    asyncio.run(main())
    if not live and not quiet:
        for _, line, _ in results:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    if report:
        data = {"files": [rep for _, _, rep in results]}
        atomic_write(report, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())
    return max(code for code, _, _ in results)


def _warm_up(load_config: Callable[[], FileConfig], options: dict[str, Any]) -> bool:
    """Before a batch: check and build the config once, then freeze what is alive out of the GC.

    Returns whether the config passed :func:`check_config` (then no file checks it again; else
    every file reports the problem itself).

    Building it imports the model backend (openai: ~100k long-lived objects) and the config's
    hooks before the loop starts. ``gc.freeze()`` then keeps every later collection from
    scanning those objects again: a full collection took ~40 ms, a pause of the loop that every
    file shares. The collector is off while they are made: the import alone runs dozens of
    collections that find nothing to free (~10 % of its time). Errors are ignored here: each file
    builds its own config and reports them.
    """
    import gc

    overrides = Overrides(
        model=options["model"],
        transcript_file_path=options["transcript_path"],
        format=options["fmt"],
        cache=options.get("cache"),
        fallback=options.get("fallback"),
    )
    checked = False
    gc.disable()
    try:
        check_config(load_config(), overrides)
        checked = True
        build_config(load_config(), overrides, transcript_path_auto=None)
    except Exception:  # noqa: BLE001 - reported per file, by that file's own build
        pass
    finally:
        gc.freeze()
        gc.enable()
    return checked


async def _summarize(cfg: Any, messages: list[Any], tools: list[Any], view: LiveView) -> Any:
    from compactor import new
    from compactor.schema import AgentState

    mw = new(cfg)
    with view:
        return await mw.summarize_detailed(AgentState(messages=list(messages), tools=list(tools)))


def _outcome_report(outcome: Any, cfg: Any) -> dict[str, Any]:
    """The report fields of the features beyond SPEC §9.3 (each present when it applies)."""
    extras: dict[str, Any] = {"summarizer_phase": outcome.phase, "degraded": outcome.degraded}
    if outcome.chunks:
        extras["chunks"] = outcome.chunks
    if outcome.adaptations:
        extras["context_adaptations"] = outcome.adaptations
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
        }
    if cfg.loop_guard is not None:
        extras["loop_guard"] = {
            "max_ratio": cfg.loop_guard,
            "tokens_before": outcome.tokens_before,
            "tokens_after": outcome.tokens_after,
        }
    return extras


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


# --------------------------------------------------------------------------------------------------
# check


@app.command(epilog=EPILOG)
def check(
    transcripts: Annotated[
        list[str], typer.Argument(metavar="TRANSCRIPT...", help="Transcript files, or - for stdin.")
    ],
    config: ConfigOpt = None,
    fmt: FormatOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per transcript, one per line.")
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also explain: tokens by role and tool, each trigger condition and its margin, "
            "what would be kept, summarized or cut, the summarizer input, the chunk plan, "
            "masked secrets and the estimated cost (prices: in the config).",
        ),
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="SPEC",
            help="With --explain: the summarizer to plan for (openai:NAME or local).",
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Dry run: would each transcript be compacted, and why? Never calls a model.

    Exit code 1 when at least one transcript would be compacted, else 0.

    Examples:

      compact check session.jsonl

      compact check --json sample_transcripts/*.jsonl

      compact check --explain -c configs/openai.yaml session.jsonl
    """
    if explain:
        raise typer.Exit(_explain_all(transcripts, config, fmt, model, as_json, debug))
    from compactor.formats.registry import file_tool_pairs, read_transcript
    from compactor.streaming import stream_check
    from compactor.tokens import default_token_counter

    try:
        file_cfg = load_default_config(config)
        counter = file_cfg.counter()
        trigger = file_cfg.trigger_condition()
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        _fail(err, debug)
    # The default counter on line-per-message files streams in bounded memory (same results).
    streamable = counter is default_token_counter
    any_triggered = False
    failed: BaseException | None = None
    for path in transcripts:
        try:
            streamed = stream_check(path, trigger, fmt or file_cfg.format) if streamable else None
            if streamed is not None:
                display, fmt_name, decision = path, streamed.format, streamed.decision
                messages = None
                # line-per-message formats: the whole file is the visible history
                file_pairs = (streamed.tool_calls, streamed.tool_results)
            else:
                from compactor.io import read_input

                display, raw = read_input(path)
                parsed = read_transcript(display, raw, format=fmt or file_cfg.format)
                fmt_name, messages = parsed.format, parsed.messages
                file_pairs = file_tool_pairs(parsed)
                decision = decide_sync(
                    parsed.messages, parsed.tools, trigger, counter, always_count=True
                )
        except KeyboardInterrupt as err:
            _fail(err, debug)
        except Exception as err:  # noqa: BLE001
            failed = _report_and_go_on(err, debug)
            continue
        any_triggered |= decision.triggered
        if as_json:
            from .report import check_record

            record = check_record(display, fmt_name, file_cfg.counter_name(), decision, messages)
            if streamed is not None:
                record["tool_calls"] = streamed.tool_calls
                record["tool_results"] = streamed.tool_results
            # Over every record of the file, also before an earlier compaction boundary.
            record["file_tool_calls"], record["file_tool_results"] = file_pairs
            typer.echo(json.dumps(record, ensure_ascii=False))
        else:
            typer.echo(_check_line(display, fmt_name, file_cfg.counter_name(), decision))
    if failed is not None:
        raise typer.Exit(int(classify(failed)[1]))
    raise typer.Exit(int(ExitCode.WOULD_COMPACT if any_triggered else ExitCode.OK))


class _PlannedModel:
    """Stands in for the summarizer in ``--explain``: named, never called, never imported."""

    def __init__(self, name: str, remote: bool) -> None:
        self.name = name
        self.remote = remote

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        raise AssertionError("--explain never calls a model")


def _explain_all(
    transcripts: list[str],
    config: str | None,
    fmt: str | None,
    model: str | None,
    as_json: bool,
    debug: bool,
) -> int:
    import asyncio

    from compactor.configfile import _model_dict
    from compactor.explain import explain
    from compactor.formats.registry import read_transcript
    from compactor.io import read_input

    from .report import check_record, render_explain

    any_triggered = False
    failed: BaseException | None = None
    try:
        file_cfg = load_default_config(config)
        overrides = Overrides(model=model)
        primary = _model_dict(file_cfg, overrides)
        name = "local" if primary.get("provider") == "local" else f"openai:{primary.get('name')}"
        chain = [primary, *((file_cfg.failover or {}).get("models") or [])]
        planned = _PlannedModel(name, remote=primary.get("provider") != "local")
        cfg = build_config(
            dataclasses.replace(file_cfg, failover=None),
            overrides,
            transcript_path_auto="/dev/null",
            model=planned,
        )
        cfg = dataclasses.replace(cfg, mask_secrets=file_cfg.masking(chain))
        counter = file_cfg.counter()
        trigger = file_cfg.trigger_condition()
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        _fail(err, debug)
    for path in transcripts:
        try:
            display, raw = read_input(path)
            parsed = read_transcript(display, raw, format=fmt or file_cfg.format)
            decision = decide_sync(
                parsed.messages, parsed.tools, trigger, counter, always_count=True
            )
            data = asyncio.run(
                explain(
                    cfg,
                    parsed.messages,
                    parsed.tools,
                    decision,
                    model=name,
                    prices=file_cfg.prices,
                )
            )
        except KeyboardInterrupt as err:
            _fail(err, debug)
        except Exception as err:  # noqa: BLE001
            failed = _report_and_go_on(err, debug)
            continue
        any_triggered |= decision.triggered
        if as_json:
            record = check_record(
                display, parsed.format, file_cfg.counter_name(), decision, parsed.messages
            )
            record["explain"] = data
            typer.echo(json.dumps(record, ensure_ascii=False))
        else:
            typer.echo(_check_line(display, parsed.format, file_cfg.counter_name(), decision))
            typer.echo(render_explain(data, parsed.messages))
    if failed is not None:
        return int(classify(failed)[1])
    return int(ExitCode.WOULD_COMPACT if any_triggered else ExitCode.OK)


def _check_line(path: str, fmt: str, counter: str, d: TriggerDecision) -> str:
    limits = []
    if d.threshold_tokens is not None:
        limits.append(f"{d.threshold_tokens:,} tokens")
    if d.threshold_messages is not None:
        limits.append(f"{d.threshold_messages:,} messages")
    verdict = "WOULD COMPACT" if d.triggered else "ok"
    return (
        f"{path}: {verdict} — {fmt}, {d.messages:,} messages, {_n(d.tokens)} tokens ({counter}); "
        f"threshold {' or '.join(limits) or 'none'}; {d.reason}"
    )


# --------------------------------------------------------------------------------------------------
# config


def _effective(file_cfg: FileConfig, model: str | None) -> dict[str, Any]:
    data = file_cfg.to_dict(mask=True)
    data.pop("path", None)
    if model is not None:
        if model == "local":
            data["model"] = {"provider": "local"}
        else:
            base = dict(data.get("model") or {})
            base.update(provider="openai", name=model.partition(":")[2])
            data["model"] = base
    elif data.get("model") is None:
        data["model"] = (
            {"provider": "openai", "name": "gpt-4o-mini", "api_key": "***"}
            if os.environ.get("OPENAI_API_KEY")
            else {"provider": "local"}
        )
    condition = file_cfg.trigger_condition()
    tokens, messages = thresholds(condition)
    trigger: dict[str, Any] = {
        "context_tokens": (condition.context_tokens if condition else tokens) or 0,
        "context_messages": messages or 0,
    }
    if condition is not None and condition.context_fraction:
        trigger.update(
            context_fraction=condition.context_fraction,
            window_tokens=condition.window_tokens,
            agent_model=(file_cfg.trigger or {}).get("agent_model"),
            effective_token_threshold=tokens,
        )
    data["trigger"] = trigger
    data["token_counter"] = file_cfg.counter_name()
    return data


@config_app.command("show", epilog=EPILOG)
def config_show(
    config: ConfigOpt = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", metavar="SPEC", help="Override the summarizer: openai:NAME or local."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Print the effective config (defaults, file, environment, flags); API keys are masked.

    Examples:

      compact config show

      compact config show -c configs/openai.yaml --json
    """
    try:
        file_cfg = load_default_config(config)
        data = _effective(file_cfg, model)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        _fail(err, debug)
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    if file_cfg.path:
        typer.echo(f"# effective config: built-in defaults + {file_cfg.path} + environment + flags")
    import yaml

    typer.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).rstrip())


@config_app.command("validate", epilog=EPILOG)
def config_validate(
    config: Annotated[str, typer.Argument(metavar="CONFIG", help="The YAML config file to check.")],
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
) -> None:
    """Check a config file: keys, types, ${VAR} values, pkg.mod:func references and models.

    Examples:

      compact config validate configs/failover.yaml
    """
    from compactor import new

    try:
        file_cfg = load_config_file(config)
        cfg = build_config(file_cfg, transcript_path_auto="/dev/null")
        new(cfg)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        _fail(err, debug)
    typer.echo(f"{config}: ok")


def main() -> None:
    """Console-script entry point (``compact``, ``python -m compactor``)."""
    try:
        app()
    except SystemExit as exit:
        _hard_exit(exit.code)
    _hard_exit(0)


def _hard_exit(code: object) -> NoReturn:
    """``sys.exit(code)`` without the interpreter's teardown.

    Once openai and pydantic are loaded, freeing every object at exit takes 0.1-0.3 s after the
    work is done (mypy's ``util.hard_exit`` skips it the same way). What a normal exit does
    before the teardown still happens here: non-daemon threads are joined, atexit handlers run,
    stdout and stderr are flushed. Only destructors of objects alive at exit are skipped; every
    file compact writes is closed (and fsynced) before this point.
    """
    import atexit
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): print it, exit 1
        sys.stderr.write(f"{code}\n")
        status = 1
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken pipe: as at a normal exit, status 120
            status = status or 120
    os._exit(status)
