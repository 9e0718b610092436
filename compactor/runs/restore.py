"""``compact archive restore FILE``: the undo of an ``--in-place`` run.

The archive's index (:mod:`compactor.io.archive_index`) says which file each archived original
was. :func:`restore_original` finds the newest archived original of a file that differs from
the file as it is now, archives the current file first (so a restore is itself undone by the
next restore), and puts the original back atomically, keeping the file's mode. The file is
held under the same ``flock`` an ``--in-place`` run takes, so the two never overlap; an
archived entry whose bytes no longer match its name is refused.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from compactor.errors import ConfigError, InputChangedError, TranscriptError
from compactor.io import InputFile, archive_original, atomic_write, open_input
from compactor.io.archive_index import IndexRecord, read_index, record_archived

__all__ = ["RestoreResult", "archived_versions", "restore_original"]


@dataclass(frozen=True)
class RestoreResult:
    """What :func:`restore_original` did."""

    path: str
    """The file restored (absolute, symlinks resolved)."""
    restored_from: str
    """The archived entry whose bytes it now holds."""
    archived_at: float
    """When that entry was archived."""
    current_archive: str | None
    """Where the file's bytes before the restore were archived (None: there was no file)."""


def archived_versions(path: str, folder: str | os.PathLike[str]) -> list[IndexRecord]:
    """The index records of ``path`` (resolved) whose entries still exist, newest first."""
    target = os.path.realpath(path)
    base = Path(folder)
    found = [
        r
        for r in read_index(base)
        if r.original == target and (base / r.entry).is_file() and not (base / r.entry).is_symlink()
    ]
    found.sort(key=lambda r: r.archived_at, reverse=True)
    return found


def _entry_bytes(folder: Path, record: IndexRecord) -> bytes:
    entry = folder / record.entry
    fd = os.open(entry, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if f"{hashlib.sha256(data).hexdigest()}.jsonl" != record.entry:
        raise TranscriptError(
            str(entry), None, None, "its bytes no longer match its name; not restored"
        )
    return data


def _unchanged(current: InputFile | None) -> None:
    why = None if current is None else current.changed()
    if current is not None and why is not None:
        raise InputChangedError(current.display, f"{why}; not restored")


def restore_original(path: str, folder: str | os.PathLike[str]) -> RestoreResult:
    """Put the newest archived original of ``path`` that differs from it back (see the
    module docstring). ConfigError when the archive holds none."""
    target = os.path.realpath(path)
    base = Path(os.path.abspath(folder))
    versions = archived_versions(target, base)
    if not versions:
        raise ConfigError(
            f"no archived original of {target!r} in {str(base)!r} "
            "(only files an --in-place run replaced are archived)"
        )
    current: InputFile | None = None
    if os.path.lexists(target):
        current = open_input(target, lock=True)
    try:
        digest = None if current is None else hashlib.sha256(current.raw).hexdigest()
        choice = next((r for r in versions if r.entry != f"{digest}.jsonl"), None)
        if choice is None:
            raise ConfigError(
                f"{target!r} already holds its newest archived original ({versions[0].entry}); "
                "nothing to restore"
            )
        data = _entry_bytes(base, choice)
        kept: str | None = None
        if current is not None:
            kept = archive_original(current.raw, base)
            record_archived(base, kept, target, by="archive restore")
        atomic_write(target, data, before_replace=lambda: _unchanged(current))
    finally:
        if current is not None:
            current.close()
    return RestoreResult(target, str(base / choice.entry), choice.archived_at, kept)
