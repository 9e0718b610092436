"""Reading a transcript: a path or ``-`` (stdin), with what identifies the file it came from.

:func:`open_input` reads into an :class:`InputFile` that remembers the file's identity (device,
inode, size, mtime) and can hold an advisory ``flock`` on it, so an ``--in-place`` run can
tell, just before its rename, whether the file changed meanwhile. A regular input that is not
locked can be streamed instead: a :class:`FileSource` the parser reads block by block, and
that reads again (and checks) only the bytes a run writes back unchanged.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from compactor.errors import InputChangedError, StreamError, TranscriptError
from compactor.sizes import InputLimits, LineGuard, check_size

from .paths import os_cause

__all__ = ["FileSource", "InputFile", "open_input", "read_input"]

_BLOCK = 1 << 20


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

    BLOCK = _BLOCK

    def __init__(self, name: str, fd: int, limits: InputLimits | None = None) -> None:
        self.name = name
        self.fd: int | None = fd
        self.limits = limits or InputLimits()
        """Checked as the blocks are read (a file may grow while it is read)."""
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
                message = f"failed to read: {os_cause(err)}"
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

    def blocks(self, size: int | None = None) -> Iterator[bytes]:
        """The file's bytes from its start to its end, in blocks of ``size`` bytes (default
        :data:`BLOCK`; a caller that keeps the whole file asks for it in one block)."""
        offset = crc = 0
        guard = LineGuard(self.name, self.limits)
        step = size or self.BLOCK
        while block := self._pread(step, offset):
            guard.feed(block)
            crc = zlib.crc32(block, crc)
            offset += len(block)
            yield block
        self.size, self.crc = offset, crc

    def whole(self) -> bytes:
        """The whole file in one read, checked against the limits, for a caller that keeps
        every byte (the streaming reduction): no CRC is taken, so :meth:`data` cannot check a
        second read afterwards; the caller holds these bytes instead."""
        fd = self._fd()
        try:
            size = os.fstat(fd).st_size + 1  # one read, and one more for a file grown
        except OSError as err:
            raise TranscriptError(
                self.name, None, None, f"failed to read: {os_cause(err)}"
            ) from err
        guard = LineGuard(self.name, self.limits)
        if size > self.limits.max_bytes:  # a file over the limit is not read whole
            data = b"".join(self.blocks())
        else:
            data = self._pread(size, 0)
            while more := self._pread(self.BLOCK, len(data)):  # grown meanwhile
                data += more
            guard.feed(data, last=True)
        self.size = len(data)
        return data

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
            return f"it can no longer be read ({os_cause(err)})"
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


def _read_fd(name: str, fd: int, limits: InputLimits, regular: bool) -> bytes:
    """Everything left in ``fd``, within ``limits``. A regular file (its size checked first) is
    read by ``FileIO.readall``, which sizes its buffer from fstat: one allocation, not chunks
    joined at the end; then its lines are checked. A pipe or device is read in blocks, each
    checked before it is kept, so an endless one stops at a limit."""
    guard = LineGuard(name, limits)
    with io.FileIO(fd, "rb", closefd=False) as fh:
        if regular:
            data = fh.readall()
            for start in range(0, len(data), _BLOCK):
                guard.feed(data, start, min(start + _BLOCK, len(data)))
            return data
        return _read_blocks(fh.read, guard)


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _read_blocks(
    read: Callable[[int], bytes], guard: LineGuard, *, buffered: bool = False
) -> bytes:
    """``read(n)`` until it returns nothing, each block checked by ``guard`` first.

    ``buffered``: ``read`` is a blocking ``BufferedReader.read``, which returns fewer than n
    bytes only at the end of the input: a short block ends the read. On a terminal that
    matters: after the Ctrl-D that ends the input, another read would wait for a second one."""
    chunks: list[bytes] = []
    while block := read(_BLOCK):
        guard.feed(block)
        chunks.append(block)
        if buffered and len(block) < _BLOCK:
            break
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _read_stdin(limits: InputLimits) -> InputFile:
    stdin = sys.stdin
    if stdin is None or getattr(stdin, "closed", False):
        raise StreamError("<stdin>", "stdin is closed", reading=True)
    try:
        return InputFile(
            "-", _read_blocks(stdin.buffer.read, LineGuard("-", limits), buffered=True)
        )
    except (OSError, ValueError, AttributeError) as err:
        cause = os_cause(err) if isinstance(err, OSError) else "stdin is closed"
        raise StreamError("<stdin>", cause, reading=True) from err


def open_input(
    name: str, *, lock: bool = False, stream: bool = False, limits: InputLimits | None = None
) -> InputFile:
    """Read ``name`` (``-``: stdin). ``lock``: hold an exclusive ``flock`` until ``close()``
    (another holder → InputChangedError) and insist on a stable read of a regular file.
    ``stream`` (without ``lock``): a regular file is not read now but kept open as a
    :class:`FileSource`, read in blocks by the parser (close it with ``close()``).
    ``limits`` (default: :class:`InputLimits`): a longer line or a larger input is a
    TranscriptError, raised before more than the limit is held."""
    limits = limits or InputLimits()
    if name == "-":
        return _read_stdin(limits)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOCTTY)
    except FileNotFoundError as err:
        raise TranscriptError(name, None, None, "file not found") from err
    except PermissionError as err:
        raise TranscriptError(name, None, None, "permission denied") from err
    except OSError as err:
        raise TranscriptError(name, None, None, f"failed to read: {os_cause(err)}") from err
    try:
        return _read_open(name, fd, lock, stream, limits)
    except BaseException:
        os.close(fd)
        raise


def _read_open(name: str, fd: int, lock: bool, stream: bool, limits: InputLimits) -> InputFile:
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise TranscriptError(name, None, None, "is a directory, not a file")
    check_size(name, st, limits)
    regular = stat.S_ISREG(st.st_mode)
    if stream and regular and not lock:
        source = FileSource(name, fd, limits)
        return InputFile(name, source, os.path.realpath(name), _identity(st))
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
            raw = _read_fd(name, fd, limits, regular)
        except OSError as err:
            raise TranscriptError(name, None, None, f"failed to read: {os_cause(err)}") from err
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


def read_input(path_or_dash: str, limits: InputLimits | None = None) -> tuple[str, bytes]:
    """(display path, bytes) of a transcript file, or of stdin for ``-`` (within ``limits``)."""
    info = open_input(path_or_dash, limits=limits)
    return info.display, info.raw
