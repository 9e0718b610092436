"""``compact run`` with object-store paths (``s3://...``) or on a Dask cluster (``--dask``).

The library does the work (:mod:`compactor.distributed`); this module routes the command there,
starts or joins the cluster, and renders with the local batch's own lines
(:func:`compactor.cli.batch.file_line`, :func:`~compactor.cli.batch.summary_line`), each line
prefixed with its place (``[12/400]``) as files finish, then the batch report.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from . import common
from .common import count

if TYPE_CHECKING:
    from compactor.runs.runner import RunOptions, RunResult

__all__ = ["is_remote", "localized", "run_remote_command"]


def _is_url(name: str | None) -> bool:
    from compactor.distributed.objects import is_url

    return is_url(name)


def localized(name: str | None) -> str | None:
    """``file://`` URLs are local paths (with every local rule)."""
    from compactor.distributed.objects import localize

    return None if name is None else localize(name)


def is_remote(names: list[str | None], dask: str | None) -> bool:
    """Whether the command goes through :mod:`compactor.distributed`."""
    return dask is not None or any(_is_url(n) for n in names)


@contextlib.contextmanager
def _client(address: str | None, debug: bool) -> Iterator[Any]:
    """No client (``None``), a ``LocalCluster`` (``local[:N]``) or the scheduler at ADDRESS."""
    if address is None:
        yield None
        return
    try:
        import logging

        import distributed
    except ImportError:
        from compactor.errors import ConfigError

        common.fail(
            ConfigError(
                "--dask needs dask.distributed, which is not installed "
                "(pip install 'dask[distributed]')"
            ),
            debug,
        )
    dist: Any = distributed  # partly typed: used as Any here
    Client, LocalCluster = dist.Client, dist.LocalCluster
    if address == "local" or address.startswith("local:"):
        workers = int(address.partition(":")[2] or 2)
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    with Client(address) as client:
        yield client


def run_remote_command(
    transcripts: list[str],
    base: RunOptions,
    jobs: int,
    quiet: bool,
    debug: bool,
    dask: str | None,
) -> int:
    """One URL file as ``compact run FILE`` does; several (or a folder, or ``--dask``) as a
    batch of :func:`compactor.distributed.compact_many`; the highest exit code."""
    from compactor.distributed.objects import check_url_options, expand_urls
    from compactor.errors import ConfigError
    from compactor.runs.inputs import expand_inputs

    if dask is not None and not (dask == "local" or dask.startswith("local:")) and ":" not in dask:
        common.fail(ConfigError(f"--dask {dask!r}: give local, local:N or a scheduler ADDRESS"))
    if (
        dask is not None
        and dask.startswith("local:")
        and not (dask[6:].isdigit() and int(dask[6:]))
    ):
        common.fail(ConfigError(f"--dask {dask!r}: local:N needs a number of workers, 1 or more"))
    try:
        check_url_options(base)
        single = len(transcripts) == 1 and dask is None
        if single and _is_url(transcripts[0]):  # an object, not a folder of them
            single = expand_urls(transcripts, skip_outputs=False).files == transcripts
        elif single:  # a local file or stdin whose output or report is an object
            single = transcripts[0] == "-" or not os.path.isdir(transcripts[0])
        if single:
            return _run_single(base, quiet=quiet, debug=debug)
        if "-" in transcripts:
            raise ConfigError("stdin (-) cannot be part of a batch")
        if base.output is not None:
            raise ConfigError("-o/--output works with one input only; use --output-dir")
        if base.events is not None:
            raise ConfigError("--events works with one input only")
        if base.in_place and dask is not None:
            raise ConfigError("--in-place is refused with --dask: use --output-dir")
        urls = [t for t in transcripts if _is_url(t)]
        paths = [t for t in transcripts if not _is_url(t)]
        found = expand_urls(urls, skip_outputs=True) if urls else None
        local = expand_inputs(paths, skip_outputs=True) if paths else None
        files = [*(found.files if found else []), *(local.files if local else [])]
        earlier = [*(found.skipped if found else []), *(local.skipped if local else [])]
        _check_targets(files, base)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    return _run_many(list(dict.fromkeys(files)), earlier, base, jobs, quiet, debug, dask)


