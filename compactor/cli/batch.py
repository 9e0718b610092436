"""``compact run`` over several transcripts: one status line per file, the highest exit code.

The library (:mod:`compactor.batch`) runs the files; this module prints a line per file (as
each finishes on a terminal, in input order otherwise) and writes the batch report.
"""

from __future__ import annotations

import asyncio

from compactor.runner import Run, RunOptions, RunResult

from . import common
from .run import written_clause
from .safe_text import visible

__all__ = ["run_batch_command"]


def _line(result: RunResult) -> str:
    if result.exit_code == 0:
        done = "compacted" if result.triggered else "not compacted"
        return f"{result.input}: {done} → {result.output}"
    where = "" if result.exit_code == 2 and not result.written else f"; {written_clause(result)}"
    return f"{result.input}: failed (exit {result.exit_code}): {result.error}{where}"


def run_batch_command(
    transcripts: list[str], base: RunOptions, jobs: int, quiet: bool, debug: bool
) -> int:
    """Run the batch and render it; the highest exit code of its files."""
    from compactor.batch import batch_inputs, plan_batch_report, run_batch, write_batch_report

    try:
        files = batch_inputs(transcripts, output=base.output, events=base.events)
        report = (
            plan_batch_report(base.report, files, in_place=base.in_place) if base.report else None
        )
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    console = common.err_console()
    live = console.is_terminal and not quiet
    results: list[RunResult | None] = [None for _ in files]
    runs: list[Run | None] = []

    def done(index: int, result: RunResult) -> None:
        results[index] = result
        if live:
            console.print(visible(_line(result)), markup=False, highlight=False, soft_wrap=True)

    interrupted: KeyboardInterrupt | None = None
    try:
        asyncio.run(run_batch(files, base, jobs=jobs, on_done=done, runs=runs))
    except KeyboardInterrupt as err:
        interrupted = err
    final: list[RunResult] = []
    for index, path in enumerate(files):
        result = results[index]
        if result is None:
            run = runs[index] if index < len(runs) else None
            result = run.result if run is not None else RunResult(input=path, output="")
            if run is None:
                result.exit_code, result.error = 130, "interrupted before it started"
        final.append(result)
    if not live and not quiet:
        for result in final:
            console.print(visible(_line(result)), markup=False, highlight=False, soft_wrap=True)
    code = max(int(r.exit_code) for r in final)
    if report is not None:
        try:
            write_batch_report(report, final)
        except Exception as err:  # noqa: BLE001 - mapped in exitcodes.py
            common.print_error(f"failed to write the batch report: {err}", err, debug)
            code = max(code, 6)
    if interrupted is not None:
        from compactor.exitcodes import classify

        message, exit_code = classify(interrupted)
        written = sum(1 for r in final if "output" in r.written)
        common.print_error(f"{message}; {written} of {len(final)} outputs were written")
        return int(exit_code)
    return code
