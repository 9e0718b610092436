"""The first step of a run: what it is asked to do (:class:`RunOptions`) and every path it will
touch, resolved and checked before anything is read or written (:func:`plan` → :class:`RunPlan`).

:func:`plan` reads the config and resolves the input, the transcript's destination,
``--report``, ``--events`` and the archive before the transcript or the model is read. A
destination that cannot be written (missing or read-only folder, a directory, a block device),
two destinations that are one file (also through a symlink or a hard link), a report/events
path equal to the input or the output, or a destination that is the config file or the file
stdin reads is a :class:`~compactor.errors.ConfigError` (exit 2), and nothing was written.
The second step, :class:`~compactor.runs.runner.Run`, executes the plan.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.configfile import (
    CONFIG_ENV,
    FileConfig,
    Overrides,
    check_config,
    load_default_config,
)
from compactor.errors import ConfigError, TranscriptError
from compactor.formats import APPEND_FORMATS  # the formats whose spec.can_append is set
from compactor.io import (
    Destination,
    is_inside,
    make_private_dirs,
    plan_archive_dir,
    resolve_destination,
)

from .inputs import OUTPUT_SUFFIX

if TYPE_CHECKING:
    from compactor.formats.base import Transcript

__all__ = [
    "APPEND_FORMATS",
    "RunOptions",
    "RunPlan",
    "check_not_config",
    "check_output_dir",
    "default_output",
    "in_option_names",
    "make_output_dir",
    "output_path",
    "plan",
    "refuse_append",
    "remove_created_dirs",
]


_FIELDS = {
    "-o/--output": "output",
    "--output-dir": "output_dir",
    "--in-place": "in_place",
    "--report": "report",
    "--events": "events",
    "--transcript-path": "transcript_path",
    "--append": "append",
    "--fallback": "fallback",
    "--model": "model",
    "--format": "format",
    "--threshold": "threshold",
    "--token-counter": "token_counter",
    "--force": "force",
    "--no-cache": "cache",
    "--cache": "cache",
}
"""``compact run``'s flags → the :class:`RunOptions` fields they set."""
_FLAG = lazy_pattern(
    r"(?<![\w/-])("
    + "|".join(re.escape(flag) for flag in sorted(_FIELDS, key=len, reverse=True))
    + r")(?![\w-])"
)


def refuse_append(parsed: Transcript) -> None:
    """Refuse ``--append`` on a transcript no client resumes appended to: a format that has no
    compaction record (ConfigError), or a file its format refuses (TranscriptError naming it
    and the format's reason: a legacy Codex rollout)."""
    if parsed.format not in APPEND_FORMATS:
        raise ConfigError(
            f"--append works only for {' and '.join(APPEND_FORMATS)} transcripts, "
            f"not {parsed.format!r}"
        )
    from compactor.formats.registry import append_refusal

    reason = append_refusal(parsed)
    if reason is not None:
        raise TranscriptError(parsed.path, None, None, reason)


