"""Writing: every write checked, files replaced atomically, streams streamed, the archive.

* :func:`write_all` is the single writer: an ``os.write`` loop where a short write, EPIPE,
  ENOSPC or EFBIG raises :class:`~compactor.errors.StreamError`.
* :class:`AtomicFile` / :func:`atomic_write`: a temp file in the target's folder, fsync, rename,
  the replaced file's mode and owner kept; until the rename the target is untouched.
* :class:`LineWriter` / :func:`write_destination` write a planned
  :class:`~compactor.io.paths.Destination`: a file atomically, a device, FIFO or socket
  directly (never replaced), ``-`` to stdout or stderr.
* :func:`archive_original` keeps the original under ``$XDG_DATA_HOME/compact/archive``
  (``~/.local/share/...``), content-addressed, folder 0700, file 0600, in a folder no other
  user can write; :func:`archive_held` also keeps a shared ``flock`` on the entry for the
  rest of the run, so ``compact archive prune`` never removes what a run has just named.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from compactor._json import JsonValue
from compactor.errors import StreamError
from compactor.interrupts import critical

from .paths import Destination, Kind, check_archive_folder, default_archive_dir, os_cause

__all__ = [
    "PAUSE_AT_REPLACE_ENV",
    "ArchiveHold",
    "AtomicFile",
    "LineWriter",
    "archive_held",
    "archive_original",
    "archive_path",
    "atomic_write",
    "current_umask",
    "json_bytes",
    "make_private_dirs",
    "pause_at_replace",
    "write_all",
    "write_destination",
]

PAUSE_AT_REPLACE_ENV = "COMPACT_TEST_PAUSE_AT_REPLACE"
"""Test hook, unset in normal use: seconds :class:`AtomicFile` sleeps just before and just
after its rename, so a crash test can signal or SIGKILL the process on either side of it
(``tests/test_io_crash.py``, ``tests/test_interrupts.py``)."""


def pause_at_replace() -> None:
    """The test hook around :meth:`AtomicFile.commit`'s rename: sleep for
    ``$COMPACT_TEST_PAUSE_AT_REPLACE`` seconds when it is set (``tests/crash_child.py``
    replaces this function to hold a process at exactly that point)."""
    value = os.environ.get(PAUSE_AT_REPLACE_ENV)
    if value:
        time.sleep(float(value))


def current_umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def json_bytes(obj: JsonValue, *, indent: int | None = None) -> bytes:
    """``obj`` as one JSON text in UTF-8 (a report, an event line, a batch report).

    File names are bytes: one that is not UTF-8 reaches Python as ``os.fsdecode`` gives it,
    each undecodable byte a lone surrogate (``b"bad\\xff"`` → ``"bad\\udcff"``), which UTF-8
    cannot encode. Such a character is written as its JSON escape (``\\udcff``): the file stays
    UTF-8 and valid JSON, and ``os.fsencode(json.loads(...)[...])`` gives back the very bytes of
    the name. Values that are not JSON types are written as their ``str()``.
    """
    text = json.dumps(obj, indent=indent, ensure_ascii=False, default=str)
    # A surrogate can only stand inside a JSON string, where "\\udcff" is its escape.
    return text.encode("utf-8", "backslashreplace")


def write_all(fd: int, data: bytes, label: str) -> None:
    """Write all of ``data`` to ``fd``; any error or a write that takes nothing is a
    StreamError whose ``written`` says how many bytes of ``data`` went out before it. (A
    buffered writer may report a short write as success: under ``ulimit -f`` Python's
    ``BufferedWriter.write`` returned the bytes that fit, and no error.)"""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view[: 1 << 20])
        except OSError as err:
            raise StreamError(label, os_cause(err), written=len(data) - len(view)) from err
        if n <= 0:
            cause = "the write took nothing (short write)"
            raise StreamError(label, cause, written=len(data) - len(view))
        view = view[n:]


def _late(path: Path, what: str, err: OSError) -> StreamError:
    """A failure the plan could not foresee (the folder removed, the target turned into a
    directory or a mount point): the destination was not written (exit 6), named as the user
    named it, never by the temp file's name."""
    return StreamError(str(path), f"{what}: {os_cause(err)}")


