"""Object-store paths (``s3://``, ``gs://``, ``az://``, ``memory://``) for ``run`` and ``check``.

A small adapter in front of the local code, which stays as it is: an object is read whole into
bytes (fsspec's ``cat_file``) and compacted by the ordinary :class:`~compactor.runs.runner.Run` from
a private temporary copy; the finished output (and a report) is written back whole with one
``pipe_file``: an object store makes an object visible only once its upload completed, so no
partial output is ever seen. What has no meaning on an object store is refused (exit 2), never
ignored: ``--in-place`` (an archive, a lock, the input's mode) and ``--events`` (a file written
as the run goes). ``file://`` URLs are plain local paths (:func:`localize`), with every local rule.

A folder URL means its ``*.jsonl`` objects (sorted), without earlier ``*.compact.jsonl`` outputs.
fsspec and its backends are imported inside the functions that need them; a missing backend is a
one-line :class:`~compactor.errors.ConfigError` naming the package and the extra that brings it.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Any

from compactor._json import JsonObject
from compactor._util import lazy_pattern
from compactor.errors import CompactorError, ConfigError, TranscriptError
from compactor.runs.inputs import OUTPUT_SUFFIX, Inputs, gathered, is_output_name
from compactor.sizes import InputLimits

if TYPE_CHECKING:
    from compactor.configfile import FileConfig
    from compactor.events import RunEventSink
    from compactor.runs.run_plan import RunOptions
    from compactor.runs.run_result import RunResult

__all__ = [
    "expand_urls",
    "is_url",
    "localize",
    "read_bytes",
    "read_named",
    "run_url",
    "target_of",
    "url_exists",
    "url_size",
    "write_bytes",
]

_URL = lazy_pattern(r"^[A-Za-z][A-Za-z0-9+.-]*://")

_BACKENDS = {
    "s3": ("s3fs", "pip install 'compact-transcripts[s3]'"),
    "s3a": ("s3fs", "pip install 'compact-transcripts[s3]'"),
    "gs": ("gcsfs", "pip install gcsfs"),
    "gcs": ("gcsfs", "pip install gcsfs"),
    "az": ("adlfs", "pip install adlfs"),
    "abfs": ("adlfs", "pip install adlfs"),
}


def is_url(name: str | None) -> bool:
    """Whether ``name`` is an object-store URL (``scheme://...``; ``file://`` included)."""
    return name is not None and _URL.match(name) is not None


def localize(name: str) -> str:
    """``file:///x/y`` → ``/x/y`` (a local path, with every local rule); anything else as is."""
    if name.lower().startswith("file://"):
        return name[len("file://") :] or "/"
    return name


def _scheme(url: str) -> str:
    return url.split("://", 1)[0].lower()


def filesystem(url: str) -> tuple[Any, str]:
    """(fsspec filesystem, its path) for ``url``; ConfigError (exit 2) when fsspec or the
    backend of its scheme is not installed, or the scheme is unknown."""
    scheme = _scheme(url)
    package, how = _BACKENDS.get(scheme, ("fsspec", "pip install 'compact-transcripts[s3]'"))
    try:
        import fsspec
    except ImportError as err:
        raise ConfigError(
            f"{url!r}: object-store paths need fsspec, and {package} for {scheme}:// ({how}; "
            "the extra 's3' of compactor brings fsspec and s3fs)"
        ) from err
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as err:
        raise ConfigError(
            f"{url!r} needs {package}, which is not installed ({how}; the extra 's3' of "
            "compactor brings s3fs)"
        ) from err
    except ValueError as err:
        raise ConfigError(f"{url!r}: no object store for {scheme}:// ({err})") from err
    return fs, path


def read_bytes(url: str) -> bytes:
    """The whole object; TranscriptError when it is missing or unreadable."""
    fs, path = filesystem(url)
    try:
        data: bytes = fs.cat_file(path)
    except FileNotFoundError as err:
        raise TranscriptError(url, None, None, "file not found") from err
    except IsADirectoryError as err:
        raise TranscriptError(url, None, None, "is a directory, not a file") from err
    except Exception as err:
        raise TranscriptError(url, None, None, f"failed to read: {_why(err)}") from err
    return data


def _why(err: BaseException) -> str:
    return f"{type(err).__name__}: {err}"


def read_named(name: str, limits: InputLimits | None = None) -> tuple[str, bytes]:
    """(display name, bytes) of a URL or a local path (``-``: stdin; read within ``limits``)."""
    if is_url(name):
        return name, read_bytes(name)
    from compactor.io import read_input

    return read_input(name, limits)


def write_bytes(url: str, data: bytes) -> None:
    """Write ``data`` as the whole object at ``url`` (one upload: never partly visible).
    A local path is written atomically (a temporary file renamed over it)."""
    if not is_url(url):
        folder = os.path.dirname(os.path.abspath(url))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".compact-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, url)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return
    fs, path = filesystem(url)
    fs.pipe_file(path, data)


def url_exists(url: str) -> bool:
    """Whether the object (or local file) exists."""
    return url_size(url) is not None


def url_size(url: str) -> int | None:
    """The object's size in bytes; None when it does not exist."""
    if not is_url(url):
        try:
            return os.stat(url).st_size
        except OSError:
            return None
    fs, path = filesystem(url)
    try:
        info = fs.info(path)
    except (FileNotFoundError, OSError):
        return None
    if info.get("type") == "directory":
        return None
    return int(info["size"])


def expand_urls(items: list[str], *, skip_outputs: bool) -> Inputs:
    """Like :func:`compactor.runs.inputs.expand_inputs`, for URLs: a folder URL means its
    ``*.jsonl`` objects (sorted), earlier ``*.compact.jsonl`` outputs left out."""
    files: list[str] = []
    skipped: list[str] = []
    for item in items:
        fs, path = filesystem(item)
        try:
            folder = item.endswith("/") or fs.isdir(path)
            pattern = path.rstrip("/") + "/*.jsonl"
            found = sorted(posixpath.basename(p) for p in fs.glob(pattern)) if folder else []
        except Exception as err:
            raise TranscriptError(item, None, None, f"failed to list: {_why(err)}") from err
        if folder:
            base = item.rstrip("/")
            for name in found:
                (skipped if is_output_name(name) else files).append(f"{base}/{name}")
        elif skip_outputs and is_output_name(item):
            skipped.append(item)
        else:
            files.append(item)
    return gathered(items, files, skipped)


def target_of(options: RunOptions) -> str | None:
    """Where the transcript of ``options`` goes, URLs included: ``-o``, ``--output-dir``/NAME
    or ``NAME.compact.jsonl`` beside the input; None for stdout."""
    if options.in_place:
        return options.input  # a local file (an object is refused: check_url_options)
    if options.output == "-" or (options.input == "-" and options.output is None):
        return None
    if options.output is not None:
        return options.output
    name = posixpath.basename(options.input) if is_url(options.input) else None
    if options.output_dir is not None:
        base = name if name is not None else os.path.basename(options.input)
        if is_url(options.output_dir):
            return options.output_dir.rstrip("/") + "/" + base
        return os.path.join(options.output_dir, base)
    if name is not None:
        stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else posixpath.splitext(name)[0]
        return options.input[: len(options.input) - len(name)] + stem + OUTPUT_SUFFIX
    from compactor.runs.run_plan import default_output

    return default_output(options.input)


def check_url_options(options: RunOptions) -> None:
    """Refuse (exit 2) what has no meaning on an object store."""
    if options.in_place and is_url(options.input):
        raise ConfigError(
            f"--in-place on {options.input!r}: an object store has no archive, lock or mode "
            "to replace an object safely; write into --output-dir instead"
        )
    if options.events is not None and is_url(options.events):
        raise ConfigError(
            f"--events {options.events!r}: events are written as the run goes, and an object "
            "is written whole; name a local file"
        )
    if options.output_dir is not None and options.output is not None:
        raise ConfigError("use either --output-dir or -o/--output, not both")
    if options.output_dir is not None and options.in_place:
        raise ConfigError("use either --output-dir or --in-place, not both")


def _relabel(result: RunResult, local: dict[str, str]) -> None:
    """The run's own labels (temporary paths) → the names the caller gave."""
    for tmp, name in local.items():
        if result.input == tmp:
            result.input = name
        if result.output == tmp:
            result.output = name
        if result.error:
            # the path, and names made from it (a conversion hint's `b.lines.jsonl`)
            error = result.error.replace(tmp, name)
            stem, name_stem = os.path.splitext(tmp)[0], os.path.splitext(name)[0]
            result.error = error.replace(stem, name_stem)
        for table in (result.written, result.not_written):
            for role, label in list(table.items()):
                if label == tmp:
                    table[role] = name


def run_url(
    options: RunOptions,
    *,
    file_config: FileConfig | None = None,
    config_checked: bool = False,
    raw: bytes | None = None,
    sink: RunEventSink | None = None,
) -> RunResult:
    """Compact one file whose input, output or report is a URL, exactly as ``compact run``
    compacts a local file: the input's bytes into a private temporary copy (``raw``: already
    read), the ordinary plan and :class:`~compactor.runs.runner.Run`, then the output and the report
    uploaded whole. ``transcript_path: auto`` names the input URL. A refused plan is a result
    (exit 2), as in :func:`compactor.runs.runner.arun_file`."""
    from compactor.io import json_bytes
    from compactor.runs.run_plan import plan
    from compactor.runs.run_result import RunResult
    from compactor.runs.runner import Run

    try:
        check_url_options(options)
        if file_config is None:
            file_config = options.file_config()
    except CompactorError as err:
        return RunResult.refused(options, err)
    target = target_of(options)
    tmp = tempfile.mkdtemp(prefix="compact-")
    labels: dict[str, str] = {}
    try:
        local_in = options.input
        changes: JsonObject = {"output_dir": None}
        if is_url(options.input):
            try:
                data = raw if raw is not None else read_bytes(options.input)
            except CompactorError as err:
                return RunResult.refused(dataclasses.replace(options, output=target), err)
            os.mkdir(os.path.join(tmp, "in"), 0o700)
            local_in = os.path.join(tmp, "in", posixpath.basename(options.input))
            with open(local_in, "wb") as f:
                f.write(data)
            labels[local_in] = options.input
            setting = options.transcript_path or file_config.transcript_file_path or "auto"
            if setting == "auto":  # the note names the object, not the temporary copy
                changes["transcript_path"] = options.input
        changes["input"] = local_in
        local_out = target
        if target is not None and is_url(target):
            os.mkdir(os.path.join(tmp, "out"), 0o700)
            local_out = os.path.join(tmp, "out", posixpath.basename(target))
            labels[local_out] = target
        changes["output"] = local_out if target is not None else options.output
        if options.in_place:  # a local input replaced in place; only its report is an object
            changes["output"] = None
        # The report names the object URLs, not the temporary copies: written here, after.
        report_url, changes["report"] = options.report, None
        local = dataclasses.replace(options, **changes)
        try:
            planned = plan(local, file_config=file_config, config_checked=config_checked)
        except CompactorError as err:
            result = RunResult.refused(local, err)
        else:
            import asyncio  # here only: `compact run FILE` imports this module for its names

            result = asyncio.run(Run(planned, sink=sink).execute())
        _relabel(result, labels)
        if target is not None and local_out != target and "output" in result.written:
            del result.written["output"]
            try:
                with open(local_out, "rb") as f:  # type: ignore[arg-type]
                    write_bytes(target, f.read())
            except (OSError, CompactorError) as err:
                from compactor.exitcodes import classify

                result.not_written["output"] = target
                message, code = classify(err)
                result.exit_code, result.error = code, f"failed to write {target}: {message}"
            else:
                result.written["output"] = target
        if report_url is not None:
            try:
                body = json_bytes(result.report(), indent=2) + b"\n"
                if report_url == "-":
                    sys.stdout.buffer.write(body)
                    sys.stdout.buffer.flush()
                else:
                    write_bytes(report_url, body)
            except (OSError, CompactorError) as err:
                result.not_written["report"] = report_url
                if result.exit_code == 0:
                    result.exit_code, result.error = 6, f"failed to write {report_url}: {err}"
            else:
                result.written["report"] = report_url
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
