"""Every file a run touches (SPEC §9.5): the input, the destinations and the archive.

* :func:`open_input` reads a path or ``-`` (stdin) into an :class:`InputFile` that remembers the
  file's identity (device, inode, size, mtime) and can hold an advisory ``flock`` on it, so an
  ``--in-place`` run can tell, just before its rename, whether the file changed meanwhile.
* :func:`resolve_destination` classifies a destination once, at plan time: a regular file (or a
  path to create) is replaced atomically — a temp file in the same folder, fsync, rename, the
  replaced file's mode kept — and a symlink is written through to its target; a character
  device, FIFO or socket is streamed to directly and never replaced; ``-`` is stdout (stderr
  for ``--events``). Every write is checked: a short write, EPIPE, ENOSPC or EFBIG raises
  :class:`~compactor.errors.StreamError`.
* :func:`archive_original` keeps the original under ``$XDG_DATA_HOME/compact/archive``
  (``~/.local/share/...``), content-addressed, folder 0700, file 0600.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import socket
import stat
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from .errors import ConfigError, InputChangedError, StreamError, TranscriptError
from .interrupts import critical

__all__ = [
    "PAUSE_AT_REPLACE_ENV",
    "AtomicFile",
    "Destination",
    "FileSource",
    "InputFile",
    "LineWriter",
    "archive_original",
    "archive_path",
    "atomic_write",
    "default_archive_dir",
    "is_inside",
    "make_private_dirs",
    "open_input",
    "plan_archive_dir",
    "read_input",
    "resolve_destination",
    "write_all",
    "write_destination",
]

PAUSE_AT_REPLACE_ENV = "COMPACT_TEST_PAUSE_AT_REPLACE"
"""Test hook, unset in normal use: seconds :class:`AtomicFile` sleeps just before and just
after its rename, so a crash test can signal or SIGKILL the process on either side of it
(``tests/test_io_crash.py``, ``tests/test_interrupts.py``)."""

Kind = Literal["file", "stream", "stdout", "stderr"]

_FLAGS = {
    "output": "-o/--output",
    "in-place": "--in-place",
    "report": "--report",
    "events": "--events",
    "archive": "archive_dir",
}


def _pause_for_tests() -> None:
    value = os.environ.get(PAUSE_AT_REPLACE_ENV)
    if value:
        time.sleep(float(value))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _cause(err: OSError) -> str:
    return err.strerror or str(err)


def default_archive_dir() -> Path:
    """``$XDG_DATA_HOME/compact/archive``, else ``~/.local/share/compact/archive``."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "compact" / "archive"


def is_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (symlinks resolved) lies inside ``folder``."""
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


# --------------------------------------------------------------------------------------------------
# Reading


class FileSource:
    """A regular file's bytes, read once in blocks and re-read on demand instead of being held.

    A run parses the lines as the blocks arrive and keeps only where each line is, so a 50 MB
    transcript is not held twice (its bytes and its parsed records). The few bytes needed later
    (the unchanged lines a compacted transcript keeps, or the whole input when nothing is
    compacted) are read again through the same open descriptor, so a rename or a replacement of
    the path changes nothing, and checked against what was read: a line against the hash taken
    when it was parsed, the whole file against its length and CRC-32. A file changed in place
    meanwhile is an :class:`~compactor.errors.InputChangedError`, never mixed output.
    """

    BLOCK = 1 << 20

    def __init__(self, name: str, fd: int) -> None:
        self.name = name
        self.fd: int | None = fd
        self.size = 0
        """Bytes read by :meth:`blocks`."""
        self.crc = 0
        self.newline = b"\n"
        """The line terminator of the file's first line (set by the parser)."""
        self.bom = False
        """The file starts with a UTF-8 BOM (set by the parser)."""

    def _fd(self) -> int:
        if self.fd is None:
            raise InputChangedError(self.name, "it was closed before the run ended")
        return self.fd

    def _pread(self, size: int, offset: int) -> bytes:
        chunks: list[bytes] = []
        while size > 0:
            try:
                chunk = os.pread(self._fd(), size, offset)
            except OSError as err:
                message = f"failed to read: {_cause(err)}"
                raise TranscriptError(self.name, None, None, message) from err
            if not chunk:
                break
            chunks.append(chunk)
            size -= len(chunk)
            offset += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def read_at(self, offset: int, size: int) -> bytes:
        """At most ``size`` bytes from ``offset``, unchecked (format detection looks at the
        first lines before the parser reads the file)."""
        return self._pread(size, offset)

    def blocks(self) -> Iterator[bytes]:
        """The file's bytes from its start to its end, in blocks of :data:`BLOCK` bytes."""
        offset = crc = 0
        while block := self._pread(self.BLOCK, offset):
            crc = zlib.crc32(block, crc)
            offset += len(block)
            yield block
        self.size, self.crc = offset, crc

    def span(self, start: int, end: int, check: int) -> bytes:
        """Bytes ``start:end`` again; ``check`` is the ``hash()`` they had when parsed."""
        data = self._pread(end - start, start)
        if len(data) != end - start or hash(data) != check:
            raise InputChangedError(
                self.name, "it changed during the run (a line read again differs)"
            )
        return data

    def data(self) -> bytes:
        """The whole file as :meth:`blocks` read it."""
        data = self._pread(self.size, 0)
        if len(data) != self.size or zlib.crc32(data) != self.crc:
            raise InputChangedError(self.name, "it changed during the run (read again, it differs)")
        return data

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


