"""Many files, one task each: in this process, or on a Dask cluster (:func:`compact_many`).

Every file is the same file run ``compact run`` does (:func:`.objects.run_url`, the ordinary
plan and :class:`~compactor.runs.runner.Run`), so a cluster writes the same bytes as one machine.
On a cluster (``client``):

* the config is loaded once here and sent to the workers once (``client.scatter``, broadcast);
* ``jobs`` bounds the files in flight across the whole cluster, and so the remote model's
  requests (one ``distributed.Semaphore``, not a limit per worker);
* results come back as they finish (``as_completed``) through ``on_done``;
* a task whose worker dies is rescheduled on another worker by the scheduler (up to its
  ``distributed.scheduler.allowed-failures``); a task that raises (a store that failed for a
  moment) is retried ``retries`` times (``submit(retries=...)``). A file whose run fails is not
  an exception: its result carries the error and the batch goes on;
* Ctrl-C cancels the tasks not finished (:attr:`ManyOutcome.interrupted`).

A re-run skips what is done: ``compact-manifest.json`` beside the outputs (its name does not end
in ``.jsonl``, so it is never an input) maps *input sha256 : config sha256* to the outputs
written from them and their sizes; an input whose output still exists with that size is skipped
(:attr:`ManyOutcome.skipped`) and its output left untouched. The manifest is written by this
process only (never by two workers at once), every few seconds and at the end.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import posixpath
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from compactor.errors import CompactorError

from .objects import is_url, read_bytes, run_url, target_of, url_size, write_bytes

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.runs.run_plan import RunOptions
    from compactor.runs.run_result import RunResult

__all__ = ["MANIFEST_NAME", "ManyOutcome", "compact_many", "config_digest", "file_task"]

MANIFEST_NAME = "compact-manifest.json"
"""The manifest beside the outputs (not ``*.jsonl``: never taken for a transcript)."""

_SAVE_EVERY_S = 5.0


@dataclass
class ManyOutcome:
    """What :func:`compact_many` did."""

    results: list[RunResult | None]
    """One per input, in input order; None for a skipped input."""
    skipped: list[str] = field(default_factory=list)
    """Inputs whose output was up to date (same input bytes and config): not run again."""
    interrupted: bool = False
    """Ctrl-C: the tasks not finished were cancelled (their results say so, exit 130)."""
    manifest_errors: list[str] = field(default_factory=list)
    """Manifests that could not be written (the outputs are fine; a re-run redoes more)."""


@dataclass(frozen=True)
class TaskResult:
    """What one task sends back: the run's result, or that it was skipped."""

    input: str
    digest: str
    target: str | None
    size: int | None
    result: RunResult | None


@dataclass(frozen=True)
class _Shared:
    """Sent to every worker once: the loaded config and the manifest's entries."""

    file_config: FileConfig
    config_hash: str
    entries: dict[str, dict[str, int]]


def config_digest(options: RunOptions, file_cfg: FileConfig) -> str:
    """sha256 of everything that shapes an output: the config's values and the run's flags
    (not where the input, output, report or events are)."""
    flags = dataclasses.asdict(options)
    for key in ("input", "output", "output_dir", "report", "events", "config"):
        flags.pop(key, None)
    config = dataclasses.asdict(file_cfg)
    config.pop("path", None)
    blob = json.dumps({"options": flags, "config": config}, sort_keys=True, default=_stable)
    return hashlib.sha256(blob.encode()).hexdigest()


def _stable(value: Any) -> Any:
    """A JSON stand-in for ``value`` that is the same in every process: a set (the keys a flag
    set, ``FileConfig.flagged``) in sorted order, since its own order follows the per-process
    string hash seed, and would make a re-run miss every up-to-date output."""
    if isinstance(value, set | frozenset):
        return sorted(map(repr, value))
    return repr(value)


def file_task(url: str, options: RunOptions, shared: _Shared, semaphore: Any) -> TaskResult:
    """One file on a worker (or here): skipped when the manifest says its output is up to
    date, else run under the cluster-wide ``semaphore`` (None: no limit)."""
    # each file's own run writes no report or events: the batch report is the caller's
    opts = dataclasses.replace(options, input=url, report=None, events=None)
    target = target_of(opts)
    try:
        if is_url(url):
            raw = read_bytes(url)
        else:
            with open(url, "rb") as f:
                raw = f.read()
    except (OSError, CompactorError) as err:
        from compactor.runs.run_result import RunResult

        failed = RunResult.refused(dataclasses.replace(opts, output=target), err)
        return TaskResult(url, "", target, None, failed)
    digest = hashlib.sha256(raw).hexdigest()
    key = f"{digest}:{shared.config_hash}"
    if target is not None:
        recorded = shared.entries.get(key, {}).get(target)
        if recorded is not None and url_size(target) == recorded:
            return TaskResult(url, digest, target, recorded, None)
    with semaphore if semaphore is not None else contextlib.nullcontext():
        result = run_url(opts, file_config=shared.file_config, config_checked=True, raw=raw)
    size = url_size(target) if target is not None and "output" in result.written else None
    return TaskResult(url, digest, target, size, result)


def _manifest_dir(target: str) -> str:
    return posixpath.dirname(target) if is_url(target) else os.path.dirname(target)


def _manifest_at(folder: str) -> str:
    return f"{folder}/{MANIFEST_NAME}" if is_url(folder) else os.path.join(folder, MANIFEST_NAME)


