"""Several transcripts in one process (``compact run a.jsonl b.jsonl``, ``compact run DIR``).

:func:`plan_batch` checks the batch as a whole before any file is read: folders expand to their
transcripts without earlier outputs, no two files write the same output (``a.jsonl`` and
``a.txt`` both mean ``a.compact.jsonl``), ``--output-dir`` and ``--report`` are usable.

Every file is its own :class:`~compactor.runs.runner.Run` (its own plan, exit code and result; a
failing file stops no other), all as tasks of ONE event loop. ``jobs`` bounds the model requests
in flight (:func:`compactor.models.pool.request_slot`) and ``2 * jobs`` the files open at once:
while ``jobs`` requests wait on the network, the next files are read, counted and masked, so a
freed slot sends at once. The config file is read once, and model calls with equal settings
share one client and its connections (:func:`compactor.models.pool.shared_clients`). The
config's spend ``limits`` bound the batch as a whole: one
:class:`~compactor.pipeline.limits.SpendMeter` for every file, each reserving its plan before its
first request.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from compactor._json import JsonObject
from compactor.configfile import FileConfig, check_config, config_fields
from compactor.errors import CompactorError, ConfigError
from compactor.events import RunEventSink
from compactor.io import Destination, json_bytes, resolve_destination, write_destination
from compactor.pipeline.limits import SpendMeter

from .inputs import expand_inputs
from .run_plan import RunOptions, check_not_config, check_output_dir, output_path, plan
from .run_result import RunResult
from .runner import Run

__all__ = [
    "BatchPlan",
    "batch_report",
    "batch_totals",
    "plan_batch",
    "run_batch",
    "write_batch_report",
]


@dataclass
class BatchPlan:
    """The files of a batch and where each one goes, checked before any file is read."""

    files: list[str]
    skipped: list[str] = field(default_factory=list)
    """Earlier outputs (``*.compact.jsonl``) left out of the batch."""
    report: Destination | None = None
    report_cap: int | None = None
    """The mode bits the batch report may have at most: those every input has (it holds
    transcript lines, so it is never more readable than the least readable input)."""


def _identity(path: str) -> tuple[int, int] | str:
    try:
        st = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (st.st_dev, st.st_ino)


def _distinct(files: list[str], base: RunOptions) -> list[str]:
    """``files`` with each file once, by identity (device, inode): ``a.jsonl ./a.jsonl`` or a
    symlink to it is one file, compacted once and counted once (the first name given is kept).
    Without ``--in-place``, two names of one file stay two runs when their outputs differ."""
    seen: set[tuple[object, object]] = set()
    kept: list[str] = []
    for path in files:
        target = output_path(dataclasses.replace(base, input=path))
        key = (_identity(path), None if target is None else _identity(target))
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


def _mode_cap(files: list[str]) -> int | None:
    cap: int | None = None
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            cap = stat.S_IMODE(st.st_mode) & (0o7777 if cap is None else cap)
    return cap


def plan_batch(items: list[str], base: RunOptions) -> BatchPlan:
    """Expand ``items`` (folders → their transcripts) and check the batch as a whole:
    ``-o``/``--events`` name one file, ``--output-dir`` exists, no two files write the same
    output, no output is another file of the batch, and ``--report`` is none of them.
    Everything refused is a ConfigError (exit 2) before any file is read or written; what a
    single file's plan refuses is that file's own result."""
    if base.output is not None:
        raise ConfigError(
            "-o/--output works with one input only; a batch writes NAME.compact.jsonl beside "
            "each input, or into --output-dir DIR (or use --in-place)"
        )
    if base.events is not None:
        raise ConfigError("--events works with one input only")
    if "-" in items:
        raise ConfigError("stdin (-) cannot be part of a batch of several inputs")
    if base.output_dir is not None:
        if base.in_place:
            raise ConfigError("use either --output-dir or --in-place, not both")
        check_output_dir(base.output_dir)
    inputs = expand_inputs(items, skip_outputs=True)
    files = _distinct(list(dict.fromkeys(inputs.files)), base)  # a file named twice runs once
    inputs_by_id = {_identity(path): path for path in files}
    writes: dict[tuple[int, int] | str, tuple[str, str]] = {}
    for path in files:
        target = output_path(dataclasses.replace(base, input=path))
        if target is None:  # --in-place
            continue
        ident = _identity(target)
        other = inputs_by_id.get(ident)
        if other == path:
            raise ConfigError(
                f"--output-dir {base.output_dir!r} holds {path!r}: its output would replace "
                "it; choose another folder (or --in-place, which archives the original first)"
            )
        if other is not None:
            raise ConfigError(
                f"{path!r} would write {target!r}, which is {other!r}, another input of the batch"
            )
        if ident in writes:
            first, _ = writes[ident]
            hint = "" if base.output_dir else "; run them separately or use --output-dir"
            raise ConfigError(f"{first!r} and {path!r} would both write {target!r}{hint}")
        writes[ident] = (path, target)
    report = None
    if base.report:
        report = resolve_destination(base.report, "report")
        if report.kind != "stdout" and not report.char_device:
            for ident, (path, _) in writes.items():
                if ident == report.identity:
                    raise ConfigError(
                        f"--report {base.report!r} is the output of {path!r}, a file of the batch"
                    )
            if report.identity in inputs_by_id:
                name = inputs_by_id[report.identity]
                raise ConfigError(f"--report {base.report!r} is {name!r}, a file of the batch")
        check_not_config([report], base)
    return BatchPlan(files, inputs.skipped, report, _mode_cap(files))


def batch_totals(results: list[RunResult], duration_s: float) -> JsonObject:
    """The batch's totals: files compacted / unchanged / failed, and the tokens before and
    after over the files written (a failed file wrote nothing)."""
    ok = [r for r in results if r.exit_code == 0]
    compacted = [r for r in ok if r.triggered]
    return {
        "files": len(results),
        "compacted": len(compacted),
        "unchanged": len(ok) - len(compacted),
        "failed": len(results) - len(ok),
        "tokens_before": sum(r.tokens_before or 0 for r in ok),
        "tokens_after": sum(r.tokens_after or 0 for r in ok),
        "duration_s": round(duration_s, 3),
    }


def batch_report(plan: BatchPlan, results: list[RunResult], duration_s: float) -> JsonObject:
    """The ``--report`` object of a batch: ``files`` (each file's report), ``skipped`` and
    ``totals``."""
    return {
        "files": [r.report() for r in results],
        "skipped": plan.skipped,
        "totals": batch_totals(results, duration_s),
    }


def write_batch_report(dest: Destination, report: JsonObject, *, cap: int | None = None) -> None:
    """Write the batch report (``cap``: :attr:`BatchPlan.report_cap`); StreamError when it
    could not be written."""
    write_destination(dest, json_bytes(report, indent=2) + b"\n", cap=cap)


def _warm_up(file_cfg: FileConfig | None) -> bool:
    """Before a batch: check the resolved config once and build its models.

    Returns whether the config passed :func:`check_config` (then no file checks it again; else
    every file reports the problem itself). Building its fields imports the model backend and
    the config's hooks before the loop starts, not in the first file's turn.
    """
    if file_cfg is None:
        return False
    checked = False
    try:
        check_config(file_cfg)
        checked = True
        config_fields(file_cfg)
    except Exception:  # noqa: BLE001 - reported per file, by that file's own plan
        pass
    return checked


async def run_batch(
    files: list[str],
    base: RunOptions,
    *,
    jobs: int = 4,
    on_done: Callable[[int, RunResult], None] | None = None,
    runs: list[Run | None] | None = None,
    sink_for: Callable[[int, str], RunEventSink | None] | None = None,
) -> list[RunResult]:
    """Run ``base`` (with ``input`` set per file, no output/report/events) over ``files``.

    ``on_done(index, result)`` is called as each file finishes. ``runs``, when given, receives
    each file's :class:`Run` as it starts, so a caller interrupted mid-batch can tell what every
    file wrote. ``sink_for(index, path)``: the event sink of that file's run (``-v``), if any.
    """
    from compactor.models.pool import shared_clients

    results: list[RunResult] = [
        RunResult(input=path, output="", exit_code=130, error="not started") for path in files
    ]
    slots: list[Run | None] = runs if runs is not None else []
    slots[:] = [None for _ in files]
    try:
        file_cfg: FileConfig | None = base.file_config()
        load_error: CompactorError | None = None
    except CompactorError as err:
        file_cfg, load_error = None, err
    checked = _warm_up(file_cfg)
    # One spend budget for the whole batch: files reserve their plans as they start.
    meter = None
    if checked and file_cfg is not None:
        limits = file_cfg.spend_limits()
        meter = SpendMeter(limits) if limits is not None else None

    async def one(index: int, path: str, sem: asyncio.Semaphore) -> None:
        async with sem:
            options = dataclasses.replace(base, input=path, report=None, events=None)
            if load_error is not None:
                result = RunResult.refused(options, load_error)
            else:
                try:
                    planned = plan(options, file_config=file_cfg, config_checked=checked)
                except CompactorError as err:
                    result = RunResult.refused(options, err)
                else:
                    sink = sink_for(index, path) if sink_for is not None else None
                    run = slots[index] = Run(planned, meter=meter, sink=sink)
                    result = await run.execute()
            results[index] = result
            if on_done is not None:
                on_done(index, result)

    async def main() -> None:
        sem = asyncio.Semaphore(2 * jobs)
        async with shared_clients(requests=jobs):
            await asyncio.gather(*(one(i, p, sem) for i, p in enumerate(files)))

    await main()
    return results