@dataclass
class InputFile:
    """A transcript read from a file or stdin, with what identifies the file it came from."""

    display: str
    """The name as given (``-`` for stdin)."""
    source: bytes | FileSource
    """The bytes read; for ``open_input(stream=True)`` on a regular file, a :class:`FileSource`
    (the file is read when it is parsed, and again for what must be written back)."""
    path: str | None = None
    """The regular file read (symlinks resolved); None for stdin, pipes and devices."""
    identity: tuple[int, int, int, int] | None = None
    """(device, inode, size, mtime_ns) of that file when it was read."""
    fd: int | None = None
    """Held open (and locked) until :meth:`close`, for ``--in-place``."""

    def changed(self) -> str | None:
        """Why the file is no longer what was read (None: unchanged)."""
        if self.path is None or self.identity is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError as err:
            return f"it can no longer be read ({_cause(err)})"
        dev, ino, size, mtime = self.identity
        if (st.st_dev, st.st_ino) != (dev, ino):
            return "it was replaced by another file"
        if st.st_size != size:
            return f"its size went from {size:,} to {st.st_size:,} bytes"
        if st.st_mtime_ns != mtime:
            return "it was modified"
        return None

    @property
    def raw(self) -> bytes:
        """The bytes read (for a :class:`FileSource`: read again, and checked)."""
        return self.source if isinstance(self.source, bytes) else self.source.data()

    def close(self) -> None:
        """Release the lock and the file descriptor."""
        if isinstance(self.source, FileSource):
            self.source.close()
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _read_fd(fd: int) -> bytes:
    """Everything left in ``fd`` (``FileIO.readall`` sizes its buffer from fstat: a regular
    file is read into one allocation, not chunks joined at the end)."""
    with io.FileIO(fd, "rb", closefd=False) as fh:
        return fh.readall()


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _read_stdin() -> InputFile:
    stdin = sys.stdin
    if stdin is None or getattr(stdin, "closed", False):
        raise StreamError("<stdin>", "stdin is closed", reading=True)
    try:
        return InputFile("-", stdin.buffer.read())
    except (OSError, ValueError, AttributeError) as err:
        cause = _cause(err) if isinstance(err, OSError) else "stdin is closed"
        raise StreamError("<stdin>", cause, reading=True) from err


def open_input(name: str, *, lock: bool = False, stream: bool = False) -> InputFile:
    """Read ``name`` (``-``: stdin). ``lock``: hold an exclusive ``flock`` until ``close()``
    (another holder → InputChangedError) and insist on a stable read of a regular file.
    ``stream`` (without ``lock``): a regular file is not read now but kept open as a
    :class:`FileSource`, read in blocks by the parser (close it with ``close()``)."""
    if name == "-":
        return _read_stdin()
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOCTTY)
    except FileNotFoundError as err:
        raise TranscriptError(name, None, None, "file not found") from err
    except PermissionError as err:
        raise TranscriptError(name, None, None, "permission denied") from err
    except OSError as err:
        raise TranscriptError(name, None, None, f"failed to read: {_cause(err)}") from err
    try:
        return _read_open(name, fd, lock, stream)
    except BaseException:
        os.close(fd)
        raise


