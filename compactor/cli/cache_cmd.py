"""``compact cache info`` and ``compact cache clear``: the summary cache's folder, rendered.

The library owns the cache (:class:`compactor.pipeline.cache.SummaryCache`: what an entry is, what
``clear`` may remove); these commands find the folder the config names and print.
"""

import json
import time
from typing import TYPE_CHECKING, Annotated

import typer

from . import common
from .archive_cmd import size_text
from .common import ConfigOpt, DebugOpt, count
from .exitcodes import short_exit_codes
from .helptext import epilog

if TYPE_CHECKING:
    from compactor.pipeline.cache import SummaryCache

__all__ = ["CLEAR_EPILOG", "INFO_EPILOG", "cache_clear", "cache_info"]

INFO_EPILOG = epilog(
    [
        ("where the cache is, how many summaries, how big", "compact cache info"),
        ("the folder a config uses, as JSON", "compact cache info -c configs/robust.yaml --json"),
    ],
    short_exit_codes("the cache was described", "the config is unusable"),
)
CLEAR_EPILOG = epilog(
    [
        ("make every next run ask the model again", "compact cache clear"),
        ("drop summaries cached more than 30 days ago", "compact cache clear --older-than 30d"),
    ],
    short_exit_codes("done (also when the cache was empty)", "a bad --older-than or config"),
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _cache(config: str | None) -> "SummaryCache":
    from compactor.configfile import load_default_config
    from compactor.pipeline.cache import SummaryCache

    return SummaryCache(load_default_config(config).cache_dir())


def _when(seconds: float | None) -> str:
    return "-" if seconds is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def cache_info(config: ConfigOpt = None, as_json: JsonOpt = False, debug: DebugOpt = False) -> None:
    """Show the summary cache: its folder, its summaries, their size and age.

    On by default for remote models: a run that sends the same request again (endpoint, model,
    options, instructions, transcript) takes the stored summary and makes no request. The
    folder is the config's cache.dir, else $XDG_CACHE_HOME/compact/summaries
    (~/.cache/compact/summaries). `cache: false` or `run --no-cache` turns the cache off.
    """
    try:
        stats = _cache(config).stats()
        if as_json:
            common.say(json.dumps(stats.to_dict(), ensure_ascii=False), json_text=True)
            return
        if not stats.exists:
            common.say(f"no cached summaries: {stats.directory} does not exist yet")
            return
        common.say(
            f"{count(stats.entries, 'cached summary file')}, {size_text(stats.bytes)} in "
            f"{stats.directory}"
        )
        if stats.entries:
            common.say(f"oldest {_when(stats.oldest)}, newest {_when(stats.newest)}")
        if stats.temp_files:
            common.say(
                f"{count(stats.temp_files, 'temp file')} left by interrupted runs "
                "(compact cache clear removes them)"
            )
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def cache_clear(
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            metavar="AGE",
            help="Only summaries cached more than AGE ago: a number and a unit, s, m, h, d "
            "or w (30d, 12h, 2w). Default: all.",
        ),
    ] = None,
    config: ConfigOpt = None,
    as_json: JsonOpt = False,
    debug: DebugOpt = False,
) -> None:
    """Remove cached summaries (all, or those older than --older-than AGE).

    Only the cache's own files are touched; anything else in the folder stays.
    """
    try:
        from compactor.runs.archive import parse_age

        age = parse_age(older_than) if older_than is not None else None
        stats = _cache(config).clear(older_than=age)
        if as_json:
            common.say(json.dumps(stats.to_dict(), ensure_ascii=False), json_text=True)
            return
        temps = f" and {count(stats.temp_files, 'temp file')}" if stats.temp_files else ""
        common.say(
            f"removed {count(stats.entries, 'cached summary file')} "
            f"({size_text(stats.bytes)}){temps} from {stats.directory}"
        )
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
