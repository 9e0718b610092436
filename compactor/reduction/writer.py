"""The default offload backend with a writer process (issue 30 point 5: ``reduce``'s speed).

Creating a file costs this kind of disk 10-25 µs of kernel time, and a run offloads one file per
cleared result (8,000 on the bench file): in line, that time adds to the single streaming pass.
:class:`ProcessOffload` hands it to a forked child while the parent still scans. The scan tells
it, round by round, which results are *certain* to be cleared (:class:`~.speculate.Speculator`):
outside the retained rounds, once clearing is certain (``--force``, or the count of what the scan
read so far, without what truncation may free, already over the threshold); it names each file as
:class:`~.offload.FileOffload` does, in the same order, and sends the child one line per file
(the file name and where the result's line is in the transcript, which the child shares with the
parent: it reads the result from there). The clearing that follows the scan finds these
results' paths already decided; any other file (truncated results, results that were not certain)
is written in line as before.

The guarantees stay those of :class:`~.offload.FileOffload`: each file created under its final
name with ``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600 in a 0700 folder; a failed write removes the
file; every file durable (the child's ``syncfs``) before :meth:`ProcessOffload.sync` returns, so
before the transcript that names them is renamed into place. The child is used only when the
offload folder did not exist when the run began (a fresh private folder: no earlier run's file
to compare with), dies with its parent (``PR_SET_PDEATHSIG``, and the pipe's end), and on its
first error stops, removes every file it made and reports the error (errno and file), which the
parent raises as :class:`~compactor.errors.StreamError` (a full disk: exit 6, nothing left). A
child that dies is replaced by the parent itself: it removes what the child may have left and
writes those files in line. :meth:`ProcessOffload.discard` (a failed or interrupted run) kills
the child first, then removes every file of the run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal

import orjson

from compactor.errors import StreamError
from compactor.io import sync_filesystem

from .offload import CREATE_FLAGS, FileOffload, OffloadKind, digest

__all__ = ["ProcessOffload"]

WRITER_TEST_ENV = "COMPACT_TEST_OFFLOAD_WRITER"
"""Test hook, unset in normal use: ``die:N`` makes the writer process kill itself (SIGKILL)
after N files (the run must take over), ``pause:N`` stop for a minute after N files (a signal
to the run must still leave nothing)."""

_PIPE_SIZE = 1 << 20
_FOREIGN = "another process created this file during the run"
_SYNC_EVERY = 2048
_PR_SET_PDEATHSIG = 1


def cpu_to_spare() -> bool:
    """Whether another CPU is likely idle for a writer process: the last minute's load average
    at least half a CPU below the CPUs this process may use, or under them with fewer tasks
    runnable right now (this one included) than CPUs. The writer's own work (it reads each
    result again) is extra CPU: on the 2 vCPUs, interleaved runs of the bench gave 4.76x
    with it against 4.14x in line at load 2.4-2.5, 5.7x against 4.6x at 3.3-4.1; it wins only
    where the second CPU is free (3.6x against 4.2-4.4x at load 0.3-1.4; at load 1.4-1.7,
    3.7-3.8x against 4.4-4.6x while nothing else ran, 4.6-5.5x against 4.6-5.3x while another
    task did: offload21)."""
    try:
        cpus = len(os.sched_getaffinity(0))
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    if cpus < 2 or load >= cpus:
        return False
    if load < cpus - 0.5:
        return True
    running = _running_now()
    return running is not None and running < cpus


def _running_now() -> int | None:
    """Tasks runnable right now, this one included (``/proc/loadavg``'s fourth field; None
    where there is none)."""
    try:
        with open("/proc/loadavg", "rb") as fh:
            return int(fh.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


class _WriterDied(Exception):
    """The writer process is gone (its pipe closed) without its answer."""


class ProcessOffload(FileOffload):
    """:class:`FileOffload` whose files named in advance (:meth:`claim_ahead`) are created by a
    forked writer process; ``raw``: the transcript's bytes (the child reads results there)."""

    def __init__(self, root: str | os.PathLike[str], raw: bytes) -> None:
        super().__init__(root)
        self._raw = raw
        self.ahead: dict[int, str] = {}
        """Result index → the path decided for it in advance (the child writes it)."""
        self._used: set[str] = set()
        """The paths decided in advance that the clearing used (:meth:`use_ahead`)."""
        self._held: dict[str, str | bytes | tuple[int, int]] = {}
        """What each path of this run holds (the text, the bytes written in line, or where the
        line of a result the scan did not keep is in the transcript)."""
        self.frames: list[bytes] = []
        self._pid = 0
        self._to_child = self._from_child = -1
        self._child_paths: list[str] = []
        self._finished = False

    # -- naming in advance (the scan) -------------------------------------------------------

    def claim_ahead(
        self, index: int, call_id: str, text: str | None, span: tuple[int, int], size: int
    ) -> None:
        """Decide the ``clear`` path of the plain result ``text`` (record ``index``, its line at
        ``span``; None: the scan did not keep it, ``size`` is its UTF-8 bytes) as :meth:`save`
        would now, and have the child write it when it is new."""
        if self._pid < 0:
            return  # the child is gone: everything in line from now on
        folder = self._folder("clear")
        name = self._file_names.get(call_id) or self._file_name(call_id)
        path = f"{folder}/{name}"
        if text is not None:
            size = len(text) if text.isascii() else len(_encode(text))
        if path in self._names:  # a call id used again
            if text is None:
                text = self.text_at(span)
            if self._same(path, text, size):
                self.ahead[index] = path
                return
            name = f"{name}-{digest(_encode(text))}"
            path = f"{folder}/{name}"
            if path in self._names:
                if self._same(path, text, size):
                    self.ahead[index] = path
                return  # a hash collision: left to save()
        self._names[path] = size
        self._held[path] = span if text is None else text
        self.ahead[index] = path
        self.written.append(path)
        self._child_paths.append(path)
        self.frames.append(b"c %d %d %s\n" % (span[0], span[1], name.encode()))

    def text_at(self, span: tuple[int, int]) -> str:
        """The text of the plain result whose line is at ``span`` (read again)."""
        text = orjson.loads(memoryview(self._raw)[span[0] : span[1]])["content"]
        assert type(text) is str
        return text

    def _held_bytes(self, path: str) -> bytes | None:
        held = self._held.get(path)
        if held is None:
            return None
        if isinstance(held, tuple):
            return _encode(self.text_at(held))
        return _bytes(held)

    def _same(self, path: str, text: str, size: int) -> bool:
        """``path`` holds ``text`` (``size``: its UTF-8 bytes; another size is another text,
        with no text read again)."""
        held = self._held.get(path)
        if held is None or self._names.get(path) != size:
            return False
        if type(held) is str:
            return held == text
        return self._held_bytes(path) == _encode(text)

    def send(self) -> None:
        """Hand the files named so far to the child (forked at the first)."""
        if not self.frames or self._pid < 0:
            return
        data = b"".join(self.frames)
        self.frames.clear()
        try:
            if self._pid == 0:
                self._fork()
            _write_all(self._to_child, data)
        except _WriterDied:
            self._take_over()

    # -- the parent's own files -------------------------------------------------------------

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        path = super().save(kind, call_id, content)
        self._used.add(path)  # also a file named in advance, for the same bytes
        if path not in self._held:
            self._held[path] = _encode(content)
        return path

    def _saved(self, path: str, data: bytes) -> bool:
        held = self._held_bytes(path)
        if held is None:
            return super()._saved(path, data)
        return held == data

    def _periodic_sync(self) -> None:
        if self._pid < 0 or not self._child_paths:
            super()._periodic_sync()  # else the child's syncfs covers the parent's files too

    # -- the child ----------------------------------------------------------------------------

    def _fork(self) -> None:
        import fcntl

        folder = self._folder("clear")
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(down_w, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        parent = os.getpid()
        what, _, count = (os.environ.get(WRITER_TEST_ENV) or "").partition(":")
        test_hook = (what, int(count or 0))
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.close(down_w)
                os.close(up_r)
                _die_with(parent)
                code = _child(down_r, up_w, self._raw, folder, str(self.root), test_hook)
            finally:
                os._exit(code)
        os.close(down_r)
        os.close(up_w)
        self._pid, self._to_child, self._from_child = pid, down_w, up_r

    def sync(self) -> None:
        """Every file durable: the child finishes (its last files, the unused ones removed,
        ``syncfs``) and answers; a failure it met is raised, with its files removed."""
        if self._pid > 0 and not self._finished:
            self.start_sync()
        if self._pid > 0:
            self._answer()
            return
        super().sync()

    def start_sync(self) -> None:
        """Tell the child that no more files come: it removes the ones named in advance that
        nothing claimed, writes the rest and begins ``syncfs`` (the parent renders meanwhile)."""
        if self._pid == 0 and self.frames:
            self.send()  # the child begins now
        if self._pid <= 0:
            self._drop_unclaimed()
            super().start_sync()
            return
        if self._finished:
            return
        unclaimed = self._unclaimed()
        folder = self._folder("clear")
        for path in unclaimed:
            self.frames.append(b"u %s\n" % path[len(folder) + 1 :].encode())
        self.frames.append(b"f\n")
        self._finished = True
        self.send()
        if self._pid < 0:  # it died meanwhile: the parent took over
            super().start_sync()

    def _unclaimed(self) -> list[str]:
        """Paths decided in advance that the clearing did not use (none when the scan and the
        clearing agree: a safety net); no longer this run's."""
        used = self._used
        spare = [p for p in self._child_paths if p not in used]
        if spare:
            gone = set(spare)
            self.written = [p for p in self.written if p not in gone]
            self._child_paths = [p for p in self._child_paths if p not in gone]
            for path in spare:
                self._names.pop(path, None)
                self._held.pop(path, None)
        return spare

    def _drop_unclaimed(self) -> None:
        for path in self._unclaimed():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def use_ahead(self, index: int) -> str | None:
        """The path decided in advance for result ``index`` (None: none, save it now)."""
        path = self.ahead.get(index)
        if path is not None:
            self._used.add(path)
        return path

    def _answer(self) -> None:
        """Wait for the child's answer and reap it; raise what it met."""
        try:
            lines = _read_to_end(self._from_child)
        except BaseException:  # a signal (Interrupted): the child dies first, then the run
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            raise
        finally:
            self._reap()
        foreign = [ln[2:].decode() for ln in lines if ln.startswith(b"e ")]
        last = lines[-1] if lines else b""
        folder = self._folder("clear")
        if last.startswith(b"x "):  # it failed, removed its files and said why
            _, number, name = last.split(b" ", 2)
            mine = set(self._child_paths)
            self.written = [p for p in self.written if p not in mine]
            err = int(number)
            path = name.decode() if name.startswith(b"/") else f"{folder}/{name.decode()}"
            if err == errno.EEXIST:  # not the run's file: never removed, never overwritten
                raise StreamError(path, _FOREIGN)
            raise StreamError(path, os.strerror(err))
        if last != b"k":
            self._pid = 0
            self._take_over(foreign)
            self.sync()

    def _reap(self) -> None:
        for fd in (self._to_child, self._from_child):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._to_child = self._from_child = -1
        if self._pid > 0:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self._pid, 0)
        self._pid = -1

    def _take_over(self, foreign: list[str] | None = None) -> None:
        """The child died: remove what it may have left of its files and write them here."""
        if foreign is None:
            foreign = []
            with contextlib.suppress(OSError):
                if self._from_child >= 0:
                    os.kill(self._pid, signal.SIGKILL)
                    foreign = [
                        ln[2:].decode()
                        for ln in _read_to_end(self._from_child)
                        if ln.startswith(b"e ")
                    ]
        self._reap()
        folder = self._folder("clear")
        skip = {f"{folder}/{name}" for name in foreign}
        paths = self._child_paths  # still the files named in advance (the unused go later)
        self.frames.clear()
        gone = set(paths)
        self.written = [p for p in self.written if p not in gone]
        for path in paths:
            if path in skip:
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        if skip:  # another process's file, left alone
            raise StreamError(min(skip), _FOREIGN)
        for path in paths:
            data = self._held_bytes(path)
            assert data is not None
            if not self._create(path, data):
                raise StreamError(path, _FOREIGN)

    def discard(self) -> None:
        """Stop the child (killed, reaped), then remove every file and folder of this run."""
        if self._pid > 0:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            foreign: list[str] = []
            with contextlib.suppress(OSError):
                foreign = [
                    ln[2:].decode() for ln in _read_to_end(self._from_child) if ln.startswith(b"e ")
                ]
            self._reap()
            folder = self._folder("clear")
            skip = {f"{folder}/{name}" for name in foreign}
            self.written = [p for p in self.written if p not in skip]
        self._held.clear()
        self.ahead.clear()
        self._child_paths.clear()
        super().discard()