class AtomicFile:
    """A temp file beside ``path``; :meth:`commit` fsyncs it and renames it over ``path``.

    The result keeps the replaced file's mode and owner; a new file gets ``mode`` (default:
    what a plain ``open()`` gives under the umask). Until the commit, ``path`` is untouched.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        mode: int | None = None,
        keep_mode: bool = True,
        cap: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.folder = self.path.parent if str(self.path.parent) else Path(".")
        self.mode = mode
        self.keep_mode = keep_mode
        """False: always ``mode``, never the replaced file's (the archive: 0600 whatever
        was planted at the entry's path)."""
        self.cap = cap
        """Mode bits the result may have at most (a report never more readable than its
        input), the replaced file's mode included."""
        self.committed = False
        self.fd: int | None
        try:
            self.fd, self.tmp = tempfile.mkstemp(
                prefix=f".{self.path.name}.", suffix=".tmp", dir=self.folder
            )
        except OSError as err:  # the folder went away, or became read-only, after the plan
            raise _late(self.path, "cannot create its temp file", err) from err

    def write(self, data: bytes) -> None:
        assert self.fd is not None
        try:
            write_all(self.fd, data, str(self.path))
        except StreamError as err:
            err.written = 0  # into the temp file only: the target is as it was
            raise

    def commit(
        self,
        *,
        before_replace: Callable[[], None] | None = None,
        on_commit: Callable[[], None] | None = None,
    ) -> None:
        """fsync, then rename over the target. ``before_replace`` may raise to refuse the
        rename; ``on_commit`` runs right after it, with signals held in between."""
        assert self.fd is not None
        try:
            os.fsync(self.fd)
        except OSError as err:
            raise StreamError(str(self.path), os_cause(err)) from err
        os.close(self.fd)
        self.fd = None
        self._take_mode()
        pause_at_replace()
        with critical():
            if before_replace is not None:
                before_replace()
            try:
                os.replace(self.tmp, self.path)
            except OSError as err:  # now a directory, a mount point (EBUSY), its folder gone
                raise _late(self.path, "cannot rename its finished temp file over it", err) from err
            self.committed = True
            if on_commit is not None:
                on_commit()
        pause_at_replace()
        with contextlib.suppress(OSError):  # make the rename itself durable where supported
            dir_fd = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def _take_mode(self) -> None:
        old: os.stat_result | None = None
        if self.keep_mode:
            with contextlib.suppress(OSError):  # never a symlink's target (planted meanwhile)
                old = os.stat(self.path, follow_symlinks=False)
            if old is not None and not stat.S_ISREG(old.st_mode):
                old = None
        # mkstemp creates 0600: keep the replaced file's mode and owner, else the given mode.
        mode = stat.S_IMODE(old.st_mode) if old is not None else self.mode
        mode = 0o666 & ~current_umask() if mode is None else mode
        with contextlib.suppress(OSError):
            os.chmod(self.tmp, mode if self.cap is None else mode & self.cap)
        if old is not None and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):
                os.chown(self.tmp, old.st_uid, old.st_gid)

    def abort(self) -> None:
        """Close and remove the temp file (the target stays as it was)."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        if not self.committed:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)


def atomic_write(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    mode: int | None = None,
    cap: int | None = None,
    before_replace: Callable[[], None] | None = None,
    on_commit: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` to ``path`` atomically; on any failure the target is left as it was.
    ``mode``: a new file's mode; ``cap``: the mode bits the result may have at most."""
    f = AtomicFile(path, mode=mode, cap=cap)
    try:
        f.write(data)
        f.commit(before_replace=before_replace, on_commit=on_commit)
    except BaseException:
        f.abort()
        raise


def _std_stream(kind: Kind) -> IO[str]:
    """sys.stdout or sys.stderr, its pending text flushed; a closed one is a StreamError."""
    stream = sys.stdout if kind == "stdout" else sys.stderr
    if stream is None or getattr(stream, "closed", False):
        raise StreamError(f"<{kind}>", f"{kind} is closed")
    try:
        stream.flush()  # text written before (by print or rich) goes first
    except (OSError, ValueError) as err:
        cause = os_cause(err) if isinstance(err, OSError) else f"{kind} is closed"
        raise StreamError(f"<{kind}>", cause) from err
    return stream


def _std_fd(stream: IO[str]) -> int | None:
    """The descriptor behind a standard stream (None when it has none, as under a test
    runner that captures output in memory)."""
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None


def _open_stream(path: str) -> int:
    """A FIFO or device opened for writing (never created, never truncated); a socket path
    is connected to. Returns the descriptor."""
    try:
        return os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as err:
        if err.errno != errno.ENXIO:
            raise StreamError(path, os_cause(err)) from err
    import socket  # here only: a socket destination is rare, and start-up counts

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as serr:
        sock.close()
        raise StreamError(path, os_cause(serr)) from serr
    return sock.detach()


