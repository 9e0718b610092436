"""``compact``: compact LLM-agent transcripts from the command line (SPEC §9).

Thin by design: the library plans and runs (:mod:`compactor.runs.runner`,
:mod:`compactor.runs.batch`, :mod:`compactor.runs.dryrun`, :mod:`compactor.runs.show`,
:mod:`compactor.runs.archive`); the command modules (``run.py``, ``batch.py``, ``check.py``,
``show.py``, ``config_cmd.py``, ``archive_cmd.py``, ``cache_cmd.py``)
turn flags into options and render results, ``live.py`` shows progress, ``helptext.py`` shapes
every ``--help`` page and ``exitcodes.py`` documents the exit codes. A model SDK is
imported only by ``run``, and only when it is used. Command groups (``config``, ``archive``)
share one shape; ``cache`` (the summary cache) is the third.
"""

import os
import sys
from typing import Annotated, NoReturn

import typer

from compactor import __version__
from compactor._json import JsonObject

from . import _typer_fast
from .common import ConfigOpt, guard_std_streams, print_error
from .exitcodes import EXIT_CODES_HELP, ExitCode, classify
from .helptext import CONTEXT, Command, Group, epilog

__all__ = ["COMMANDS", "GROUPS", "app", "app_for", "main"]  # noqa: F822 - app: __getattr__

_typer_fast.install()  # plain option values skip pydantic: `compact check` starts fast

Entry = tuple[str, str, str, str]
"""``(name, module of compactor.cli, function, epilog attribute)`` of one command."""

COMMANDS: tuple[Entry, ...] = (
    ("run", "run", "run", "EPILOG"),
    ("check", "check", "check", "EPILOG"),
    ("show", "show", "show", "EPILOG"),
    ("eval", "eval_cmd", "eval_command", "EPILOG"),
)
"""The top-level commands, in help order; a command module is imported when its command is
built (``compact check`` imports none of the others)."""

GROUPS: tuple[tuple[str, str, list[tuple[str, str]], tuple[Entry, ...]], ...] = (
    (
        "config",
        "Show the effective config, check a config file, or write a new one.",
        [
            ("what a run would use: defaults, file, environment, flags", "compact config show"),
            ("check a file before CI uses it", "compact config validate configs/failover.yaml"),
            ("write a commented starter config", "compact config init"),
        ],
        (
            ("show", "config_cmd", "config_show", "SHOW_EPILOG"),
            ("validate", "config_cmd", "config_validate", "VALIDATE_EPILOG"),
            ("init", "config_cmd", "config_init", "INIT_EPILOG"),
        ),
    ),
    (
        "archive",
        "Undo --in-place runs, or list and prune the originals they archived.",
        [
            ("what the archive holds, oldest first", "compact archive list"),
            ("undo an --in-place run", "compact archive restore s.jsonl"),
            (
                "delete originals archived more than 30 days ago",
                "compact archive prune --older-than 30d",
            ),
        ],
        (
            ("list", "archive_cmd", "archive_list", "LIST_EPILOG"),
            ("restore", "archive_cmd", "archive_restore", "RESTORE_EPILOG"),
            ("prune", "archive_cmd", "archive_prune", "PRUNE_EPILOG"),
        ),
    ),
    (
        "cache",
        "Show or clear the summary cache (on by default for remote models).",
        [
            ("where it is, how many summaries, how big", "compact cache info"),
            ("make the next run ask the model again", "compact cache clear"),
        ],
        (
            ("info", "cache_cmd", "cache_info", "INFO_EPILOG"),
            ("clear", "cache_cmd", "cache_clear", "CLEAR_EPILOG"),
        ),
    ),
)
"""The command groups (``compact NAME SUB``): help, examples, commands. Every group has the
same help shape and shows its help when called bare."""


def _new_app() -> typer.Typer:
    """The root ``compact`` app with its root options and no command yet."""
    root = typer.Typer(
        name="compact",
        cls=Group,
        help=(
            "Keep long LLM-agent transcripts inside the context window: summarize the old "
            "part, keep the recent part, and write the result in the transcript's own format."
        ),
        epilog=epilog(
            [
                ("would it be compacted, and why? (never calls a model)", "compact check s.jsonl"),
                ("compact it: writes s.compact.jsonl beside it", "compact run s.jsonl"),
                ("read the summary it wrote", "compact show s.compact.jsonl"),
                ("shrink a log in a pipeline", "cat run.jsonl | compact run - > small.jsonl"),
                (
                    "every *.jsonl of a folder, outputs into small/",
                    "compact run logs/ --output-dir small/",
                ),
            ],
            EXIT_CODES_HELP,
        ),
        context_settings=CONTEXT,
        pretty_exceptions_show_locals=False,
        no_args_is_help=True,
        add_completion=True,
        rich_markup_mode=None,
    )
    root.callback()(_root)
    return root