def _load_manifests(folders: set[str]) -> dict[str, dict[str, int]]:
    entries: dict[str, dict[str, int]] = {}
    for folder in sorted(folders):
        name = _manifest_at(folder)
        if url_size(name) is None:
            continue
        try:
            data = json.loads(read_bytes(name) if is_url(name) else open(name, "rb").read())
            for key, outputs in data.get("entries", {}).items():
                for target, size in outputs.items():
                    entries.setdefault(key, {})[str(target)] = int(size)
        except (OSError, ValueError, AttributeError, TypeError, CompactorError):
            continue  # an unreadable manifest: nothing is skipped, everything is redone
    return entries


def _save_manifests(entries: dict[str, dict[str, int]], errors: list[str]) -> None:
    by_folder: dict[str, dict[str, dict[str, int]]] = {}
    for key, outputs in entries.items():
        for target, size in outputs.items():
            by_folder.setdefault(_manifest_dir(target), {}).setdefault(key, {})[target] = size
    for folder, part in by_folder.items():
        body = json.dumps({"version": 1, "entries": part}, indent=1, sort_keys=True)
        try:
            write_bytes(_manifest_at(folder), body.encode() + b"\n")
        except (OSError, CompactorError) as err:
            errors.append(f"{_manifest_at(folder)}: {err}")


def _not_finished(url: str, options: RunOptions, error: str, code: int) -> RunResult:
    from compactor.runs.run_result import RunResult

    target = target_of(dataclasses.replace(options, input=url))
    return RunResult(input=url, output=target or "", exit_code=code, error=error)


def compact_many(
    urls: list[str],
    options: RunOptions,
    *,
    client: Any = None,
    jobs: int = 4,
    retries: int = 2,
    on_done: Callable[[int, RunResult | None], None] | None = None,
    resume: bool = True,
) -> ManyOutcome:
    """Compact every input of ``urls`` (URLs or local paths) with ``options`` (its ``input``
    is replaced per file), one task per file on the Dask ``client``'s cluster, or here one
    after another (``client=None``). ``on_done(index, result)`` is called as each file
    finishes (``result`` None: skipped, up to date). ``resume``: use and update the manifest.
    A config that cannot be loaded or checked raises ConfigError before any task starts."""
    from compactor.configfile import check_config

    file_cfg = options.file_config()  # the flags laid over the file
    check_config(file_cfg)
    config_hash = config_digest(options, file_cfg)
    targets = [target_of(dataclasses.replace(options, input=u)) for u in urls]
    folders = {_manifest_dir(t) for t in targets if t is not None}
    entries = _load_manifests(folders) if resume else {}
    shared = _Shared(file_cfg, config_hash, entries)
    outcome = ManyOutcome(results=[None for _ in urls])
    done = [False for _ in urls]
    last_save = time.monotonic()

    def record(index: int, task: TaskResult) -> None:
        nonlocal last_save
        done[index] = True
        if task.result is None:
            outcome.skipped.append(task.input)
        else:
            outcome.results[index] = task.result
            if task.target is not None and task.size is not None and task.digest:
                entries.setdefault(f"{task.digest}:{config_hash}", {})[task.target] = task.size
        if on_done is not None:
            on_done(index, task.result)
        if resume and time.monotonic() - last_save > _SAVE_EVERY_S:
            _save_manifests(entries, outcome.manifest_errors)
            last_save = time.monotonic()

    try:
        if client is None:
            for index, url in enumerate(urls):
                record(index, file_task(url, options, shared, None))
        else:
            _run_on_cluster(client, urls, options, shared, jobs, retries, record)
    except KeyboardInterrupt:
        outcome.interrupted = True
    finally:
        for index, url in enumerate(urls):
            if not done[index]:
                why = "cancelled by Ctrl-C before it finished" if outcome.interrupted else "not run"
                outcome.results[index] = _not_finished(url, options, why, 130)
        if resume:
            _save_manifests(entries, outcome.manifest_errors)
    outcome.skipped.sort(key=urls.index)
    return outcome


def _run_on_cluster(
    client: Any,
    urls: list[str],
    options: RunOptions,
    shared: _Shared,
    jobs: int,
    retries: int,
    record: Callable[[int, TaskResult], None],
) -> None:
    import distributed

    dist: Any = distributed  # partly typed: its classes are used as Any here
    Semaphore, as_completed = dist.Semaphore, dist.as_completed

    token = uuid.uuid4().hex[:12]
    shared_future = client.scatter(shared, broadcast=True, hash=False)
    semaphore = Semaphore(max_leases=jobs, name=f"compact-jobs-{token}")
    futures = {
        client.submit(
            file_task,
            url,
            options,
            shared_future,
            semaphore,
            key=f"compact-{token}-{index}",
            retries=retries,
            pure=False,
        ): index
        for index, url in enumerate(urls)
    }
    try:
        for future in as_completed(futures):
            index = futures[future]
            try:
                task: TaskResult = future.result()
            except Exception as err:  # noqa: BLE001 - retries spent, or the worker kept dying
                from compactor.exitcodes import classify

                message, code = classify(err)
                failed = _not_finished(
                    urls[index], options, f"task failed on the cluster: {message}", max(code, 1)
                )
                task = TaskResult(urls[index], "", None, None, failed)
            record(index, task)
    except KeyboardInterrupt:
        client.cancel([f for f in futures if not f.done()])
        raise
    finally:
        with contextlib.suppress(Exception):
            semaphore.close()