class LineWriter:
    """A destination written piece by piece (``--events``): a temp file committed at the end,
    or a stream written as it goes (every write checked)."""

    def __init__(
        self, dest: Destination, *, mode: int | None = None, cap: int | None = None
    ) -> None:
        self.dest = dest
        self.file: AtomicFile | None = None
        self.fd: int | None = None
        self.text: IO[str] | None = None
        self.sent = 0
        """Bytes a stream has taken so far (a file: 0 until its commit)."""
        if dest.kind == "file":
            assert dest.path is not None
            self.file = AtomicFile(dest.path, mode=mode, cap=cap)
        elif dest.kind == "stream":
            assert dest.path is not None
            self.fd = _open_stream(dest.path)
        else:
            self.text = _std_stream(dest.kind)

    def write(self, data: bytes) -> None:
        if self.file is not None:
            self.file.write(data)
            return
        try:
            if self.fd is not None:
                write_all(self.fd, data, self.dest.label)
            else:
                assert self.text is not None
                self._write_std(self.text, data)
        except StreamError as err:
            err.written += self.sent  # what the stream's reader got, over every write
            self.sent = err.written
            raise
        self.sent += len(data)

    def _write_std(self, stream: IO[str], data: bytes) -> None:
        fd = _std_fd(stream)
        if fd is not None:
            write_all(fd, data, self.dest.label)
            return
        try:  # an in-memory stream (a test runner): a short write is impossible there
            buffer: IO[bytes] = stream.buffer  # type: ignore[attr-defined]
            buffer.write(data)
            buffer.flush()
        except (OSError, ValueError, AttributeError) as err:
            cause = os_cause(err) if isinstance(err, OSError) else "closed"
            raise StreamError(self.dest.label, cause) from err

    def commit(self, on_commit: Callable[[], None] | None = None) -> None:
        if self.file is not None:
            self.file.commit(on_commit=on_commit)
            return
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                os.close(fd)
            except OSError as err:
                raise StreamError(self.dest.label, os_cause(err)) from err
        if on_commit is not None:
            on_commit()

    def abort(self) -> None:
        if self.file is not None:
            self.file.abort()
        elif self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def write_destination(
    dest: Destination,
    data: bytes,
    *,
    mode: int | None = None,
    cap: int | None = None,
    before_replace: Callable[[], None] | None = None,
    on_commit: Callable[[], None] | None = None,
) -> None:
    """Write all of ``data`` to ``dest`` (atomically for a file); StreamError when it could
    not be written completely. ``mode``/``cap``: as :func:`atomic_write`."""
    if dest.kind == "file":
        assert dest.path is not None
        atomic_write(
            dest.path,
            data,
            mode=mode,
            cap=cap,
            before_replace=before_replace,
            on_commit=on_commit,
        )
        return
    writer = LineWriter(dest)
    try:
        writer.write(data)
        writer.commit(on_commit)
    except BaseException:
        writer.abort()
        raise


# --------------------------------------------------------------------------------------------------
# Archive


def write_new_file(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600) -> None:
    """Write ``data`` to ``path`` through a temp file beside it and a rename, without fsync
    (many small files, made durable together by :func:`sync_filesystem`): ``path`` never
    holds part of ``data``. A failure (ENOSPC, EIO, ...) is a :class:`StreamError` and leaves
    neither the temp file nor ``path`` changed."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    fd: int | None = None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        write_all(fd, data, str(target))
        os.close(fd)
        fd = None
        os.replace(tmp, target)
    except BaseException as err:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise StreamError(str(target), os_cause(err)) from err
        raise


def sync_filesystem(path: str | os.PathLike[str]) -> None:
    """Make every write to the file system holding ``path`` durable: ``syncfs(2)`` on Linux
    (one call for a folder of files written by :func:`write_new_file`), else ``sync()``."""
    import ctypes

    fd = os.open(path, os.O_RDONLY)
    try:
        # the C library the interpreter already has loaded (``ctypes.util.find_library`` would
        # run ``ldconfig -p`` in a subprocess to find it: 11 ms, a tenth of the 50 MB bench loop)
        syncfs = getattr(ctypes.CDLL(None, use_errno=True), "syncfs", None)
        if syncfs is None or syncfs(fd) != 0:
            os.sync()
    finally:
        os.close(fd)


def make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and its missing parents with mode 0700 (the archive, the summary
    cache); folders that exist already are left as they are."""
    missing: list[Path] = []
    probe = folder
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=0o700)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)  # mkdir's mode is masked by the umask


