"""Where a cleared or truncated tool result goes: the offload backend (SPEC §10).

:class:`FileOffload` writes each result to ``{root}/trunc/{call_id}`` or ``{root}/clear/{call_id}``
in a private folder (0700, files 0600). Each file is created exclusively under its final name
(``O_CREAT|O_EXCL|O_NOFOLLOW``: never over another file or through a link) and removed again when
its write fails (a full disk: nothing half-written is left); there is no fsync per file: every
file is made durable at once by :meth:`FileOffload.sync` (one ``syncfs``), which a run calls
before the transcript that names them is renamed into place. A file is never overwritten with
other bytes: a call id used twice, or a name an earlier run left holding another result, gets a
short content hash added (``{call_id}-{hash}``), since a transcript may still name the older
file. A call id that is not a plain file name (``/``, ``..``, control characters, over 100
characters) is made one, with the hash added. :meth:`FileOffload.discard` removes what this
backend wrote (a run that fails afterwards leaves nothing behind), :meth:`FileOffload.keep_only`
what the output does not name (hybrid: the rounds the summary replaced).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from compactor._util import lazy_pattern
from compactor.errors import ConfigError, StreamError
from compactor.io import (
    make_private_dirs,
    sync_filesystem,
    unsafe_folder,
    write_all,
    write_new_file,
)
from compactor.io.paths import os_cause

if TYPE_CHECKING:
    import threading

__all__ = ["FileOffload", "OffloadBackend", "OffloadKind", "check_offload_dir"]

OffloadKind = Literal["trunc", "clear"]

_UNSAFE_NAME = lazy_pattern(r"[^A-Za-z0-9_.-]")
_MAX_NAME = 100


class OffloadBackend(Protocol):
    """Saves one tool result and says where an agent can read it back."""

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        """Store ``content``; return the absolute path (or address) that holds it."""
        ...


def digest(data: bytes) -> str:
    import hashlib  # only for a name that needs a hash (OpenSSL is slow to load)

    return hashlib.sha256(data).hexdigest()[:12]


_PLAIN_NAME = lazy_pattern(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
"""A call id that is a plain file name as it is (what :func:`_file_name` keeps unchanged)."""


def _file_name(call_id: str, data: bytes) -> str:
    if _PLAIN_NAME.fullmatch(call_id):
        return call_id
    name = _UNSAFE_NAME.sub("_", call_id)[:_MAX_NAME].lstrip(".")
    if name != call_id or not name:
        name = f"{name or 'call'}-{digest(call_id.encode('utf-8', 'surrogatepass'))}"
    return name


def check_offload_dir(folder: str | os.PathLike[str]) -> None:
    """Refuse (``ConfigError``, exit 2) an offload folder another user can write, one that is
    not a folder, or one that cannot be created or written: checked at plan time."""
    path = Path(os.path.abspath(folder))
    reason = unsafe_folder(path)
    if reason is not None:
        raise ConfigError(f"offload folder refused: {reason}")
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"offload folder {str(probe)!r} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        what = "offload folder" if probe == path else "folder"
        why = "permission denied"
        with contextlib.suppress(OSError):
            if os.statvfs(probe).f_flag & os.ST_RDONLY:
                why = "read-only file system"
        raise ConfigError(f"cannot write the {what} {str(probe)!r}: {why}")


_SYNC_EVERY = 2048
"""Files written between two ``syncfs`` begun on a thread (:meth:`FileOffload.start_sync`)."""

CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class FileOffload:
    """The default backend: private files under ``root`` (created when first needed)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.abspath(root))
        self._root = str(self.root)  # formatting a Path runs Python code: once, not per result
        self.written: list[str] = []
        """Files this backend created, in order (what :meth:`discard` removes)."""
        self._made: list[Path] = []
        self._folders: dict[str, str] = {}
        self._names: dict[str, int] = {}
        """Paths this run saved a result at (written now, or found holding it already) and the
        size of that result. Not their bytes (10,000 results are not held twice in memory): a
        name saved again with bytes of the same size is compared with the file; of another
        size, it holds other bytes (no read back: a call id reused for another result)."""
        self._file_names: dict[str, str] = {}
        self._syncing: tuple[threading.Thread, int, list[BaseException]] | None = None
        """:meth:`start_sync`'s thread, how many files it syncs, its error."""

    def _folder(self, kind: OffloadKind) -> str:
        folder = self._folders.get(kind)
        if folder is None:
            path = self.root / kind
            if not path.exists():
                for made in (self.root, path):
                    if not made.exists():
                        self._made.append(made)
                make_private_dirs(path)
            folder = self._folders[kind] = str(path)
        return folder

    def longest_path(self, kind: OffloadKind, call_id: str) -> str:
        """The longest path :meth:`save` may return for ``call_id`` (a hash added), computed
        without creating anything."""
        return f"{self._root}/{kind}/{self._file_name(call_id)}-{'0' * 12}"

    def likely_path(self, kind: OffloadKind, call_id: str) -> str:
        """The path :meth:`save` gives ``call_id``'s result when its name is free: what
        :func:`~.core.likely_where` makes of :meth:`longest_path` (the hash left out)."""
        return f"{self._root}/{kind}/{self._file_name(call_id)}"

    def _file_name(self, call_id: str) -> str:
        """:func:`_file_name` of ``call_id``, once per call id (asked again by :meth:`save`)."""
        name = self._file_names.get(call_id)
        if name is None:
            name = self._file_names[call_id] = _file_name(call_id, b"")
        return name

    def _saved(self, path: str, data: bytes) -> bool:
        """This run saved exactly ``data`` at ``path`` already."""
        size = self._names.get(path)
        return size == len(data) and self._on_disk(path, data)

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        data = content.encode("utf-8", "surrogatepass")
        path = f"{self._folder(kind)}/{self._file_name(call_id)}"
        if path in self._names:
            if self._saved(path, data):  # saved by this run with the same bytes
                return path
        elif self._create(path, data):
            return path
        elif self._on_disk(path, data):  # an earlier run's identical file
            self._names[path] = len(data)
            return path
        path = f"{path}-{digest(data)}"  # the name holds other bytes: never overwritten
        if path in self._names:
            if self._saved(path, data):
                return path
        elif self._create(path, data):
            return path
        if not self._on_disk(path, data):
            write_new_file(path, data, mode=0o600)  # a hash collision: replaced whole
            self.written.append(path)
        self._names[path] = len(data)
        return path

    def _create(self, path: str, data: bytes) -> bool:
        """Write ``data`` to the new file ``path``; False when ``path`` exists already. A
        failed write removes the file again (:class:`StreamError`)."""
        try:
            fd = os.open(path, CREATE_FLAGS, 0o600)
        except FileExistsError:
            return False
        except OSError as err:
            raise StreamError(path, os_cause(err)) from err
        self.written.append(path)  # before the write: a failure or a signal removes it
        try:
            try:
                n = os.write(fd, data)  # a small file: one write (write_all for what is left)
            except OSError as err:
                raise StreamError(path, os_cause(err)) from err
            if n < len(data):
                write_all(fd, data[n:], path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)
            self.written.pop()
            raise
        os.close(fd)
        self._names[path] = len(data)
        if len(self.written) % _SYNC_EVERY == 0:
            self._periodic_sync()
        return True

    def _periodic_sync(self) -> None:
        self.start_sync()  # the disk's writeback of these runs while the next are made

    @staticmethod
    def _on_disk(path: str, data: bytes) -> bool:
        """``path`` is a regular file (not a link) holding exactly ``data``."""
        try:
            with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as fh:
                return os.fstat(fh.fileno()).st_size == len(data) and fh.read() == data
        except OSError:
            return False

    def sync(self) -> None:
        """Make every file written so far durable (one ``syncfs``, not one fsync per file):
        called before a transcript that names them replaces anything. Waits for the ``syncfs``
        :meth:`start_sync` began; a file written after it began is synced again."""
        started, self._syncing = self._syncing, None
        if started is not None:
            thread, upto, failed = started
            thread.join()
            if failed:
                raise failed[0]
            if upto == len(self.written):
                return
        if self.written:
            sync_filesystem(self.root)

    def start_sync(self) -> None:
        """Begin :meth:`sync` on a thread (``syncfs`` holds no GIL: the disk's writeback runs
        while the caller renders the transcript); :meth:`sync` must still be called, and
        returns once the files are durable."""
        if not self.written:
            return
        if self._syncing is not None:
            last, upto, met = self._syncing
            if last.is_alive() or upto == len(self.written):
                return  # sync() syncs what this one does not cover
            last.join()
            if met:
                return  # raised by sync()
        import threading

        failed: list[BaseException] = []

        def run() -> None:
            try:
                sync_filesystem(self.root)
            except BaseException as err:  # noqa: BLE001 - raised again by sync()
                failed.append(err)

        thread = threading.Thread(target=run, name="offload-sync", daemon=True)
        thread.start()
        self._syncing = (thread, len(self.written), failed)

    def keep_only(self, named: Callable[[str], bool]) -> list[str]:
        """Remove the files this backend wrote that ``named(path)`` says nothing names (the
        rounds a summary replaced); the removed paths."""
        gone: list[str] = []
        kept: list[str] = []
        for path in self.written:
            if named(path):
                kept.append(path)
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            self._names.pop(path, None)
            gone.append(path)
        self.written = kept
        return gone

    def discard(self) -> None:
        """Remove the files (and the folders) this backend created."""
        for path in reversed(self.written):
            with contextlib.suppress(OSError):
                os.unlink(path)
        for folder in reversed(self._made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
        self.written.clear()
        self._made.clear()
        self._names.clear()
        self._file_names.clear()
        self._folders.clear()
