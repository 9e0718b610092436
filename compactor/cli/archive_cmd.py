"""``compact archive list`` and ``compact archive prune``: the originals ``--in-place`` kept.

The library finds and removes them (:mod:`compactor.runs.archive`); this module prints. A
``compact cache`` group (the summary cache) belongs beside this one, in the same shape.
"""

import json
import os
import time
from typing import Annotated

import typer

from compactor.configfile import load_default_config

from . import common
from .common import ConfigOpt, DebugOpt, count
from .exitcodes import short_exit_codes
from .helptext import epilog

__all__ = [
    "LIST_EPILOG",
    "PRUNE_EPILOG",
    "RESTORE_EPILOG",
    "archive_list",
    "archive_prune",
    "archive_restore",
    "size_text",
]

LIST_EPILOG = epilog(
    [
        ("when each original was archived, its size, path and file", "compact archive list"),
        ("the same as JSON lines", "compact archive list --json"),
    ],
    short_exit_codes("the archive was listed", "the config or the archive folder is unusable"),
)
PRUNE_EPILOG = epilog(
    [
        ("see what would go, then remove it", "compact archive prune --older-than 30d --dry-run"),
        (
            "remove originals archived more than 2 weeks ago",
            "compact archive prune --older-than 2w",
        ),
    ],
    short_exit_codes("done (also when nothing was old enough)", "a bad --older-than or config"),
)


RESTORE_EPILOG = epilog(
    [
        ("undo an --in-place run: put the original back", "compact archive restore s.jsonl"),
        ("undo the restore (it archived the file it replaced)", "compact archive restore s.jsonl"),
    ],
    short_exit_codes("the original was put back", "no archived original of FILE, or a bad config"),
)


def size_text(n: int) -> str:
    """``812 B``, ``14.2 KB``, ``3.1 MB`` (powers of 1,000, as ``ls -h --si``)."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1000
        if value < 1000 or unit == "TB":
            break
    return f"{value:.1f} {unit}"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def _folder(config: str | None) -> str:
    from compactor.runs.archive import archive_folder

    return str(archive_folder(load_default_config(config).archive_folder()))


def archive_list(
    config: ConfigOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per archived file, one per line.")
    ] = False,
    debug: DebugOpt = False,
) -> None:
    """List the archived originals, oldest first, with the folder's total.

    Each line ends with the file it was (<- PATH) when the archive's index knows it; --json
    gives it as "original".

    The folder is the config's archive_dir, else $XDG_DATA_HOME/compact/archive
    (~/.local/share/compact/archive).
    """
    from compactor.io.archive_index import newest_by_entry, read_index
    from compactor.runs.archive import list_archive

    try:
        folder = _folder(config)
        files = list_archive(folder)
        index = newest_by_entry(read_index(folder))
        if as_json:
            for f in files:
                known = index.get(os.path.basename(f.path))
                record = {
                    "path": f.path,
                    "size": f.size,
                    "archived_at": round(f.archived_at, 3),
                    "leftover": f.leftover,
                    "original": None if known is None else known.original,
                    "run": None if known is None else known.run,
                }
                common.say(json.dumps(record, ensure_ascii=False), json_text=True)
            return
        for f in files:
            note = "  (left by an interrupted run)" if f.leftover else ""
            known = index.get(os.path.basename(f.path))
            if known is not None:
                note += f"  <- {known.original or '(stdin)'}"
            common.say(f"{_when(f.archived_at)}  {size_text(f.size):>9}  {f.path}{note}")
        total = size_text(sum(f.size for f in files))
        common.say(f"{count(len(files), 'file')}, {total} in {folder}")
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def archive_prune(
    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            metavar="AGE",
            help="Remove originals archived more than AGE ago: a number and a unit, s, m, h, "
            "d or w (30d, 12h, 2w).",
        ),
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list what would be removed.")
    ] = False,
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Remove archived originals older than --older-than AGE.

    Only the archive's own files are touched. A summary written by an --in-place run names its
    archived original: once pruned, that note points at a file that is gone.
    """
    from compactor.runs.archive import parse_age, prune_archive

    try:
        age = parse_age(older_than)
        result = prune_archive(_folder(config), age, dry_run=dry_run)
        verb = "would remove" if dry_run else "removed"
        for f in result.removed:
            common.say(f"{verb} {f.path} ({_when(f.archived_at)}, {size_text(f.size)})")
        common.say(
            f"{verb} {count(len(result.removed), 'file')} ({size_text(result.bytes_freed)}), "
            f"kept {count(result.kept, 'file')} in {result.folder}"
        )
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)


def archive_restore(
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="The file to put its archived original back in.")
    ],
    config: ConfigOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Undo an --in-place run: put back the newest archived original of FILE.

    The file as it is now is archived first, so running restore again undoes the restore.
    The file keeps its mode; it is replaced atomically, never half-written.
    """
    from compactor.runs.restore import restore_original

    try:
        result = restore_original(file, _folder(config))
        common.say(
            f"restored {result.path} from {result.restored_from} "
            f"(archived {_when(result.archived_at)})"
        )
        if result.current_archive is not None:
            common.say(f"the replaced version is archived as {result.current_archive}")
    except (Exception, KeyboardInterrupt) as err:  # noqa: BLE001
        common.fail(err, debug)
