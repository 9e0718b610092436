"""What every ``compact`` command shares: option types, the error line, checked stdout writes,
and the guard for closed standard streams."""

from __future__ import annotations

import errno
import os
import sys
import traceback
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from compactor._util import lazy_pattern
from compactor.errors import StreamError
from compactor.formats import FORMAT_HELP, FORMAT_NAMES

from .exitcodes import classify
from .safe_text import visible, visible_json, visible_line

if TYPE_CHECKING:  # rich is imported when used: keeps start-up fast
    from rich.console import Console

__all__ = [
    "FORMAT_OPTION_HELP",
    "ConfigOpt",
    "DebugOpt",
    "FormatOpt",
    "ThresholdOpt",
    "TokenCounterOpt",
    "complete_format",
    "complete_model",
    "count",
    "err_console",
    "fail",
    "guard_std_streams",
    "number",
    "print_error",
    "say",
    "say_styled",
    "tokens",
    "traceback_text",
]

ConfigOpt = Annotated[
    str | None,
    typer.Option(
        "-c",
        "--config",
        metavar="FILE",
        help="YAML config file (default: the one $COMPACT_CONFIG names, else "
        "~/.config/compact/config.yaml if it exists).",
    ),
]


def complete_format(incomplete: str) -> list[tuple[str, str]]:
    """Shell completion of ``--format``: the format names, each with its help line."""
    return [(name, text) for name, text in FORMAT_HELP.items() if name.startswith(incomplete)]


def complete_model(incomplete: str) -> list[str]:
    """Shell completion of ``--model``: the providers' values (``local``, ``PREFIX:NAME`` for
    well-known models), from the provider table."""
    from compactor.models.registry import model_completions

    return model_completions(incomplete)


FORMAT_OPTION_HELP = f"Read as this format instead of detecting it: {', '.join(FORMAT_NAMES)}."
"""``--format``'s help, from the formats' declarations (``formats/_manifest.py``)."""

FormatOpt = Annotated[
    str | None,
    typer.Option(
        "--format",
        metavar="FORMAT",
        autocompletion=complete_format,
        help=FORMAT_OPTION_HELP,
    ),
]
_TOKENS = lazy_pattern(r"\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([kKmM]?)\s*")


def tokens(text: str | None, flag: str = "--threshold") -> int | None:
    """``50000``, ``50_000``, ``50k``, ``1.5M`` → a whole number of tokens (at least 1);
    a BadParameter (a one-line usage error, exit 2) that says what is expected otherwise."""
    if text is None:
        return None
    match = _TOKENS.fullmatch(text)
    value = None
    if match is not None:
        number = float(match.group(1).replace("_", "").replace(",", ""))
        value = number * {"": 1, "k": 1_000, "m": 1_000_000}[match.group(2).lower()]
    if value is None or value < 1 or value != int(value):
        raise typer.BadParameter(
            f"{text!r}: expected a number of tokens, such as 50000, 50k or 1.5M",
            param_hint=f"'{flag}'",
        )
    return int(value)


def focus_instructions(text: str | None, path: str | None) -> str | None:
    """``--instructions TEXT`` or the text of ``--instructions-file FILE``; both, or a file
    that cannot be read, is a one-line error ``compact: ...`` (exit 2)."""
    from compactor.errors import ConfigError

    if text is not None and path is not None:
        fail(ConfigError("use either --instructions or --instructions-file"))
    if path is None:
        return text
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        fail(ConfigError(f"--instructions-file: cannot read {path!r}: {reason}"))


def _check_tokens(value: str | None) -> str | None:
    tokens(value)
    return value


ThresholdOpt = Annotated[
    str | None,
    typer.Option(
        "--threshold",
        metavar="N",
        callback=_check_tokens,
        help="Compact above N tokens: 50000, 50k or 1.5M (replaces the config's token trigger; "
        "a message trigger still applies).",
    ),
]
InstructionsOpt = Annotated[
    str | None,
    typer.Option(
        "--instructions",
        metavar="TEXT",
        help="Focus instructions, as Claude Code's /compact TEXT: appended to the summarizer's "
        "instruction (the embedded one keeps first what mentions them).",
    ),
]
InstructionsFileOpt = Annotated[
    str | None,
    typer.Option(
        "--instructions-file", metavar="FILE", help="Read the focus instructions from FILE."
    ),
]
TokenCounterOpt = Annotated[
    str | None,
    typer.Option(
        "--token-counter",
        metavar="NAME",
        help="Count tokens with estimate (the default: provider usage + bytes/4), "
        "tiktoken:cl100k_base, tiktoken:o200k_base or pkg.mod:func.",
    ),
]
StrategyOpt = Annotated[
    str | None,
    typer.Option(
        "--strategy",
        metavar="NAME",
        help="summarize (the default); reduce: truncate and clear old tool results, offloaded "
        "to files, no model; hybrid: reduce, then summarize if still over the trigger.",
    ),
]
OffloadDirOpt = Annotated[
    str | None,
    typer.Option(
        "--offload-dir",
        metavar="DIR",
        help="reduce/hybrid: write cleared tool results here (default: NAME.offload/ beside "
        "the output).",
    ),
]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show tracebacks.")]


