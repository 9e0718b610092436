"""``compact show``: the summary of a compacted transcript, rendered for reading.

The library finds the summary and turns it into Markdown (:mod:`compactor.runs.show`); this module
renders it with rich. The text came from a transcript (and, through it, from a model): its
control characters are made visible first (:func:`~compactor.cli.safe_text.visible`), it is
never read as rich markup, and links are shown as text with their address, never as terminal
hyperlinks that could say one thing and open another.

On a terminal the page goes through a pager (``$PAGER``, else ``less -FRX`` when there is one;
``--no-pager`` or a pipe: none), as git does; ``--json`` gives the summary and where it is as
one JSON object.
"""

import json
import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from . import common
from .common import DebugOpt, FormatOpt
from .exitcodes import short_exit_codes
from .helptext import epilog
from .safe_text import visible

if TYPE_CHECKING:
    from compactor.runs.show import FoundReduction

__all__ = ["EPILOG", "render", "show"]

EPILOG = epilog(
    [
        ("what the summarizer kept of a session", "compact show session.compact.jsonl"),
        (
            "the raw text, as the next model call will read it",
            "compact show --raw session.compact.jsonl",
        ),
        ("as JSON, for a program", "compact show --json session.compact.jsonl"),
    ],
    short_exit_codes(
        "the summary was shown (a reduced transcript: its cleared results and their files)",
        "the file cannot be read or holds no summary and no reduced result (not compacted)",
    ),
)


def render(path: str, fmt: str, position: int, messages: int, text: str) -> str:
    """The page ``compact show`` prints: a header line, then the summary as Markdown, for
    stdout as it is (colour and width on a terminal, plain text elsewhere)."""
    import io

    from rich.console import Console
    from rich.markdown import Markdown
    from rich.text import Text

    from compactor.runs.show import KEEP_INDENT, summary_markdown

    target = Console(highlight=False, emoji=False)  # what stdout is: width, colour, NO_COLOR
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=target.width,
        color_system=target.color_system,  # type: ignore[arg-type]
        force_terminal=target.is_terminal,
        no_color=target.no_color,
        highlight=False,
        emoji=False,
    )
    header = f"{path} · {fmt} · summary in message {position:,} of {messages:,}"
    console.print(Text(visible(header), style="dim"), soft_wrap=True)
    console.print()
    console.print(Markdown(summary_markdown(visible(text)), hyperlinks=False))
    page = buffer.getvalue().replace(KEEP_INDENT, "")
    if target.is_terminal:
        return page
    return "\n".join(line.rstrip() for line in page.split("\n"))  # no padding in a file


def show(
    transcript: Annotated[
        str,
        typer.Argument(
            metavar="TRANSCRIPT",
            help="A compacted transcript (any format), or - for stdin.",
        ),
    ],
    fmt: FormatOpt = None,
    raw: Annotated[
        bool, typer.Option("--raw", help="Print the summary's text as it is, without formatting.")
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="One JSON object: path, format, position (1-based), messages and summary.",
        ),
    ] = False,
    pager: Annotated[
        bool | None,
        typer.Option(
            "--pager/--no-pager",
            help="Page the output with $PAGER (else less -FRX); default: on a terminal only.",
        ),
    ] = None,
    debug: DebugOpt = False,
) -> None:
    """Show the summary of a compacted transcript, formatted for reading.

    Its <analysis> and <summary> blocks and numbered sections become headings, and every
    line reads as written; colour on a terminal only. Any format, stdin too.
    """
    from compactor.runs.show import FoundReduction, find_shown

    try:
        found = find_shown(transcript, fmt)
        if isinstance(found, FoundReduction):
            _show_reduced(found, as_json=as_json, raw=raw, pager=pager)
            return
        if as_json:
            record = {
                "path": found.path,
                "format": found.format,
                "position": found.position,
                "messages": found.messages,
                "summary": found.text,
            }
            common.say(json.dumps(record, ensure_ascii=False), json_text=True)
            return
        if raw:
            text = visible(found.text) + "\n"
        else:
            text = render(found.path, found.format, found.position, found.messages, found.text)
        command = _pager(pager)
        if command is not None and _page(command, text):
            return
        _write(text)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def _show_reduced(found: "FoundReduction", *, as_json: bool, raw: bool, pager: bool | None) -> None:
    """A transcript that was reduced, not summarized: which results were cleared or truncated,
    and where each original is (exit 0: it is what this compaction wrote)."""
    if as_json:
        record = {
            "path": found.path,
            "format": found.format,
            "messages": found.messages,
            "summary": None,
            "reduced": [
                {"position": r.position, "call_id": r.call_id, "tool": r.tool, "state": r.state,
                 "file": r.file}
                for r in found.results
            ],
        }  # fmt: skip
        common.say(json.dumps(record, ensure_ascii=False), json_text=True)
        return
    body = visible(found.text())
    if not raw:
        header = f"{found.path} · {found.format} · no summary, {len(found.results):,} reduced "
        header += f"result(s) in {found.messages:,} messages"
        body = visible(header) + "\n\n" + body
    command = _pager(pager)
    if command is not None and _page(command, body):
        return
    _write(body)


def _write(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError) as err:
        from compactor.errors import StreamError

        cause = err.strerror if isinstance(err, OSError) and err.strerror else "closed"
        raise StreamError("<stdout>", cause) from err


def _pager(wanted: bool | None) -> str | None:
    """The pager command to use, or None: ``--no-pager``, stdout not a terminal (unless
    ``--pager``), ``$PAGER`` empty or ``cat``, or no pager at hand."""
    if wanted is False:
        return None
    if wanted is None:
        try:
            if not sys.stdout.isatty():
                return None
        except (OSError, ValueError):
            return None
    command = os.environ.get("PAGER")
    if command is None:
        return "less -FRX" if shutil.which("less") else None
    return None if command.strip() in ("", "cat") else command


def _page(command: str, text: str) -> bool:
    """Show ``text`` through ``command`` (a shell command, as git runs ``$PAGER``); False when
    it could not be started (the text is then printed as it is)."""
    sys.stdout.flush()
    try:
        proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE)
    except OSError:
        return False
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8", "replace"))
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the reader quit the pager early
    try:
        proc.wait()
    except KeyboardInterrupt:
        proc.wait()
    return True