def _read_open(name: str, fd: int, lock: bool, stream: bool = False) -> InputFile:
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise TranscriptError(name, None, None, "is a directory, not a file")
    regular = stat.S_ISREG(st.st_mode)
    if stream and regular and not lock:
        return InputFile(name, FileSource(name, fd), os.path.realpath(name), _identity(st))
    if lock:
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as err:
            raise InputChangedError(
                name, "another process holds its lock (another compact --in-place?)"
            ) from err
    for _ in range(3):
        try:
            raw = _read_fd(fd)
        except OSError as err:
            raise TranscriptError(name, None, None, f"failed to read: {_cause(err)}") from err
        if not regular:
            os.close(fd)
            return InputFile(name, raw)
        after = os.fstat(fd)
        if len(raw) == after.st_size and _identity(after)[2:] == _identity(st)[2:]:
            break
        if not lock:
            break  # not replacing it: what was read is what is compacted
        st = after
        os.lseek(fd, 0, os.SEEK_SET)
    else:
        raise InputChangedError(name, "it kept changing while it was read")
    info = InputFile(name, raw, os.path.realpath(name), _identity(after))
    if lock:
        info.fd = fd
    else:
        os.close(fd)
    return info


def read_input(path_or_dash: str) -> tuple[str, bytes]:
    """(display path, bytes) of a transcript file, or of stdin for ``-``."""
    info = open_input(path_or_dash)
    return info.display, info.raw


# --------------------------------------------------------------------------------------------------
# Destinations


@dataclass(frozen=True)
class Destination:
    """Where one output of a run goes, resolved once at plan time."""

    name: str
    """As given: a path, or ``-``."""
    role: str
    """``output``, ``in-place``, ``report``, ``events`` (names the flag in messages)."""
    kind: Kind
    path: str | None = None
    """file: the real path that is replaced (symlinks resolved); stream: the path opened."""
    identity: tuple[int, int] | str = ""
    """(device, inode) of an existing file or stream; else the absolute path (or ``<stdout>``)."""
    char_device: bool = False
    """A character device (/dev/null, a terminal): shared by many writers without harm."""

    @property
    def label(self) -> str:
        """How messages name it: the path as given, ``<stdout>`` or ``<stderr>``."""
        return f"<{self.kind}>" if self.kind in ("stdout", "stderr") else self.name

    @property
    def flag(self) -> str:
        return _FLAGS.get(self.role, self.role)