def number(n: int | None) -> str:
    """``1,234``; ``?`` when unknown. The one number formatter of the CLI's lines."""
    return "?" if n is None else f"{n:,}"


def count(n: int | None, noun: str) -> str:
    """``1 message``, ``2 messages``, ``1,234 tokens``; ``? messages`` when unknown."""
    return f"{number(n)} {noun}" + ("" if n == 1 else "s")


def err_console() -> Console:
    from rich.console import Console

    # emoji=False: rich reads ":smile:" in a model name (PREFIX:smile) as an emoji code
    return Console(stderr=True, highlight=False, emoji=False)


def traceback_text(err: BaseException) -> str:
    """The traceback for --debug, with every API key in use masked (server errors echo keys)."""
    from compactor._util import redact

    return visible(redact("".join(traceback.format_exception(err))))


def print_error(line: str, err: BaseException | None = None, debug: bool = False) -> None:
    """``compact: LINE`` on stderr (the traceback first with --debug); a closed stderr is
    ignored here: the exit code still tells."""
    try:
        console = err_console()
        if debug and err is not None:
            console.print(traceback_text(err), markup=False, highlight=False, end="")
        # one line whatever it holds: a newline in a file name is shown as \n, never a new line
        console.print(
            f"compact: {visible_line(line)}", markup=False, highlight=False, soft_wrap=True
        )
    except (OSError, ValueError):
        pass


def fail(err: BaseException, debug: bool = False) -> NoReturn:
    """Print the error's one line (a traceback only with --debug) and exit with its code."""
    message, code = classify(err)
    print_error(message, err, debug)
    raise typer.Exit(int(code))


def say(text: str, *, json_text: bool = False) -> None:
    """One line on stdout, flushed; a closed, full or broken stdout is a StreamError (exit 6).

    Paths, tool names and config values in it did not come from ``compact``: control
    characters are made visible (:func:`visible`; in JSON text, ``\\uXXXX`` escapes).
    """
    _write_line(visible_json(text) if json_text else visible(text))


def say_styled(parts: list[tuple[str, str | None]]) -> None:
    """One line on stdout from ``(text, SGR style or None)`` parts, e.g. ``("ok", "32")``:
    each text made visible, each styled part wrapped in its escape and a reset. Only for a
    terminal that wants colour (see ``check.use_colour``)."""
    line = "".join(
        visible(text) if style is None else f"\x1b[{style}m{visible(text)}\x1b[0m"
        for text, style in parts
    )
    _write_line(line)


def _write_line(text: str) -> None:
    try:
        stream = sys.stdout
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError, AttributeError) as err:
        cause = err.strerror if isinstance(err, OSError) and err.strerror else "stdout is closed"
        raise StreamError("<stdout>", cause) from err


class _ClosedStream:
    """Stands for a standard stream that was closed when ``compact`` started: every use fails
    as a write to a closed descriptor does (EBADF), so it is reported, never silently lost."""

    closed = True

    def __init__(self, name: str) -> None:
        self.name = name

    def _fail(self, *args: object, **kwargs: object) -> NoReturn:
        raise OSError(errno.EBADF, f"{self.name} is closed")

    write = read = readline = fileno = _fail

    def flush(self) -> None:
        """Nothing is buffered: only a write (or read) fails."""

    @property
    def buffer(self) -> NoReturn:
        self._fail()

    def isatty(self) -> bool:
        return False


def guard_std_streams() -> None:
    """For each of stdin, stdout and stderr that is closed (``>&-``): occupy its descriptor
    with /dev/null, so no file ``compact`` opens lands on it, and make its Python stream fail
    on use. Then a write to a closed stdout is exit 6, never a write into another file."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, _ClosedStream(name))
