"""The archive of originals (``compact archive list`` / ``prune``).

``--in-place`` runs (and stdin runs whose summary note points at the original) first store the
original as ``<sha256>.jsonl`` under ``$XDG_DATA_HOME/compact/archive`` (``archive_dir:`` in the
config overrides it; :func:`compactor.io.archive_original`). Nothing removes those files on its
own, so the archive grows with every run; this module lists them and removes the old ones.

Only what :func:`~compactor.io.archive_original` writes is ever touched: regular files named
``<64 hex digits>.jsonl`` directly in the folder (no symlink, no subfolder, nothing else), and
the temp files it leaves when a run is killed mid-write (``.<sha256>.jsonl.*.tmp``). Files are
removed through a descriptor of the folder, so a folder swapped for a symlink meanwhile cannot
redirect the removal. The summary of a compacted transcript names its archived original: once
pruned, that note points at a file that is gone.

Prune never removes what a run has just named. Every archiving refreshes the entry's mtime (an
entry that already holds the same bytes is touched), and a run holds a shared ``flock`` on its
entry from before the rename to its end (:func:`compactor.io.archive_held`). Prune takes an
exclusive ``flock`` on each entry it would remove, without waiting: an entry a run holds is
kept, and one it could lock is checked again under the lock (still old, still the same file)
before it goes. So ``prune --older-than 0s`` racing a run keeps the run's archive. Leftover temp
files are locked the same way by the run writing them. An archive folder that another user can
write (or that belongs to another user) is refused: :func:`compactor.io.unsafe_folder`.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from compactor._util import lazy_pattern
from compactor.errors import ConfigError

__all__ = [
    "ArchivedFile",
    "PruneResult",
    "archive_folder",
    "list_archive",
    "parse_age",
    "prune_archive",
]

_ARCHIVED = lazy_pattern(r"[0-9a-f]{64}\.jsonl")
_LEFTOVER = lazy_pattern(r"\.[0-9a-f]{64}\.jsonl\..+\.tmp")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_AGE = lazy_pattern(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([smhdw])\s*")


@dataclass(frozen=True)
class ArchivedFile:
    """One archived original."""

    path: str
    size: int
    """Bytes."""
    archived_at: float
    """When it was archived (its modification time, seconds since the epoch)."""
    leftover: bool = False
    """A temp file an interrupted archive write left behind (never a complete original)."""


@dataclass
class PruneResult:
    """What :func:`prune_archive` removed (or, with ``dry_run``, would remove)."""

    folder: str
    removed: list[ArchivedFile] = field(default_factory=list)
    kept: int = 0
    dry_run: bool = False

    @property
    def bytes_freed(self) -> int:
        return sum(f.size for f in self.removed)


def archive_folder(archive_dir: str | None = None) -> Path:
    """The archive folder: ``archive_dir`` (the config's, see
    :meth:`~compactor.configfile.FileConfig.archive_folder`), else the default under
    ``$XDG_DATA_HOME`` (``~/.local/share/compact/archive``); absolute. ConfigError when another
    user can write it (:func:`compactor.io.unsafe_folder`)."""
    from compactor.io import check_archive_folder, default_archive_dir

    folder = Path(os.path.expanduser(archive_dir)) if archive_dir else default_archive_dir()
    folder = Path(os.path.abspath(folder))
    check_archive_folder(folder)
    return folder


def parse_age(text: str) -> float:
    """``30d`` → seconds. Units: s, m (minutes), h, d, w; ConfigError otherwise."""
    match = _AGE.fullmatch(text)
    if match is None:
        raise ConfigError(
            f"--older-than {text!r}: expected a number and a unit, such as 30d, 12h, 2w "
            "(s, m, h, d, w)"
        )
    return float(match.group(1)) * _UNITS[match.group(2)]


def _scan(folder: Path, dir_fd: int) -> list[ArchivedFile]:
    found: list[ArchivedFile] = []
    for name in os.listdir(dir_fd):
        archived = _ARCHIVED.fullmatch(name) is not None
        if not archived and _LEFTOVER.fullmatch(name) is None:
            continue
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue  # removed meanwhile
        if not stat.S_ISREG(st.st_mode):
            continue
        found.append(ArchivedFile(str(folder / name), st.st_size, st.st_mtime, not archived))
    found.sort(key=lambda f: (f.archived_at, f.path))
    return found


def _open_folder(folder: Path) -> int | None:
    """A descriptor of ``folder``; None when it does not exist (an empty archive)."""
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    except NotADirectoryError as err:
        raise ConfigError(f"archive folder {str(folder)!r} is not a folder") from err
    except OSError as err:
        raise ConfigError(f"archive folder {str(folder)!r}: {err.strerror or err}") from err


def list_archive(folder: str | os.PathLike[str]) -> list[ArchivedFile]:
    """The archived originals in ``folder``, oldest first (empty when it does not exist)."""
    path = Path(folder)
    fd = _open_folder(path)
    if fd is None:
        return []
    try:
        return _scan(path, fd)
    finally:
        os.close(fd)


def prune_archive(
    folder: str | os.PathLike[str],
    older_than: float,
    *,
    now: float | None = None,
    dry_run: bool = False,
) -> PruneResult:
    """Remove the archived originals older than ``older_than`` seconds (and leftover temp
    files of that age). ``dry_run``: only report what would go."""
    if older_than < 0:
        raise ConfigError("--older-than must not be negative")
    path = Path(folder)
    result = PruneResult(str(path), dry_run=dry_run)
    fd = _open_folder(path)
    if fd is None:
        return result
    cutoff = (time.time() if now is None else now) - older_than
    try:
        for item in _scan(path, fd):
            if item.archived_at >= cutoff:
                result.kept += 1
                continue
            if not dry_run:
                outcome = _remove_idle(os.path.basename(item.path), fd, cutoff)
                if outcome == "gone":
                    continue
                if outcome == "kept":
                    result.kept += 1
                    continue
            result.removed.append(item)
    finally:
        os.close(fd)
    if result.removed and not dry_run:
        from compactor.io.archive_index import forget

        forget(path, [f.path for f in result.removed if not f.leftover])
    return result


def _remove_idle(name: str, dir_fd: int, cutoff: float) -> str:
    """Remove ``name`` if no run holds it and it is still older than ``cutoff``: ``removed``,
    ``kept`` (a run holds it, or archived it again meanwhile) or ``gone`` (already removed)."""
    import fcntl

    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        entry = os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        return "gone"
    except OSError:
        return "kept"  # a symlink planted meanwhile, or unreadable: not ours to remove
    try:
        try:
            fcntl.flock(entry, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return "kept"  # a run holds it: it has just named this archive
        st = os.fstat(entry)
        if not stat.S_ISREG(st.st_mode) or st.st_mtime >= cutoff:
            return "kept"  # archived again since the scan
        try:
            now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return "gone"
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return "kept"  # archived again (a new file) since the scan
        try:
            os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            return "gone"
        return "removed"
    finally:
        os.close(entry)
