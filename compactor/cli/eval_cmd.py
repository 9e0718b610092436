"""``compact eval``: what of an original transcript its compacted version kept.

The library lists and scores (:mod:`compactor.runs.evaluate`); this module prints a rich table per
category and the items that were lost, or the whole result as one JSON object (``--json``).
Texts come from transcripts: they are made visible and never read as rich markup.
"""

import json
from typing import Annotated

import typer

from . import common
from .common import DebugOpt, FormatOpt
from .exitcodes import short_exit_codes
from .helptext import epilog
from .safe_text import visible

__all__ = ["EPILOG", "eval_command"]

EPILOG = epilog(
    [
        (
            "how much of the session the compacted file kept",
            "compact eval session.jsonl session.compact.jsonl",
        ),
        ("every item, kept or lost, as JSON", "compact eval --json s.jsonl s.compact.jsonl"),
        (
            "fail a CI step when the score drops below 80",
            "compact eval --min-score 80 s.jsonl s.compact.jsonl",
        ),
    ],
    short_exit_codes(
        "the comparison was printed (and met --min-score)",
        "a file cannot be read; 1: the score is below --min-score",
    ),
)

_LOST_SHOWN = 8


def eval_command(
    original: Annotated[
        str, typer.Argument(metavar="ORIGINAL", help="The transcript before compaction.")
    ],
    compacted: Annotated[
        str, typer.Argument(metavar="COMPACTED", help="The same transcript after compaction.")
    ],
    fmt: FormatOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object with every item.")
    ] = False,
    min_score: Annotated[
        float | None,
        typer.Option("--min-score", min=0, max=100, help="Exit 1 when the score is below this."),
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every item, kept ones too.")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """Score what of an original transcript its compacted version kept.

    Every user request, the current request, the last assistant action, calls in flight,
    running background jobs and the paths, identifiers, numbers and error lines of the last
    rounds are looked for in the compacted transcript (summary and kept messages), with the
    user's words carried in tool results (rejection feedback, answers to the agent's questions)
    and the last rounds' failure lines; the current request the summary states is checked
    against the original's. Each item scores 1 when found as written, else the share of its
    word pairs found; the score is a weighted mean over the categories, 0 to 100. A result a
    reduction replaced by a placeholder is kept when the file it names holds it exactly.
    """
    from compactor.runs.evaluate import evaluate_files

    try:
        result = evaluate_files(original, compacted, fmt)
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
    if as_json:
        common.say(json.dumps(result.as_dict(), ensure_ascii=False), json_text=True)
    else:
        _print_table(result, show_all)
    if min_score is not None and result.score < min_score:
        raise typer.Exit(1)


def _print_table(result: object, show_all: bool) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from compactor.runs.evaluate import Evaluation

    assert isinstance(result, Evaluation)
    console = Console(highlight=False, emoji=False, soft_wrap=False)
    table = Table(title=None, show_edge=False)
    table.add_column("category")
    table.add_column("kept", justify="right")
    table.add_column("score", justify="right")
    table.add_column("lost (first ones)" if not show_all else "items")
    for cat in result.categories:
        if not cat.items:
            empty = "no claim of where work stands" if cat.name == "ended" else "nothing to keep"
            table.add_row(cat.name, "-", "-", Text(empty, style="dim"))
            continue
        listed = cat.items if show_all else [i for i in cat.items if not i.kept][:_LOST_SHOWN]
        lines = "\n".join(
            f"{'+' if i.kept else '-'} {visible(i.text)[:100]} ({i.how})" for i in listed
        )
        table.add_row(
            cat.name, f"{cat.kept}/{len(cat.items)}", f"{100 * cat.score:.0f}", Text(lines)
        )
    console.print(Text(visible(f"{result.original} → {result.compacted} · {result.format}")))
    if not result.summary_found:
        console.print(Text("no summary found in the compacted transcript", style="yellow"))
    console.print(table)
    followed = result.placeholders
    if followed.found:  # a reduced transcript: what its placeholders name was read back
        style = "yellow" if followed.missing else ""
        console.print(Text(followed.line(), style=style))
        for path, why in followed.missing[:_LOST_SHOWN]:  # one line each: a path to copy
            console.print(Text(visible(f"  - {path}: {why}"), style="dim"), soft_wrap=True)
    console.print(Text(f"score {result.score:.1f} / 100", style="bold"))
    if result.contradictions:
        wrong = Table(title=None, show_edge=False)
        wrong.add_column("wrong statement")
        wrong.add_column("the summary says")
        wrong.add_column("the original shows")
        for c in result.contradictions:
            wrong.add_row(c.kind, Text(visible(c.claim)), Text(visible(c.original)))
        console.print(Text(f"{len(result.contradictions)} wrong statement(s) of where work "
                           "stands", style="bold red"))  # fmt: skip
        console.print(wrong)
    else:
        console.print(Text("no wrong statement of where work stands found"))