def _command(group: typer.Typer, entry: Entry) -> None:
    """Register one command, importing its module now."""
    import importlib

    name, module_name, function, text = entry
    module = importlib.import_module(f"compactor.cli.{module_name}")
    group.command(name, cls=Command, context_settings=CONTEXT, epilog=getattr(module, text))(
        getattr(module, function)
    )


def _add_group(root: typer.Typer, name: str) -> None:
    _, text, examples, commands = next(g for g in GROUPS if g[0] == name)
    group = typer.Typer(
        cls=Group,
        help=text,
        epilog=epilog(examples),
        context_settings=CONTEXT,
        no_args_is_help=True,
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,
    )
    for entry in commands:
        _command(group, entry)
    root.add_typer(group, name=name)


def _whole_app() -> typer.Typer:
    root = _new_app()
    for entry in COMMANDS:
        _command(root, entry)
    for group in GROUPS:
        _add_group(root, group[0])
    return root


_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``app``: the whole ``compact`` app (every command), built on first use."""
    global _app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _app is None:
        _app = _whole_app()
    return _app


def _version(value: bool) -> None:
    if value:
        typer.echo(f"compact {__version__}")
        raise typer.Exit(0)


def _config_defaults(command: object, path: str) -> JsonObject:
    """``default_map`` giving every subcommand with a ``config`` parameter ``path``: what
    ``compact -c FILE SUB ...`` means (a ``-c`` after the subcommand still wins)."""
    out: JsonObject = {}
    for name, sub in getattr(command, "commands", {}).items():
        if getattr(sub, "commands", None):
            out[name] = _config_defaults(sub, path)
        elif any(p.name == "config" for p in sub.params):
            out[name] = {"config": path}
    return out


def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "-V", "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
    config: ConfigOpt = None,
) -> None:
    """Keep long LLM-agent transcripts inside the context window."""
    if config is not None:  # `compact -c FILE run ...`: every subcommand reads FILE
        ctx.default_map = _config_defaults(ctx.command, config)


def app_for(args: list[str]) -> typer.Typer:
    """The app ``main`` runs for the command line ``args``: when the first argument names a
    command or group, an app that registers only it, else the whole :data:`app`.

    typer builds every command's click command and options before it parses anything, and
    each command module has to be imported for it; for ``compact check`` that took longer than
    everything else between ``import typer`` and the check (BENCHMARKS.md, issues 29 and 31).
    The one-command app parses and answers that command exactly as the whole app does (same
    root options, help, errors, ``-c FILE`` defaults). Anything else (``--help``, ``-c FILE
    run``, a mistyped command that gets its suggestion, a shell completion request) gets the
    whole app."""
    name = args[0] if args else None
    if "_COMPACT_COMPLETE" in os.environ:
        name = None
    command = next((c for c in COMMANDS if c[0] == name), None)
    if command is not None:
        one = _new_app()
        _command(one, command)
        return one
    if any(g[0] == name for g in GROUPS):
        one = _new_app()
        _add_group(one, str(name))
        return one
    whole: typer.Typer = __getattr__("app")
    return whole


def main() -> None:
    """Console-script entry point (``compact``, ``python -m compactor``).

    Owns the process: closed standard streams are guarded, and SIGINT, SIGTERM and SIGHUP
    raise :class:`~compactor.interrupts.Interrupted` (exit 130, 143, 129).
    """
    from compactor._util import fewer_gc_passes_to_the_end
    from compactor.interrupts import install_handlers

    fewer_gc_passes_to_the_end()  # the process ends with os._exit (_hard_exit)
    guard_std_streams()
    install_handlers()
    try:
        app_for(sys.argv[1:])()
    except SystemExit as exit:
        _hard_exit(exit.code)
    except OSError as err:  # typer's own output (--help, --version) to a closed or full stdout
        message, code = classify(err)
        print_error(message)
        _hard_exit(int(code))
    _hard_exit(0)


def _hard_exit(code: object) -> NoReturn:
    """``sys.exit(code)`` without the interpreter's teardown.

    Freeing every module and object at exit takes 36-60 ms after ``compact check`` of a small
    file and 75-100 ms after a small ``--model local`` run, more once a model SDK and pydantic
    are loaded: 10-35 % of those commands (measured for issue 31 with bench/bench_ab_tricks.py,
    BENCHMARKS.md; mypy's ``util.hard_exit`` skips it too). What a normal exit does before the
    teardown still happens here: non-daemon threads are joined, atexit handlers run, stdout and
    stderr are flushed. Only destructors of objects alive at exit are skipped; every file
    compact writes is closed (and fsynced) before this point. A stdout or stderr that
    cannot take what is left in its buffer (closed, full, broken) turns success into exit 6.
    """
    import atexit
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"): print it, exit 1
        try:
            sys.stderr.write(f"{code}\n")
        except (OSError, ValueError, AttributeError):
            pass
        status = 1
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            if status in (ExitCode.OK, ExitCode.WOULD_COMPACT):
                status = ExitCode.OUTPUT_FAILED
    os._exit(status)