def _die_with(parent: int) -> None:
    """The child: killed when its parent dies; Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _child(
    down: int, up: int, raw: bytes, folder: str, root: str, test_hook: tuple[str, int]
) -> int:
    """The writer process: ``c START END NAME`` creates ``NAME`` holding the ``content`` of the
    record at ``raw[START:END]``, ``u NAME`` removes it, ``f`` ends (``syncfs``, then ``k``, or
    ``x ERRNO NAME`` after removing every file it made). ``e NAME``: it existed already."""
    dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    view, loads = memoryview(raw), orjson.loads
    open_, write, close = os.open, os.write, os.close  # once per file: looked up once
    stop_after = test_hook[1]
    made: set[bytes] = set()
    early = _EarlySync()
    failed: tuple[int, bytes] | None = None
    rest = b""
    while True:
        chunk = os.read(down, _PIPE_SIZE)
        if not chunk:  # the parent is gone without a word: leave nothing
            for name in made:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=dfd)
            return 1
        *lines, rest = (rest + chunk).split(b"\n")
        for line in lines:
            op = line[:1]
            if op == b"c":
                if failed is not None:
                    continue
                _, start, end, name = line.split(b" ", 3)
                data = loads(view[int(start) : int(end)])["content"].encode(
                    "utf-8", "surrogatepass"
                )
                try:
                    fd = open_(name, CREATE_FLAGS, 0o600, dir_fd=dfd)
                except FileExistsError:  # another process's: noted at once, then it stops
                    os.write(up, b"e " + name + b"\n")
                    failed = (errno.EEXIST, name)
                    continue
                except OSError as err:
                    failed = (err.errno or 5, name)
                    continue
                made.add(name)
                try:
                    n = write(fd, data)  # a small file: one write (a loop for what is left)
                    if n < len(data):
                        rest_of = memoryview(data)[n:]
                        while rest_of:
                            rest_of = rest_of[write(fd, rest_of) :]
                except OSError as err:
                    failed = (err.errno or 5, name)
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=dfd)
                    made.discard(name)
                finally:
                    close(fd)
                if stop_after and len(made) == stop_after:
                    _test_hook(test_hook[0])
                if len(made) % _SYNC_EVERY == 0:
                    early.start(root)
            elif op == b"u":
                name = line[2:]
                if name in made:  # never a file it did not make (another process's)
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=dfd)
                    made.discard(name)
            elif op == b"f":
                if failed is None:
                    try:
                        early.wait()
                        sync_filesystem(root)
                    except OSError as err:
                        failed = (err.errno or 5, root.encode())
                if failed is None:
                    os.write(up, b"k\n")
                    return 0
                for name in made:
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=dfd)
                os.write(up, b"x %d %s\n" % failed)
                return 0


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _bytes(held: str | bytes) -> bytes:
    return _encode(held) if isinstance(held, str) else held


class _EarlySync:
    """The child's ``syncfs`` begun on a thread every :data:`_SYNC_EVERY` files (the disk
    writes them back while the next are made: the last ``syncfs`` has less to wait for)."""

    def __init__(self) -> None:
        import threading

        self.thread: threading.Thread | None = None
        self.failed: list[OSError] = []

    def start(self, root: str) -> None:
        import threading

        if self.thread is not None and self.thread.is_alive():
            return

        def run() -> None:
            try:
                sync_filesystem(root)
            except OSError as err:
                self.failed.append(err)

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Join the thread; raise what it met."""
        if self.thread is not None:
            self.thread.join()
        if self.failed:
            raise self.failed[0]


def _test_hook(what: str) -> None:
    if what == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    elif what == "pause":
        import time

        time.sleep(60)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except BrokenPipeError as err:
        raise _WriterDied from err


def _read_to_end(fd: int) -> list[bytes]:
    chunks: list[bytes] = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return [ln for ln in b"".join(chunks).split(b"\n") if ln]
