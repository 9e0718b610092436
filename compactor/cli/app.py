"""``compact``: compact LLM-agent transcripts from the command line (SPEC §9).

Thin by design: the library plans and runs (:mod:`compactor.runner`, :mod:`compactor.batch`,
:mod:`compactor.dryrun`); the command modules (``run.py``, ``batch.py``, ``check.py``,
``config_cmd.py``) turn flags into options and render results, ``live.py`` shows progress and
``exitcodes.py`` documents the exit codes. The OpenAI client is imported only by ``run``, and
only when it is used.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, NoReturn

import typer

from compactor import __version__

from . import _typer_fast
from .check import check
from .common import EPILOG, guard_std_streams, print_error
from .config_cmd import config_show, config_validate
from .exitcodes import ExitCode, classify
from .run import run

__all__ = ["app", "main"]

_typer_fast.install()  # plain option values skip pydantic: `compact check` starts fast

app = typer.Typer(
    name="compact",
    help=(
        "Compact long LLM-agent transcripts with a summary (Eino's summarization middleware).\n\n"
        "Examples:\n\n"
        "  compact check session.jsonl\n\n"
        "  compact run session.jsonl                 # writes session.compact.jsonl\n\n"
        "  cat session.jsonl | compact run - > out.jsonl\n\n"
        "  compact run session.jsonl --in-place -c configs/openai.yaml"
    ),
    epilog=EPILOG,
    pretty_exceptions_show_locals=False,
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
config_app = typer.Typer(
    help=(
        "Show or validate config files.\n\nExamples:\n\n"
        "  compact config show -c configs/openai.yaml\n\n"
        "  compact config validate configs/failover.yaml"
    ),
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
app.add_typer(config_app, name="config")
app.command(epilog=EPILOG)(run)
app.command(epilog=EPILOG)(check)
config_app.command("show", epilog=EPILOG)(config_show)
config_app.command("validate", epilog=EPILOG)(config_validate)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"compact {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Compact long LLM-agent transcripts."""


def main() -> None:
    """Console-script entry point (``compact``, ``python -m compactor``).

    Owns the process: closed standard streams are guarded, and SIGINT, SIGTERM and SIGHUP
    raise :class:`~compactor.interrupts.Interrupted` (exit 130, 143, 129).
    """
    from compactor.interrupts import install_handlers

    guard_std_streams()
    install_handlers()
    try:
        app()
    except SystemExit as exit:
        _hard_exit(exit.code)
    except OSError as err:  # typer's own output (--help, --version) to a closed or full stdout
        message, code = classify(err)
        print_error(message)
        _hard_exit(int(code))
    _hard_exit(0)


def _hard_exit(code: object) -> NoReturn:
    """``sys.exit(code)`` without the interpreter's teardown.

    Once openai and pydantic are loaded, freeing every object at exit takes 0.1-0.3 s after the
    work is done (mypy's ``util.hard_exit`` skips it the same way). What a normal exit does
    before the teardown still happens here: non-daemon threads are joined, atexit handlers run,
    stdout and stderr are flushed. Only destructors of objects alive at exit are skipped; every
    file compact writes is closed (and fsynced) before this point. A stdout or stderr that
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
