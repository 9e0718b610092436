"""The archive's index: which file each archived original was, when, and which run kept it.

``<sha256>.jsonl`` files stay the archive's only entries; beside them, one file named
:data:`INDEX_NAME` (``.index.jsonl``, which no entry pattern matches) holds one JSON object per
archiving, appended::

    {"entry": "<sha256>.jsonl", "original": "/abs/resolved/path", "archived_at": 1764950000.1,
     "run": "4242-1a2b3c4d", "pid": 4242, "by": "run --in-place"}

``original`` is None for a transcript read from stdin. Appends hold an exclusive ``flock`` on
the index, are one ``write`` each and fsynced; the file is created 0600 and is never opened
through a symlink (``O_NOFOLLOW`` relative to a descriptor of the folder): a planted symlink
is refused, not followed. :func:`forget` rewrites it atomically without the lines of removed
entries (``archive prune``). A line that cannot be read, or whose ``entry`` is not a
``<sha256>.jsonl`` name, is skipped, never fatal: the index helps an undo, the entries
themselves are the archive.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from compactor._util import lazy_pattern
from compactor.errors import StreamError

from .paths import os_cause
from .writing import make_private_dirs, write_all

__all__ = [
    "INDEX_NAME",
    "IndexRecord",
    "forget",
    "newest_by_entry",
    "read_index",
    "record_archived",
    "run_id",
]

INDEX_NAME = ".index.jsonl"

_RUN_ID = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"


def run_id() -> str:
    """This process's run id (``<pid>-<8 hex>``), the same in every record it writes."""
    return _RUN_ID


@dataclass(frozen=True)
class IndexRecord:
    """One archiving: ``entry`` (a ``<sha256>.jsonl`` name) kept ``original``."""

    entry: str
    original: str | None
    archived_at: float
    run: str
    pid: int
    by: str

    def to_dict(self) -> dict[str, object]:
        return {
            "entry": self.entry,
            "original": self.original,
            "archived_at": round(self.archived_at, 3),
            "run": self.run,
            "pid": self.pid,
            "by": self.by,
        }


def _folder_fd(folder: Path) -> int:
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


@contextlib.contextmanager
def _locked_index(folder: Path, *, create: bool) -> Iterator[tuple[int, int] | None]:
    """(folder fd, index fd) with the index locked; None when there is no index (and not
    ``create``). The index is reopened when it was replaced between open and lock."""
    label = str(folder / INDEX_NAME)
    try:
        dir_fd = _folder_fd(folder)
    except FileNotFoundError:
        if not create:
            yield None
            return
        raise
    try:
        flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY
        for _ in range(10):
            try:
                fd = os.open(
                    INDEX_NAME, flags | (os.O_CREAT if create else 0), 0o600, dir_fd=dir_fd
                )
            except FileNotFoundError:
                yield None
                return
            except OSError as err:
                if err.errno == errno.ELOOP:
                    raise StreamError(
                        label, "it is a symlink; the archive index is never written through one"
                    ) from err
                raise StreamError(label, os_cause(err)) from err
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise StreamError(label, "it is not a regular file")
                fcntl.flock(fd, fcntl.LOCK_EX)
                try:
                    now = os.stat(INDEX_NAME, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    now = None
                if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                    continue  # rewritten by forget() meanwhile: open the new one
                if stat.S_IMODE(st.st_mode) & 0o077:
                    with contextlib.suppress(OSError):
                        os.fchmod(fd, 0o600)
                yield dir_fd, fd
                return
            finally:
                os.close(fd)
        raise StreamError(label, "it kept being replaced")
    finally:
        os.close(dir_fd)


def record_archived(
    folder: str | os.PathLike[str],
    entry_path: str,
    original: str | None,
    *,
    by: str = "run --in-place",
    when: float | None = None,
) -> IndexRecord:
    """Append that ``entry_path`` (an archived ``<sha256>.jsonl``) kept ``original``
    (resolved to an absolute path here; None: stdin). StreamError when it cannot be written."""
    path = Path(folder)
    make_private_dirs(path)
    resolved = os.path.realpath(original) if original is not None else None
    record = IndexRecord(
        entry=os.path.basename(entry_path),
        original=resolved,
        archived_at=time.time() if when is None else when,
        run=run_id(),
        pid=os.getpid(),
        by=by,
    )
    line = json.dumps(record.to_dict(), ensure_ascii=False) + "\n"
    with _locked_index(path, create=True) as fds:
        assert fds is not None
        _dir_fd, fd = fds
        write_all(fd, line.encode("utf-8", "surrogateescape"), str(path / INDEX_NAME))
        with contextlib.suppress(OSError):
            os.fsync(fd)
    return record


_ENTRY = lazy_pattern(r"[0-9a-f]{64}\.jsonl")


def _parse(data: bytes) -> list[IndexRecord]:
    records: list[IndexRecord] = []
    for raw in data.splitlines():
        try:
            obj = json.loads(raw.decode("utf-8", "surrogateescape"))
            if not _ENTRY.fullmatch(str(obj["entry"])):
                continue  # only an archive entry's own name, never a path elsewhere
            original = obj["original"]
            records.append(
                IndexRecord(
                    entry=str(obj["entry"]),
                    original=None if original is None else str(original),
                    archived_at=float(obj["archived_at"]),
                    run=str(obj.get("run", "")),
                    pid=int(obj.get("pid", 0)),
                    by=str(obj.get("by", "")),
                )
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a torn or foreign line: skipped
    return records


def _read_all(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_index(folder: str | os.PathLike[str]) -> list[IndexRecord]:
    """Every readable record of the index, in the order written (empty without an index, or
    when it is a symlink or not a file: such an index is not read)."""
    path = Path(folder)
    try:
        dir_fd = _folder_fd(path)
    except OSError:
        return []
    try:
        fd = os.open(INDEX_NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return []
    finally:
        os.close(dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        return _parse(_read_all(fd))
    finally:
        os.close(fd)


def newest_by_entry(records: Iterable[IndexRecord]) -> dict[str, IndexRecord]:
    """Entry name → its newest record."""
    newest: dict[str, IndexRecord] = {}
    for record in records:
        old = newest.get(record.entry)
        if old is None or record.archived_at >= old.archived_at:
            newest[record.entry] = record
    return newest


def forget(folder: str | os.PathLike[str], entries: Iterable[str]) -> int:
    """Rewrite the index without the records of ``entries`` (names or paths); the number of
    records dropped. Atomic (a temp file in the folder, renamed over it) and under the lock."""
    names = {os.path.basename(e) for e in entries}
    if not names:
        return 0
    path = Path(folder)
    with _locked_index(path, create=False) as fds:
        if fds is None:
            return 0
        dir_fd, fd = fds
        records = _parse(_read_all(fd))
        kept = [r for r in records if r.entry not in names]
        if len(kept) == len(records):
            return 0
        data = "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in kept)
        tmp = f".{INDEX_NAME}.{uuid.uuid4().hex[:8]}.tmp"
        out = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
            dir_fd=dir_fd,
        )
        try:
            write_all(out, data.encode("utf-8", "surrogateescape"), str(path / INDEX_NAME))
            os.fsync(out)
        except BaseException:
            os.close(out)
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
        os.close(out)
        os.replace(tmp, INDEX_NAME, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return len(records) - len(kept)