def archive_path(raw: bytes, archive_dir: str | os.PathLike[str] | None = None) -> str:
    """Where :func:`archive_original` stores ``raw`` (content-addressed), without writing."""
    folder = Path(os.path.expanduser(archive_dir)) if archive_dir else default_archive_dir()
    import hashlib  # loads OpenSSL: only a run that archives pays for it

    return str(Path(os.path.abspath(folder)) / f"{hashlib.sha256(raw).hexdigest()}.jsonl")


class ArchiveHold:
    """An archived original and a shared ``flock`` on it, held until :meth:`release`:
    ``compact archive prune`` never removes an entry a run holds (:mod:`compactor.runs.archive`)."""

    def __init__(self, path: str, fd: int | None) -> None:
        self.path = path
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


_ENTRY_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def _share_lock(fd: int) -> None:
    """A shared ``flock`` on ``fd``, waiting while a prune holds an exclusive one. Where the
    file system has no locks, nothing (a prune there keeps every entry it cannot lock)."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError as err:
        if err.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
            raise


def _held_entry(target: Path, raw: bytes) -> int | None:
    """A descriptor of the archive entry at ``target`` holding exactly ``raw``, share-locked,
    still at its path and refreshed (mode 0600, mtime now); None when there is no such entry
    (missing, a symlink or other non-file planted there, another user's, other bytes)."""
    try:
        fd = os.open(target, _ENTRY_FLAGS)  # a symlink at the entry's path is never followed
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size != len(raw):
            raise FileNotFoundError
        _share_lock(fd)  # waits while a prune holds this entry
        view, chunks = memoryview(raw), []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        if b"".join(chunks) != view:
            raise FileNotFoundError
        now = os.lstat(target)
        if os.fstat(fd).st_nlink == 0 or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise FileNotFoundError  # a prune removed it meanwhile: archive it again
        os.fchmod(fd, 0o600)
        os.utime(fd)  # archived again now: prune and ``archive list`` read the date from it
    except BaseException as err:
        os.close(fd)
        if isinstance(err, OSError):
            return None
        raise
    return fd


def _write_held(target: Path, raw: bytes, on_commit: Callable[[], None] | None) -> int:
    """Write ``raw`` at ``target`` (atomically, 0600, replacing whatever was there) and return
    a descriptor share-locked before the rename (a prune cannot take the new entry)."""
    f = AtomicFile(target, mode=0o600, keep_mode=False)
    lock: int | None = None
    try:
        lock = os.open(f.tmp, _ENTRY_FLAGS)
        _share_lock(lock)
        f.write(raw)
        f.commit(on_commit=on_commit)
    except BaseException:
        f.abort()
        if lock is not None:
            os.close(lock)
        raise
    return lock


def archive_held(
    raw: bytes,
    archive_dir: str | os.PathLike[str] | None = None,
    *,
    on_commit: Callable[[str], None] | None = None,
) -> ArchiveHold:
    """Store ``raw`` as ``<archive_dir>/<sha256>.jsonl`` (idempotent, fsynced, mode 0600) and
    hold a shared lock on it until the hold is released. An entry that already holds these
    bytes is touched (its mtime is the archiving date). ``on_commit(path)`` runs with signals
    held, right when the entry is known to be there (just after a rename)."""
    target = Path(archive_path(raw, archive_dir))
    renamed = None if on_commit is None else functools.partial(on_commit, str(target))
    check_archive_folder(target.parent)
    make_private_dirs(target.parent)
    check_archive_folder(target.parent)  # created meanwhile by someone else
    for _ in range(8):  # each turn: a concurrent prune removed the entry in between
        fd = _held_entry(target, raw)
        if fd is None:
            fd = _write_held(target, raw, renamed)
        elif renamed is not None:
            with critical():
                renamed()
        st = os.fstat(fd)
        with contextlib.suppress(OSError):
            now = os.lstat(target)
            if st.st_nlink and (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino):
                return ArchiveHold(str(target), fd)
        os.close(fd)
    raise StreamError(str(target), "the archive entry kept disappearing (a concurrent prune?)")


def archive_original(
    raw: bytes,
    archive_dir: str | os.PathLike[str] | None = None,
    *,
    on_commit: Callable[[str], None] | None = None,
) -> str:
    """Store ``raw`` as ``<archive_dir>/<sha256>.jsonl`` (idempotent, fsynced, mode 0600);
    return its absolute path. The default folder is :func:`default_archive_dir`. An entry
    already there is touched; :func:`archive_held` also keeps it locked against a prune."""
    hold = archive_held(raw, archive_dir, on_commit=on_commit)
    hold.release()
    return hold.path
