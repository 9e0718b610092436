"""``compact run`` over several transcripts or a folder: a line per file, a summary line, the
highest exit code.

The library plans the batch (:func:`compactor.runs.batch.plan_batch`) and runs its files
(:func:`compactor.runs.batch.run_batch`); this module prints a line per file, the summary line and
writes the batch report. On a terminal each file's line is shown as it finishes, with an ``N/M``
counter, on a status line that the end replaces; the end lists every file's line in natural
order (``s2`` before ``s10``), on a terminal or not.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from compactor.runs.runner import Run, RunOptions, RunResult

from . import common
from .common import count, number
from .run import written_clause
from .safe_text import visible_line

if TYPE_CHECKING:
    from rich.live import Live

    from compactor.events import RunEvent

__all__ = ["file_line", "natural_key", "run_batch_command", "summary_line"]


def natural_key(text: str) -> list[int | str]:
    """Sort key that orders numbers by value: ``s2`` before ``s10``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", text)]


def file_line(result: RunResult) -> str:
    """One file's line: what happened to it, its tokens and where it went."""
    if result.exit_code == 0:
        if result.triggered:
            line = (
                f"{result.input}: compacted, {number(result.tokens_before)} → "
                f"{count(result.tokens_after, 'token')}"
            )
            if result.archive:
                return f"{line}, in place (original archived at {result.archive})"
            return f"{line} → {result.output}"
        line = f"{result.input}: unchanged (not triggered), {count(result.tokens_before, 'token')}"
        return line + (", left as is" if result.output == result.input else f" → {result.output}")
    where = "" if result.exit_code == 2 and not result.written else f"; {written_clause(result)}"
    return f"{result.input}: failed (exit {result.exit_code}): {result.error}{where}"


def summary_line(totals: dict[str, int | float], skipped: int) -> str:
    """``3 files: 1 compacted, 1 unchanged, 1 failed; 245,000 → 12,000 tokens; 4.2s``."""
    parts = f"{totals['compacted']:,} compacted, {totals['unchanged']:,} unchanged, " + (
        f"{totals['failed']:,} failed"
    )
    if skipped:
        parts += f", {count(skipped, 'earlier output')} skipped"
    return (
        f"{count(int(totals['files']), 'file')}: {parts}; "
        f"{int(totals['tokens_before']):,} → {count(int(totals['tokens_after']), 'token')}; "
        f"{float(totals['duration_s']):.1f}s"
    )


def verbose_line(event: RunEvent) -> str | None:
    """What ``-v`` says of one run's step in a batch (plain text), or None for the rest."""
    match event.type:
        case "transcript_read":
            return f"read {event.format} · {count(event.messages, 'message')}"
        case "trigger_checked":
            verdict = "forced" if event.forced else "fired" if event.triggered else "not fired"
            return f"trigger {verdict}: {event.reason}"
        case "attempt_start":
            chunk = f" · chunk {event.chunk}" if event.chunk is not None else ""
            return f"sending to {event.model}: {event.phase} attempt {event.attempt}{chunk}"
        case "generate_summary":
            what = "from the cache" if event.cached else "received"
            if event.error is not None:
                return f"{event.model}: {event.phase} attempt {event.attempt} failed: {event.error}"
            return f"{event.model}: summary {what}"
        case "window_assumed":
            return f"{event.model}: planning for an assumed {event.tokens:,}-token window"
        case "after_reduce":
            return f"reduced: {event.tokens_before:,} → {count(event.tokens_after, 'token')}"
    return None


def run_batch_command(
    transcripts: list[str],
    base: RunOptions,
    jobs: int,
    quiet: bool,
    debug: bool,
    verbose: bool = False,
) -> int:
    """Plan, run and render the batch; the highest exit code of its files. ``verbose``
    (``-v``): each file's steps as they happen, one line each, named by the file."""
    from compactor.runs.batch import (
        batch_report,
        batch_totals,
        plan_batch,
        run_batch,
        write_batch_report,
    )

    started = time.monotonic()
    try:
        planned = plan_batch(transcripts, base)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    files = planned.files
    # -q prints no line of its own (errors go through common.print_error): no console, so a
    # quiet batch (CI) does not import rich before its first request (~16 ms).
    console = None if quiet else common.err_console()
    live = console is not None and console.is_terminal

    def show(line: str) -> None:
        assert console is not None  # only called when not quiet
        console.print(visible_line(line), markup=False, highlight=False, soft_wrap=True)

    results: list[RunResult | None] = [None for _ in files]
    runs: list[Run | None] = []
    progress: Live | None = None
    if live:
        from rich.live import Live
        from rich.text import Text

        progress = Live(Text(f"0/{len(files)}"), console=console, transient=True)
        progress.start()
    finished = 0

    def done(index: int, result: RunResult) -> None:
        nonlocal finished
        results[index] = result
        finished += 1
        if progress is not None:
            line = visible_line(f"{finished}/{len(files)} {file_line(result)}")
            progress.update(Text(line, no_wrap=True, overflow="ellipsis"), refresh=True)

    def sink_for(index: int, path: str) -> Callable[[RunEvent], None] | None:
        if quiet:
            return None

        def say(event: RunEvent) -> None:
            if event.type == "unknown_records":  # a warning: shown without -v too
                show(event.message())
                return
            if not verbose:
                return
            line = verbose_line(event)
            if line is not None:
                show(f"{path}: {line}")

        return say

    interrupted: KeyboardInterrupt | None = None
    try:
        asyncio.run(run_batch(files, base, jobs=jobs, on_done=done, runs=runs, sink_for=sink_for))
    except KeyboardInterrupt as err:
        interrupted = err
    finally:
        if progress is not None:
            progress.stop()
    final: list[RunResult] = []
    for index, path in enumerate(files):
        result = results[index]
        if result is None:
            run = runs[index] if index < len(runs) else None
            result = run.result if run is not None else RunResult(input=path, output="")
            if run is None:
                result.exit_code, result.error = 130, "interrupted before it started"
        final.append(result)
    duration = time.monotonic() - started
    refused = {r.extras["cache"].get("refused") for r in final if "cache" in r.extras} - {None}
    if not quiet and refused:  # the summary cache's folder is unsafe: said once for the batch
        show(f"compact: summary cache not used: {sorted(refused)[0]}")
    if not quiet:
        for result in sorted(final, key=lambda r: natural_key(r.input)):
            show(file_line(result))
        show(summary_line(batch_totals(final, duration), len(planned.skipped)))
    code = max(int(r.exit_code) for r in final)
    if planned.report is not None:
        try:
            write_batch_report(
                planned.report, batch_report(planned, final, duration), cap=planned.report_cap
            )
        except Exception as err:  # noqa: BLE001 - mapped in exitcodes.py
            common.print_error(f"failed to write the batch report: {err}", err, debug)
            code = max(code, 6)
    if interrupted is not None:
        from compactor.exitcodes import classify

        message, exit_code = classify(interrupted)
        written = sum(1 for r in final if "output" in r.written)
        common.print_error(f"{message}; {written} of {count(len(final), 'output')} written")
        return int(exit_code)
    return code