def _check_folder(folder: str, flag: str, name: str) -> None:
    if not os.path.isdir(folder):
        raise ConfigError(f"{flag} {name!r}: folder {folder!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"{flag} {name!r}: folder {folder!r} is not writable")


def resolve_destination(name: str, role: str) -> Destination:
    """Classify ``name`` for ``role``; a destination that cannot be written is a ConfigError."""
    flag = _FLAGS.get(role, role)
    if name == "-":
        kind: Kind = "stderr" if role == "events" else "stdout"
        return Destination(name, role, kind, None, f"<{kind}>")
    if not name:
        raise ConfigError(f"{flag}: empty path")
    try:
        st: os.stat_result | None = os.stat(name)  # follows symlinks: the target decides
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise ConfigError(f"{flag} {name!r}: {_cause(err)}") from err
    if st is None or stat.S_ISREG(st.st_mode):
        real = os.path.realpath(name)  # a dangling symlink: the file it names is created
        _check_folder(os.path.dirname(real) or ".", flag, name)
        ident: tuple[int, int] | str = (st.st_dev, st.st_ino) if st is not None else real
        return Destination(name, role, "file", real, ident)
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{flag} {name!r} is a directory")
    if stat.S_ISBLK(st.st_mode):
        raise ConfigError(f"{flag} {name!r} is a block device; compact writes no disks")
    if not os.access(name, os.W_OK):
        raise ConfigError(f"{flag} {name!r} is not writable")
    return Destination(
        name,
        role,
        "stream",
        name,
        (st.st_dev, st.st_ino),
        char_device=stat.S_ISCHR(st.st_mode),
    )


def plan_archive_dir(archive_dir: str | None) -> Path:
    """The archive folder for this run; its nearest existing parent must be a writable folder."""
    folder = Path(os.path.expanduser(archive_dir)) if archive_dir else default_archive_dir()
    folder = Path(os.path.abspath(folder))
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise ConfigError(f"archive folder {str(folder)!r}: {str(probe)!r} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ConfigError(f"archive folder {str(folder)!r}: {str(probe)!r} is not writable")
    return folder


def write_all(fd: int, data: bytes, label: str) -> None:
    """Write all of ``data`` to ``fd``; any error or a write that takes nothing is a
    StreamError. (A buffered writer may report a short write as success: under ``ulimit -f``
    Python's ``BufferedWriter.write`` returned the bytes that fit, and no error.)"""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view[: 1 << 20])
        except OSError as err:
            raise StreamError(label, _cause(err)) from err
        if n <= 0:
            raise StreamError(label, "the write took nothing (short write)")
        view = view[n:]


class AtomicFile:
    """A temp file beside ``path``; :meth:`commit` fsyncs it and renames it over ``path``.

    The result keeps the replaced file's mode and owner; a new file gets ``mode`` (default:
    what a plain ``open()`` gives under the umask). Until the commit, ``path`` is untouched.
    """

    def __init__(self, path: str | os.PathLike[str], *, mode: int | None = None) -> None:
        self.path = Path(path)
        self.folder = self.path.parent if str(self.path.parent) else Path(".")
        self.mode = mode
        self.committed = False
        self.fd: int | None
        self.fd, self.tmp = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.folder
        )

    def write(self, data: bytes) -> None:
        assert self.fd is not None
        write_all(self.fd, data, str(self.path))

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
            raise StreamError(str(self.path), _cause(err)) from err
        os.close(self.fd)
        self.fd = None
        self._take_mode()
        _pause_for_tests()
        with critical():
            if before_replace is not None:
                before_replace()
            os.replace(self.tmp, self.path)
            self.committed = True
            if on_commit is not None:
                on_commit()
        _pause_for_tests()
        with contextlib.suppress(OSError):  # make the rename itself durable where supported
            dir_fd = os.open(self.folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    def _take_mode(self) -> None:
        try:
            old: os.stat_result | None = os.stat(self.path)
        except OSError:
            old = None
        # mkstemp creates 0600: keep the replaced file's mode and owner, else the given mode.
        mode = stat.S_IMODE(old.st_mode) if old is not None else self.mode
        with contextlib.suppress(OSError):
            os.chmod(self.tmp, 0o666 & ~_umask() if mode is None else mode)
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
    before_replace: Callable[[], None] | None = None,
    on_commit: Callable[[], None] | None = None,
) -> None:
    """Write ``data`` to ``path`` atomically; on any failure the target is left as it was."""
    f = AtomicFile(path, mode=mode)
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
        cause = _cause(err) if isinstance(err, OSError) else f"{kind} is closed"
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
            raise StreamError(path, _cause(err)) from err
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as serr:
        sock.close()
        raise StreamError(path, _cause(serr)) from serr
    return sock.detach()


class LineWriter:
    """A destination written piece by piece (``--events``): a temp file committed at the end,
    or a stream written as it goes (every write checked)."""

    def __init__(self, dest: Destination, *, mode: int | None = None) -> None:
        self.dest = dest
        self.file: AtomicFile | None = None
        self.fd: int | None = None
        self.text: IO[str] | None = None
        if dest.kind == "file":
            assert dest.path is not None
            self.file = AtomicFile(dest.path, mode=mode)
        elif dest.kind == "stream":
            assert dest.path is not None
            self.fd = _open_stream(dest.path)
        else:
            self.text = _std_stream(dest.kind)

    def write(self, data: bytes) -> None:
        if self.file is not None:
            self.file.write(data)
        elif self.fd is not None:
            write_all(self.fd, data, self.dest.label)
        else:
            assert self.text is not None
            self._write_std(self.text, data)

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
            cause = _cause(err) if isinstance(err, OSError) else "closed"
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
                raise StreamError(self.dest.label, _cause(err)) from err
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
    before_replace: Callable[[], None] | None = None,
    on_commit: Callable[[], None] | None = None,
) -> None:
    """Write all of ``data`` to ``dest`` (atomically for a file); StreamError when it could
    not be written completely."""
    if dest.kind == "file":
        assert dest.path is not None
        atomic_write(dest.path, data, mode=mode, before_replace=before_replace, on_commit=on_commit)
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
    return str(Path(os.path.abspath(folder)) / f"{hashlib.sha256(raw).hexdigest()}.jsonl")


def archive_original(raw: bytes, archive_dir: str | os.PathLike[str] | None = None) -> str:
    """Store ``raw`` as ``<archive_dir>/<sha256>.jsonl`` (idempotent, fsynced, mode 0600);
    return its absolute path. The default folder is :func:`default_archive_dir`."""
    target = Path(archive_path(raw, archive_dir))
    make_private_dirs(target.parent)
    if not (target.exists() and target.read_bytes() == raw):
        atomic_write(target, raw, mode=0o600)
    return str(target)