def _check_targets(files: list[str], base: RunOptions) -> None:
    import dataclasses

    from compactor.distributed.objects import target_of
    from compactor.errors import ConfigError

    seen: dict[str, str] = {}
    inputs = set(files)
    for name in files:
        target = target_of(dataclasses.replace(base, input=name))
        if target is None:
            continue
        if target in inputs:
            raise ConfigError(f"{name!r} would write {target!r}, an input of the batch")
        if target in seen:
            raise ConfigError(f"{seen[target]!r} and {name!r} would both write {target!r}")
        seen[target] = name


class _Sink:
    """The live view as a run's event sink (as ``compact run FILE``'s): a view that cannot
    write is switched off, the run goes on."""

    def __init__(self, view: Any) -> None:
        self.view = view
        self.error: BaseException | None = None

    def __call__(self, event: Any) -> None:
        self.call(self.view, event)

    def call(self, method: Any, *args: Any) -> None:
        if self.error is None:
            try:
                method(*args)
            except (OSError, ValueError) as err:
                self.error = err


def _run_single(options: RunOptions, *, quiet: bool, debug: bool) -> int:
    from compactor.distributed.objects import run_url

    from .live import LiveView
    from .run import render

    view = LiveView(common.err_console(), quiet=quiet, primary_attempts=1, failover_attempts=0)
    sink: Any = _Sink(view)  # the shape of cli.run's own sink
    with view:
        result = run_url(options, sink=sink)
    render(result, sink, options, debug=debug, exception=None)
    return int(result.exit_code)


def _run_many(
    files: list[str],
    earlier: list[str],
    base: RunOptions,
    jobs: int,
    quiet: bool,
    debug: bool,
    dask: str | None,
) -> int:
    from compactor.distributed import compact_many
    from compactor.runs.batch import batch_totals

    from .batch import file_line, summary_line
    from .safe_text import visible_line

    started = time.monotonic()
    console = None if quiet else common.err_console()
    live = console is not None and console.is_terminal
    finished = 0

    def show(line: str) -> None:
        if console is not None:
            console.print(visible_line(line), markup=False, highlight=False, soft_wrap=True)

    def done(index: int, result: RunResult | None) -> None:
        nonlocal finished
        finished += 1
        if live:
            what = file_line(result) if result is not None else f"{files[index]}: skipped"
            show(f"[{finished}/{len(files)}] {what}")

    try:
        with _client(dask, debug) as client:
            outcome = compact_many(files, base, client=client, jobs=jobs, on_done=done)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.fail(err, debug)
    duration = time.monotonic() - started
    final = [r for r in outcome.results if r is not None]
    if not quiet:
        if not live:
            for result in final:
                show(file_line(result))
        show(summary_line(batch_totals(final, duration), len(earlier)))
        if outcome.skipped:
            show(
                f"{count(len(outcome.skipped), 'file')} skipped: output up to date (same input "
                "bytes and config, per compact-manifest.json), left untouched"
            )
        for problem in outcome.manifest_errors:
            show(f"compact: manifest not written: {problem}")
    code = max((int(r.exit_code) for r in final), default=0)
    if base.report is not None:
        code = max(code, _write_report(base.report, outcome, final, earlier, duration, debug))
    if outcome.interrupted:
        ran = sum(1 for r in final if r.exit_code != 130)
        common.print_error(
            f"interrupted by Ctrl-C: {ran} of {count(len(files), 'file')} done"
            f"{f', {len(outcome.skipped)} skipped' if outcome.skipped else ''}; "
            "the remaining tasks were cancelled"
        )
        return 130
    return code


def _write_report(
    name: str,
    outcome: Any,
    final: list[RunResult],
    earlier: list[str],
    duration: float,
    debug: bool,
) -> int:
    import sys

    from compactor.distributed.objects import write_bytes
    from compactor.io import json_bytes
    from compactor.runs.batch import batch_totals

    report = {
        "files": [r.report() for r in final],
        "skipped": earlier,
        "up_to_date": outcome.skipped,
        "interrupted": outcome.interrupted,
        "totals": {**batch_totals(final, duration), "skipped_up_to_date": len(outcome.skipped)},
    }
    body = json_bytes(report, indent=2) + b"\n"
    try:
        if name == "-":
            sys.stdout.buffer.write(body)
            sys.stdout.buffer.flush()
        else:
            write_bytes(name, body)
    except Exception as err:  # noqa: BLE001 - mapped in exitcodes.py
        common.print_error(f"failed to write the batch report: {err}", err, debug)
        return 6
    return 0
