"""Several transcripts in one process (``compact run a.jsonl b.jsonl``, ``run DIR --jobs N``).

Every file is its own :class:`~compactor.runner.Run` (its own plan, exit code and result; a
failing file stops no other), all as tasks of ONE event loop. ``jobs`` bounds the model requests
in flight (:func:`compactor.models.pool.request_slot`) and ``2 * jobs`` the files open at once:
while ``jobs`` requests wait on the network, the next files are read, counted and masked, so a
freed slot sends at once. The config file is read once, and model calls with equal settings
share one client and its connections (:func:`compactor.models.pool.shared_clients`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import os
from collections.abc import Callable
from pathlib import Path

from .configfile import FileConfig, Overrides, build_config, check_config, load_default_config
from .errors import CompactorError, ConfigError
from .io import Destination, resolve_destination, write_destination
from .runner import Run, RunOptions, RunResult, default_output, plan

__all__ = ["batch_inputs", "plan_batch_report", "run_batch", "write_batch_report"]


def batch_inputs(transcripts: list[str], *, output: str | None, events: str | None) -> list[str]:
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


def plan_batch_report(report: str, files: list[str], *, in_place: bool) -> Destination:
    """The batch report's destination, refused (ConfigError) when it is one of the inputs or
    one of the outputs the batch will write."""
    dest = resolve_destination(report, "report")
    if dest.kind == "stdout" or dest.char_device:
        return dest
    for path in files:
        for name in (path,) if in_place else (path, default_output(path)):
            try:
                st = os.stat(name)
                ident: tuple[int, int] | str = (st.st_dev, st.st_ino)
            except OSError:
                ident = os.path.realpath(name)
            if ident == dest.identity:
                raise ConfigError(f"--report {report!r} is {name!r}, a file of the batch")
    return dest


def write_batch_report(dest: Destination, results: list[RunResult]) -> None:
    """``{"files": [each file's report]}``; StreamError when it could not be written."""
    data = {"files": [r.report() for r in results]}
    write_destination(dest, (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode())


def _warm_up(file_cfg: FileConfig | None, overrides: Overrides) -> bool:
    """Before a batch: check and build the config once, then freeze what is alive out of the GC.

    Returns whether the config passed :func:`check_config` (then no file checks it again; else
    every file reports the problem itself).

    Building it imports the model backend (openai: ~100k long-lived objects) and the config's
    hooks before the loop starts. ``gc.freeze()`` then keeps every later collection from
    scanning those objects again: a full collection took ~40 ms, a pause of the loop that every
    file shares. The collector is off while they are made: the import alone runs dozens of
    collections that find nothing to free (~10 % of its time).
    """
    if file_cfg is None:
        return False
    checked = False
    gc.disable()
    try:
        check_config(file_cfg, overrides)
        checked = True
        build_config(file_cfg, overrides, transcript_path_auto=None)
    except Exception:  # noqa: BLE001 - reported per file, by that file's own plan
        pass
    finally:
        gc.freeze()
        gc.enable()
    return checked


async def run_batch(
    files: list[str],
    base: RunOptions,
    *,
    jobs: int = 4,
    on_done: Callable[[int, RunResult], None] | None = None,
    runs: list[Run | None] | None = None,
) -> list[RunResult]:
    """Run ``base`` (with ``input`` set per file, no output/report/events) over ``files``.

    ``on_done(index, result)`` is called as each file finishes. ``runs``, when given, receives
    each file's :class:`Run` as it starts, so a caller interrupted mid-batch can tell what every
    file wrote.
    """
    from .models.pool import shared_clients

    results: list[RunResult] = [
        RunResult(input=path, output="", exit_code=130, error="not started") for path in files
    ]
    slots: list[Run | None] = runs if runs is not None else []
    slots[:] = [None for _ in files]
    try:
        file_cfg: FileConfig | None = load_default_config(base.config)
        load_error: CompactorError | None = None
    except CompactorError as err:
        file_cfg, load_error = None, err
    overrides = Overrides(
        model=base.model,
        transcript_file_path=base.transcript_path,
        format=base.format,
        cache=base.cache,
        fallback=base.fallback,
    )
    checked = _warm_up(file_cfg, overrides)

    async def one(index: int, path: str, sem: asyncio.Semaphore) -> None:
        async with sem:
            options = dataclasses.replace(base, input=path, output=None, report=None, events=None)
            if load_error is not None:
                result = RunResult.refused(options, load_error)
            else:
                try:
                    planned = plan(options, file_config=file_cfg, config_checked=checked)
                except CompactorError as err:
                    result = RunResult.refused(options, err)
                else:
                    run = slots[index] = Run(planned)
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
