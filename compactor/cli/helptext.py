"""How every ``compact --help`` page reads: plain metavars, whole one-line command summaries,
examples and exit codes as sections of their own, and one suggestion for a mistyped option.

typer builds its commands with the classes given as ``cls=`` (its documented extension point);
:class:`Command` and :class:`Group` only change how help is written and how an unknown option
is answered, never how arguments are parsed. Kept free of rich: ``compact check`` must start
fast, and help is plain text (click's formatter, no markup).

* Usage shows ``TRANSCRIPT...`` rather than typer's ``{TRANSCRIPT...}...`` (and a required
  option, ``--older-than AGE``); arguments and options show their metavar
  (``-c, --config FILE``), never a Python type (``<list[str]>``).
* The command list shows each command's whole one-line summary (wrapped when the terminal is
  narrow, never cut to "...").
* ``epilog`` is preformatted text (see :func:`epilog`): ``Examples:`` and ``Exit codes:``
  sections, written as they are.
* ``--forse`` answers "Did you mean --force?" (the one closest option), not a list of three.
* ``--show-completion SHELL`` / ``--install-completion SHELL`` honour the shell named
  (typer's own options take no value and print the script of the shell they detect: bash for
  ``compact --show-completion zsh``); without one, the current shell is detected.
* A usage error (an unknown option, a bad or missing value) is one line on stderr, like every
  other failure: ``compact: no such option: --forse. Did you mean --force? (see 'compact run
  --help')``, not click's usage block.
"""

from __future__ import annotations

import difflib
import inspect
import types
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, cast

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from compactor._json import JsonObject

if TYPE_CHECKING:
    from typer._click import Command as ClickCommand
    from typer._click import Context, HelpFormatter, Parameter
    from typer._click.exceptions import UsageError

__all__ = ["CONTEXT", "Command", "Group", "epilog"]

CONTEXT: JsonObject = {"help_option_names": ["--help", "-h"], "max_content_width": 100}
"""Context settings of every command: ``-h`` too, and help up to 100 columns wide."""


def epilog(examples: Sequence[tuple[str, str]], exit_codes: str | None = None) -> str:
    """The text after the options: ``Examples:`` (a comment line, then the command) and, when
    given, ``Exit codes:``. Written verbatim by :class:`Command` and :class:`Group`."""
    lines = ["Examples:"]
    for i, (comment, command) in enumerate(examples):
        if i:
            lines.append("")
        lines.extend((f"  # {comment}", f"  {command}"))
    if exit_codes:
        lines.extend(("", exit_codes))
    return "\n".join(lines)


def _metavar(param: Parameter) -> str:
    """``TRANSCRIPT...`` / ``FILE``: the metavar as written, else the name in capitals."""
    name = param.metavar or (param.name or "").upper()
    if param.nargs != 1 and not name.endswith("..."):
        name += "..."
    return str(name)


def _usage_piece(param: Parameter) -> list[str]:
    """An argument, or a required option (``--older-than AGE``), as the usage line shows it."""
    if param.param_type_name != "argument":
        if not param.required:
            return []
        return [f"{max(param.opts, key=len)} {_metavar(param)}"]
    name = _metavar(param)
    return [name if param.required else f"[{name}]"]


SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
_COMPLETION_OPTIONS = {
    "--install-completion": "Install completion for SHELL (bash, zsh, fish, powershell; "
    "default: the current shell).",
    "--show-completion": "Print the completion script for SHELL (bash, zsh, fish, powershell; "
    "default: the current shell).",
}


def _option_row(param: TyperOption) -> tuple[str, str] | None:
    if getattr(param, "hidden", False):
        return None
    special = next((o for o in param.opts if o in _COMPLETION_OPTIONS), None)
    if special is not None:
        return f"{special} [SHELL]", _COMPLETION_OPTIONS[special]
    names = ", ".join(sorted(param.opts, key=lambda o: o.startswith("--")))  # -c, --config
    if param.secondary_opts:
        names += " / " + ", ".join(param.secondary_opts)
    if not (param.is_flag or getattr(param, "count", False)):
        names += f" {_metavar(param)}"
    return names, param.help or ""


def _format_params(self: ClickCommand, ctx: Context, formatter: HelpFormatter) -> None:
    arguments: list[tuple[str, str]] = []
    options: list[tuple[str, str]] = []
    for param in self.get_params(ctx):
        if param.param_type_name == "argument":
            if not getattr(param, "hidden", False):
                help_text = cast(TyperArgument, param).help  # compact's arguments are typer's
                arguments.append((_metavar(param), help_text or ""))
        else:
            row = _option_row(cast(TyperOption, param))  # and so are its options
            if row is not None:
                options.append(row)
    if arguments:
        with formatter.section("Arguments"):
            formatter.write_dl(arguments)
    if options:
        with formatter.section("Options"):
            formatter.write_dl(options)