def in_option_names(message: str) -> str:
    """``message`` with every ``compact run`` flag named as the :class:`RunOptions` field it
    sets (``use either --in-place or -o/--output`` → ``use either RunOptions.in_place or
    RunOptions.output``): how the library (:func:`~compactor.runs.runner.run_file`) words the
    errors the command line words with flags."""
    return _FLAG.sub(lambda m: f"RunOptions.{_FIELDS[m.group(1)]}", message)


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What one ``compact run`` is asked to do (the command line's flags, as data)."""

    input: str
    """A transcript file, or ``-`` for stdin."""
    output: str | None = None
    """A file, a device or FIFO, or ``-`` (stdout). None: ``NAME.compact.jsonl`` beside the
    input, or stdout when the input is stdin."""
    in_place: bool = False
    """Replace the input (its original is archived first)."""
    force: bool = False
    """Summarize even when the trigger does not fire."""
    format: str | None = None
    """Force a transcript format instead of detecting it."""
    model: str | None = None
    """``PREFIX:NAME`` or ``local`` (overrides the config's model; the prefixes are
    :data:`compactor.models.providers.PROVIDERS`)."""
    transcript_path: str | None = None
    """The summary's "full transcript" note: ``auto`` (the input; stdin: a note that it was
    read from stdin), ``archive`` (archive the original first and point at the copy),
    ``none`` or a path."""
    report: str | None = None
    """Write the JSON report here (``-``: stdout, refused when the transcript goes there)."""
    events: str | None = None
    """Write every event as a JSON line here (``-``: stderr)."""
    append: bool = False
    """claude-code/codex: append the compaction instead of shrinking the file."""
    cache: bool | None = None
    """``--cache`` / ``--no-cache`` (None: the config decides)."""
    fallback: str | None = None
    """``local`` or ``none`` (None: the config decides)."""
    config: str | None = None
    """YAML config file (None: ``$COMPACT_CONFIG``, else the built-in defaults)."""
    output_dir: str | None = None
    """Write the output into this folder, under the input's own file name (a missing folder is
    created, mode 0700, once the run's plan is accepted)."""
    threshold: int | None = None
    """Compact above this many tokens (replaces the config's token trigger)."""
    token_counter: str | None = None
    """Count tokens with this counter instead of the config's (``estimate``, ``tiktoken:...``,
    ``pkg.mod:func``)."""
    strategy: str | None = None
    """``summarize``, ``reduce`` or ``hybrid`` (None: the config's ``strategy:``, else
    ``summarize``); see :mod:`compactor.runs.run_reduce`."""
    instructions: str | None = None
    """Focus instructions appended to the summarizer's user instruction (``--instructions``,
    ``--instructions-file``; None: the config's ``instructions:``)."""
    offload_dir: str | None = None
    """reduce/hybrid: the folder reduced tool results are offloaded to (None: the config's
    ``reduction.offload_dir``, else ``NAME.offload/`` beside the output)."""

    def file_config(self) -> FileConfig:
        """The config file these options name (or the defaults) with the flags laid over it:
        the one resolved tree a run (or a batch) uses."""
        return self.resolve(load_default_config(self.config))

    def resolve(self, file_cfg: FileConfig) -> FileConfig:
        """``file_cfg`` with these options' flags (``--model``, ``--threshold``,
        ``--token-counter``, ``--instructions``, ``--transcript-path``, ``--format``,
        ``--cache``, ``--fallback``) laid over it as one layer
        (:func:`~compactor.configfile.flag_layer`)."""
        return file_cfg.with_flags(
            self.overrides(),
            threshold=self.threshold,
            token_counter=self.token_counter,
            instructions=self.instructions,
        )

    def overrides(self) -> Overrides:
        """The flags that replace the config's model, transcript note, format, cache and
        fallback (the input of :func:`flag_layer`)."""
        return Overrides(
            model=self.model,
            transcript_file_path=self.transcript_path,
            format=self.format,
            cache=self.cache,
            fallback=self.fallback,
        )


@dataclass
class RunPlan:
    """Every path of a run, resolved and checked; nothing has been read or written yet."""

    options: RunOptions
    file_config: FileConfig
    """The resolved tree: the config file with every flag laid over it."""
    output: Destination
    """Where the transcript goes (the input itself with ``--in-place``)."""
    report: Destination | None = None
    events: Destination | None = None
    archive_dir: Path | None = None
    """Where the original is archived (``--in-place``, ``--transcript-path archive``)."""
    input_mode: int | None = None
    """Mode bits of a regular input: a new output is never more readable than its input."""
    timestamp: str | None = None
    """The time of the records a compaction adds: ``$SOURCE_DATE_EPOCH`` when set, else (None)
    the newest time recorded in the input; never the clock."""
    strategy: str = "summarize"
    """``summarize``, ``reduce`` or ``hybrid``."""
    offload_dir: Path | None = None
    """reduce/hybrid with offload: the folder (checked writable at plan time)."""

    @property
    def attempts(self) -> tuple[int, int]:
        """(primary attempts, failover attempts) the config allows."""
        return self.file_config.attempts()


def default_output(path: str) -> str:
    """``NAME.compact.jsonl`` beside ``path`` (``NAME.compact.json`` for a ``.json`` file: a
    JSON document is written back as one)."""
    p = Path(path)
    if p.suffix == ".json":
        return str(p.with_name(f"{p.stem}.compact.json"))
    return str(p.with_name(f"{p.stem}{OUTPUT_SUFFIX}"))


def output_path(options: RunOptions) -> str | None:
    """The file the transcript of ``options`` goes to: ``-o``, ``--output-dir``/NAME or
    ``NAME.compact.jsonl``; None when it goes to stdout or replaces the input."""
    if options.in_place or options.output == "-":
        return None
    if options.output is not None:
        return options.output
    if options.input == "-":
        return None
    if options.output_dir is not None:
        return os.path.join(options.output_dir, os.path.basename(options.input))
    return default_output(options.input)


def check_output_dir(folder: str) -> None:
    """``--output-dir`` must name a writable folder, or one that can be created: its nearest
    existing parent is a writable folder (ConfigError, exit 2). Nothing is created here."""
    if os.path.lexists(folder):
        if not os.path.isdir(folder):
            raise ConfigError(f"--output-dir {folder!r} is not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ConfigError(f"--output-dir {folder!r} is not writable")
        return
    probe = Path(os.path.abspath(folder))
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"--output-dir {folder!r}: {str(probe)!r} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"--output-dir {folder!r}: {str(probe)!r} is not writable")


def make_output_dir(folder: str | None) -> list[Path]:
    """Create a missing ``--output-dir`` (and its missing parents) private, mode 0700, as the
    archive and the cache are; return the folders created, deepest last (empty: it existed)."""
    if folder is None or os.path.lexists(folder):
        return []
    missing: list[Path] = []
    probe = Path(os.path.abspath(folder))
    while not os.path.lexists(probe) and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    try:
        make_private_dirs(Path(os.path.abspath(folder)))
    except OSError as err:
        raise ConfigError(f"--output-dir {folder!r}: {err.strerror or err}") from err
    return list(reversed(missing))


def remove_created_dirs(created: list[Path]) -> None:
    """Undo :func:`make_output_dir` for a plan that was refused after it: remove the folders
    it created, deepest first, as long as they are still empty."""
    for path in reversed(created):
        try:
            path.rmdir()
        except OSError:
            return


def _check_combinations(options: RunOptions) -> None:
    if options.in_place and options.input == "-":
        raise ConfigError("--in-place needs a file, not stdin")
    if options.in_place and options.output is not None:
        raise ConfigError("use either --in-place or -o/--output, not both")
    if options.output_dir is not None:
        if options.in_place or options.output is not None:
            other = "--in-place" if options.in_place else "-o/--output"
            raise ConfigError(f"use either --output-dir or {other}, not both")
        if options.input == "-":
            raise ConfigError("--output-dir needs a file input; stdin has no name to keep")
        check_output_dir(options.output_dir)


# --------------------------------------------------------------------------------------------------
# Plan


def _stdin_identity() -> tuple[int, int] | str:
    """(device, inode) of the file stdin reads (``run - < in.jsonl``), else ``<stdin>``."""
    try:
        st = os.fstat(0)
    except OSError:
        return "<stdin>"
    return "<stdin>" if stat.S_ISCHR(st.st_mode) else (st.st_dev, st.st_ino)


def check_not_config(dests: list[Destination], options: RunOptions) -> None:
    """No destination is the config file the run reads (``-c`` or ``$COMPACT_CONFIG``): a
    ``--report c.yaml`` would replace the config with a report, even on a failed run."""
    chosen = options.config or os.environ.get(CONFIG_ENV) or None
    if chosen is None:
        return
    try:
        st = os.stat(chosen)
    except OSError:
        return  # loading it said why already
    where = "-c/--config" if options.config else f"${CONFIG_ENV}"
    for dest in dests:
        if not dest.char_device and dest.identity == (st.st_dev, st.st_ino):
            raise ConfigError(
                f"{dest.flag} {dest.name!r} is the config file {chosen!r} ({where}); "
                "name another file"
            )


def _input_identity(name: str, in_place: bool) -> tuple[tuple[int, int] | str, int | None]:
    """The input's identity and mode bits (stdin: the file it reads, else ``<stdin>``); a
    missing input is exit 2."""
    if name == "-":
        return _stdin_identity(), None
    try:
        st = os.stat(name)
    except FileNotFoundError as err:
        raise TranscriptError(name, None, None, "file not found") from err
    except OSError as err:
        raise TranscriptError(name, None, None, f"failed to read: {err.strerror}") from err
    if stat.S_ISDIR(st.st_mode):
        raise TranscriptError(name, None, None, "is a directory, not a file")
    if in_place and not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"--in-place needs a regular file; {name!r} is not one")
    mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
    return (st.st_dev, st.st_ino), mode


def _same(a: Destination, b: Destination) -> bool:
    return a.identity == b.identity and not (a.char_device and b.char_device)


def _check_distinct(
    dests: list[Destination], input_id: tuple[int, int] | str, options: RunOptions
) -> None:
    """Rule 1: no two destinations are one file; report/events are neither input nor output."""
    if any(d.kind == "stdout" and d.role in ("output", "in-place") for d in dests) and any(
        d.kind == "stdout" and d.role == "report" for d in dests
    ):
        raise ConfigError("--report - writes to stdout, where the transcript goes; name a file")
    for i, dest in enumerate(dests):
        if dest.role != "in-place" and dest.identity == input_id and not dest.char_device:
            if options.input == "-":
                raise ConfigError(
                    f"{dest.flag} {dest.name!r} is the file stdin reads; name another file"
                )
            if dest.role == "output":
                raise ConfigError(
                    f"output {dest.name!r} is the input; use --in-place to replace it "
                    "(archives it first)"
                )
            raise ConfigError(f"{dest.flag} {dest.name!r} is the input file {options.input!r}")
        for other in dests[:i]:
            if _same(dest, other):
                raise ConfigError(
                    f"{dest.flag} {dest.name!r} is the same file as {other.flag} {other.name!r}"
                )


def plan(
    options: RunOptions,
    *,
    file_config: FileConfig | None = None,
    config_checked: bool = False,
) -> RunPlan:
    """Resolve and check everything the run will touch; raise ConfigError/TranscriptError
    (exit 2) before anything is read or written.

    ``file_config``: an already resolved config (:meth:`RunOptions.file_config`; a batch
    resolves it once); ``config_checked``: it already passed
    :func:`~compactor.configfile.check_config`.
    """
    from compactor.formats.base import source_date_epoch

    _check_combinations(options)
    timestamp = source_date_epoch()
    file_cfg = file_config if file_config is not None else options.file_config()
    # The whole config before the transcript: a bad callback or provider is exit 2 even when
    # the trigger does not fire (models are validated, not built: no SDK import). This is
    # the run's one validation; the runner builds its Config from the checked tree.
    if not config_checked:
        check_config(file_cfg)
    input_id, input_mode = _input_identity(options.input, options.in_place)
    created = make_output_dir(options.output_dir)
    try:
        return _resolve(options, file_cfg, input_id, input_mode, timestamp)
    except BaseException:
        remove_created_dirs(created)  # a refused plan leaves nothing behind
        raise


def _resolve(
    options: RunOptions,
    file_cfg: FileConfig,
    input_id: tuple[int, int] | str,
    input_mode: int | None,
    timestamp: str | None,
) -> RunPlan:
    """The destinations and the archive folder of a plan whose config and input are checked."""
    target = output_path(options)
    if options.in_place:
        output = resolve_destination(options.input, "in-place")
    else:
        output = resolve_destination("-" if target is None else target, "output")
    report = resolve_destination(options.report, "report") if options.report else None
    events = resolve_destination(options.events, "events") if options.events else None
    dests = [d for d in (output, report, events) if d is not None]
    _check_distinct(dests, input_id, options)
    check_not_config(dests, options)

    archive_dir = None
    setting = file_cfg.value("transcript_file_path")
    # Stdin is archived only when asked (`--transcript-path archive`): a piped CI log is not
    # kept under $HOME by default; its note then says it was read from stdin (issue 32).
    if options.in_place or setting == "archive":
        archive_dir = plan_archive_dir(file_cfg.archive_folder())
        if options.in_place and is_inside(options.input, archive_dir):
            raise ConfigError(
                f"--in-place on {options.input!r}, a file inside the archive folder "
                f"{str(archive_dir)!r}: it may be the only copy of a transcript; copy it out first"
            )
    from compactor.configfile.strategy import strategy_of

    from .run_reduce import plan_offload

    strategy = strategy_of(file_cfg, options.strategy)
    offload_dir = plan_offload(options, file_cfg, output) if strategy != "summarize" else None
    return RunPlan(
        strategy=strategy,
        offload_dir=offload_dir,
        options=options,
        file_config=file_cfg,
        output=output,
        report=report,
        events=events,
        archive_dir=archive_dir,
        input_mode=input_mode,
        timestamp=timestamp,
    )
