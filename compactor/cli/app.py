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
from typing import Annotated, Any, NoReturn

import typer

from compactor import __version__

from . import _typer_fast, archive_cmd, cache_cmd, check, config_cmd, eval_cmd, run, show
from .common import ConfigOpt, guard_std_streams, print_error
from .exitcodes import EXIT_CODES_HELP, ExitCode, classify
from .helptext import CONTEXT, Command, Group, epilog

__all__ = ["app", "app_for", "main"]

_typer_fast.install()  # plain option values skip pydantic: `compact check` starts fast

app = typer.Typer(
    name="compact",
    cls=Group,
    help=(
        "Keep long LLM-agent transcripts inside the context window: summarize the old part, "
        "keep the recent part, and write the result in the transcript's own format."
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


def _command(group: typer.Typer, name: str, function: Any, text: str) -> None:
    group.command(name, cls=Command, context_settings=CONTEXT, epilog=text)(function)


_command(app, "run", run.run, run.EPILOG)
_command(app, "check", check.check, check.EPILOG)
_command(app, "show", show.show, show.EPILOG)
_command(app, "eval", eval_cmd.eval_command, eval_cmd.EPILOG)


def _group(name: str, text: str, examples: list[tuple[str, str]], *commands: Any) -> None:
    """A command group (``compact NAME SUB``) with its examples and ``(sub, function, epilog)``
    commands; every group has the same help shape and shows its help when called bare."""
    group = typer.Typer(
        cls=Group,
        help=text,
        epilog=epilog(examples),
        context_settings=CONTEXT,
        no_args_is_help=True,
        pretty_exceptions_show_locals=False,
        rich_markup_mode=None,
    )
    for sub, function, sub_epilog in commands:
        _command(group, sub, function, sub_epilog)
    app.add_typer(group, name=name)


_group(
    "config",
    "Show the effective config, check a config file, or write a new one.",
    [
        ("what a run would use: defaults, file, environment, flags", "compact config show"),
        ("check a file before CI uses it", "compact config validate configs/failover.yaml"),
        ("write a commented starter config", "compact config init"),
    ],
    ("show", config_cmd.config_show, config_cmd.SHOW_EPILOG),
    ("validate", config_cmd.config_validate, config_cmd.VALIDATE_EPILOG),
    ("init", config_cmd.config_init, config_cmd.INIT_EPILOG),
)
_group(
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
    ("list", archive_cmd.archive_list, archive_cmd.LIST_EPILOG),
    ("restore", archive_cmd.archive_restore, archive_cmd.RESTORE_EPILOG),
    ("prune", archive_cmd.archive_prune, archive_cmd.PRUNE_EPILOG),
)
_group(
    "cache",
    "Show or clear the summary cache (on by default for remote models).",
    [
        ("where it is, how many summaries, how big", "compact cache info"),
        ("make the next run ask the model again", "compact cache clear"),
    ],
    ("info", cache_cmd.cache_info, cache_cmd.INFO_EPILOG),
    ("clear", cache_cmd.cache_clear, cache_cmd.CLEAR_EPILOG),
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"compact {__version__}")
        raise typer.Exit(0)


def _config_defaults(command: Any, path: str) -> dict[str, Any]:
    """``default_map`` giving every subcommand with a ``config`` parameter ``path``: what
    ``compact -c FILE SUB ...`` means (a ``-c`` after the subcommand still wins)."""
    out: dict[str, Any] = {}
    for name, sub in getattr(command, "commands", {}).items():
        if getattr(sub, "commands", None):
            out[name] = _config_defaults(sub, path)
        elif any(p.name == "config" for p in sub.params):
            out[name] = {"config": path}
    return out


@app.callback()
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
    command or group, a copy of :data:`app` that registers only it, else :data:`app` itself.

    typer builds every command's click command and options before it parses anything; for
    ``compact check`` building the other dozen commands took longer than everything else
    between ``import typer`` and the check (BENCHMARKS.md, issues 29 and 31). The copy parses
    and answers that command exactly as the whole app does (same root options, help, errors,
    ``-c FILE`` defaults). Anything else (``--help``, ``-c FILE run``, a mistyped command that
    gets its suggestion, a shell completion request) gets the whole app."""
    if not args or "_COMPACT_COMPLETE" in os.environ:
        return app
    commands = [c for c in app.registered_commands if c.name == args[0]]
    groups = [g for g in app.registered_groups if g.name == args[0]]
    if len(commands) + len(groups) != 1:
        return app
    import copy

    one = copy.copy(app)  # registers the same callback (root options); app is left whole
    one.registered_commands = commands
    one.registered_groups = groups
    return one


def main() -> None:
    """Console-script entry point (``compact``, ``python -m compactor``).

    Owns the process: closed standard streams are guarded, and SIGINT, SIGTERM and SIGHUP
    raise :class:`~compactor.interrupts.Interrupted` (exit 130, 143, 129).
    """
    from compactor.interrupts import install_handlers

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