def _format_epilog(self: ClickCommand, formatter: HelpFormatter) -> None:
    if self.epilog:
        formatter.write_paragraph()
        formatter.write(self.epilog.strip("\n") + "\n")


def _one_suggestion(err: Exception, names: list[str]) -> None:
    """Keep only the closest known option as the suggestion (click lists up to three)."""
    typed = getattr(err, "option_name", None)
    if typed is None or not hasattr(err, "possibilities"):
        return
    best = difflib.get_close_matches(typed, names, n=1, cutoff=0.6)
    err.possibilities = None
    if best:
        err.message = f"No such option: {typed}. Did you mean {best[0]}?"  # type: ignore[attr-defined]


def _show_one_line(err: UsageError, file: IO[str] | None = None) -> None:
    """Replaces click's ``UsageError.show``: one line, ``compact: message (see '... --help')``."""
    import sys

    message = " ".join(str(err.format_message()).split()).rstrip(".")
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    where = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
    try:
        (file or sys.stderr).write(f"compact: {message}{where}\n")
    except (OSError, ValueError):
        pass


def _one_line(err: Exception) -> None:
    """Make a usage error print itself on one line (see :func:`_show_one_line`)."""
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    # A group named alone (``compact config``) shows its help as click lays it out, not
    # squeezed onto one line.
    if isinstance(err, UsageError) and not isinstance(err, NoArgsIsHelpError):
        err.show = types.MethodType(_show_one_line, err)  # type: ignore[method-assign]


def _completion_request(args: list[str]) -> tuple[str, str | None] | None:
    """(option, shell or None) when the root's ``args`` ask for a completion script."""
    for i, arg in enumerate(args):
        option, eq, value = arg.partition("=")
        if option in _COMPLETION_OPTIONS:
            if eq:
                return option, value
            after = args[i + 1] if i + 1 < len(args) else None
            return option, after if after in SHELLS else None
        if arg == "--" or not arg.startswith("-"):
            return None  # a command: the rest are its arguments
    return None


def _completion(ctx: Context, option: str, shell: str | None) -> None:
    """Print (or install) the completion script for ``shell``, then exit."""
    import os
    import sys

    from typer._completion_shared import _get_shell_name, get_completion_script, install

    if shell is None and not os.getenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION"):
        shell = _get_shell_name()
    if shell is None or shell not in SHELLS:
        named = f"{shell!r} is not a shell compact completes" if shell else "no shell detected"
        sys.stderr.write(
            f"compact: {option}: {named}; name one: {option} bash|zsh|fish|powershell\n"
        )
        ctx.exit(2)
    prog = ctx.find_root().info_name or "compact"
    var = "_{}_COMPLETE".format(prog.replace("-", "_").upper())
    if option == "--show-completion":
        sys.stdout.write(
            get_completion_script(prog_name=prog, complete_var=var, shell=shell) + "\n"
        )
    else:
        done, path = install(shell=shell, prog_name=prog, complete_var=var)
        sys.stdout.write(f"{done} completion installed in {path}\n")
        sys.stdout.write("Completion will take effect once you restart the terminal\n")
    ctx.exit(0)


def _option_names(command: ClickCommand, ctx: Context) -> list[str]:
    names: list[str] = []
    for param in command.get_params(ctx):
        if param.param_type_name == "option":
            names.extend([*param.opts, *param.secondary_opts])
    return names


class Command(TyperCommand):
    """A ``compact`` command (see the module docstring)."""

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            pieces.extend(_usage_piece(param))
        return pieces

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_params(self, ctx, formatter)

    def format_epilog(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_epilog(self, formatter)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except Exception as err:
            _one_suggestion(err, _option_names(self, ctx))
            _one_line(err)
            raise


class Group(TyperGroup):
    """A ``compact`` command group: the root and ``config``, ``archive``."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_params(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            text = command.short_help or inspect.cleandoc(command.help or "")
            rows.append((name, text.partition("\n\n")[0].replace("\n", " ")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def format_epilog(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_epilog(self, formatter)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        request = _completion_request(args) if ctx.parent is None else None
        if request is not None:
            _completion(ctx, *request)
        try:
            return super().parse_args(ctx, args)
        except Exception as err:
            _one_suggestion(err, _option_names(self, ctx))
            _one_line(err)
            raise

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, ClickCommand | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except Exception as err:
            _one_line(err)
            raise
