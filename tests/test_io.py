"""compactor.io: reading the input, writing every kind of destination, the archive."""

from __future__ import annotations

import hashlib
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from compactor.errors import ConfigError, StreamError, TranscriptError
from compactor.io import (
    InputFile,
    archive_original,
    atomic_write,
    default_archive_dir,
    open_input,
    read_input,
    resolve_destination,
    write_destination,
)


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old")
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["out.jsonl"]


def test_atomic_write_failure_keeps_target(tmp_path, monkeypatch):
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(StreamError, match="disk full"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.jsonl"]


def test_archive_is_content_addressed_and_idempotent(tmp_path):
    raw = b'{"role": "user", "content": "hi"}\n'
    p1 = archive_original(raw, tmp_path / "arch")
    p2 = archive_original(raw, tmp_path / "arch")
    assert p1 == p2
    assert os.path.basename(p1) == hashlib.sha256(raw).hexdigest() + ".jsonl"
    assert os.path.isabs(p1)
    with open(p1, "rb") as fh:
        assert fh.read() == raw


def test_read_input_errors(tmp_path):
    with pytest.raises(TranscriptError, match="file not found"):
        read_input(str(tmp_path / "missing.jsonl"))
    with pytest.raises(TranscriptError, match="directory"):
        read_input(str(tmp_path))


def test_read_input_file(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"x")
    assert read_input(str(p)) == (str(p), b"x")


def test_atomic_write_new_file_gets_umask_mode_not_0600(tmp_path):
    import os

    from compactor.io import atomic_write

    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.jsonl", b"x\n")
    finally:
        os.umask(old)
    assert (tmp_path / "new.jsonl").stat().st_mode & 0o777 == 0o644


def test_pause_hook_only_when_set(tmp_path, monkeypatch):
    # COMPACT_TEST_PAUSE_AT_REPLACE holds atomic_write on both sides of its rename (crash tests).
    import time

    import compactor.io as cio

    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    target = tmp_path / "t.txt"
    atomic_write(target, b"one")
    assert slept == []
    monkeypatch.setenv(cio.PAUSE_AT_REPLACE_ENV, "0.25")
    atomic_write(target, b"two")
    assert slept == [0.25, 0.25]
    assert target.read_bytes() == b"two"


# -- destinations (issue 15, rule 3) ---------------------------------------------------------------


def test_a_regular_file_is_replaced_through_a_temp_file_in_its_folder(tmp_path, monkeypatch):
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    seen: list[tuple[str, str]] = []
    synced: list[int] = []
    real_replace, real_fsync = os.replace, os.fsync

    def replace(src, dst):
        seen.append((str(src), str(dst)))
        real_replace(src, dst)

    def fsync(fd):
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "fsync", fsync)
    write_destination(resolve_destination(str(target), "output"), b"new")
    assert target.read_bytes() == b"new"
    [(src, dst)] = seen
    assert os.path.dirname(src) == str(tmp_path) and dst == str(target)
    assert synced, "the temp file was not fsynced before the rename"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the replaced file's mode
    assert os.listdir(tmp_path) == ["out.jsonl"]


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_bytes(b"old")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real.name)
    dest = resolve_destination(str(link), "output")
    assert dest.kind == "file" and dest.path == str(real)
    write_destination(dest, b"new")
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_bytes() == b"new"


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.jsonl"
    link.symlink_to("made.jsonl")
    write_destination(resolve_destination(str(link), "output"), b"x")
    assert link.is_symlink() and (tmp_path / "made.jsonl").read_bytes() == b"x"


def test_dev_null_is_streamed_never_replaced():
    dest = resolve_destination("/dev/null", "output")
    assert (dest.kind, dest.char_device) == ("stream", True)
    write_destination(dest, b"x" * 100_000)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_dev_full_is_a_stream_error():
    with pytest.raises(StreamError, match="No space left on device"):
        write_destination(resolve_destination("/dev/full", "output"), b"x" * 100_000)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_is_streamed_to_its_reader(tmp_path):
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    data = b"line\n" * 50_000
    write_destination(resolve_destination(str(fifo), "output"), data)
    reader.join(10)
    assert got == [data]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_fifo_whose_reader_left_is_a_stream_error(tmp_path):
    read_fd, write_fd = os.pipe()
    os.close(read_fd)
    try:
        dest = resolve_destination(f"/proc/self/fd/{write_fd}", "output")
        assert dest.kind == "stream"
        with pytest.raises(StreamError, match="Broken pipe"):
            write_destination(dest, b"x" * 100_000)
    finally:
        os.close(write_fd)


def test_a_unix_socket_is_connected_to(tmp_path):
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    got: list[bytes] = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
            got.append(b"".join(chunks))

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        data = b"x" * 300_000
        write_destination(resolve_destination(str(path), "output"), data)
        thread.join(10)
    finally:
        server.close()
    assert got == [data]
    assert stat.S_ISSOCK(path.stat().st_mode)


def test_efbig_on_a_regular_file_is_a_stream_error_and_leaves_no_temp(tmp_path):
    import resource

    target = tmp_path / "out.jsonl"
    target.write_bytes(b"old")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, hard))
    try:
        with pytest.raises(StreamError, match="too large"):
            write_destination(resolve_destination(str(target), "output"), b"x" * 200_000)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.jsonl"]


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: None, "does not exist"),  # its folder is missing (below)
    ],
)
def test_destinations_refused_at_plan_time(tmp_path, make, says):
    target = tmp_path / "x"
    make(target)
    name = str(target) if says == "is a directory" else str(tmp_path / "nodir" / "x.json")
    with pytest.raises(ConfigError, match=says):
        resolve_destination(name, "report")


def test_a_file_as_folder_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="--report"):
        resolve_destination(str(tmp_path / "f" / "r.json"), "report")


def test_a_block_device_is_refused(tmp_path):
    dev = tmp_path / "blk"
    try:
        os.mknod(dev, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    except (PermissionError, OSError):
        pytest.skip("cannot create a block device node here")
    with pytest.raises(ConfigError, match="block device"):
        resolve_destination(str(dev), "output")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only folders anyway")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    with pytest.raises(ConfigError, match="is not writable"):
        resolve_destination(str(folder / "o.jsonl"), "output")


def test_default_archive_dir_follows_xdg_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_archive_dir() == tmp_path / "data" / "compact" / "archive"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_archive_dir() == tmp_path / "home" / ".local" / "share" / "compact" / "archive"


def test_archive_folder_is_0700_and_files_0600(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    old = os.umask(0o022)
    try:
        path = archive_original(b'{"role": "user", "content": "secret"}\n')
    finally:
        os.umask(old)
    assert path.startswith(str(tmp_path / "data" / "compact" / "archive"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    for folder in (tmp_path / "data" / "compact", tmp_path / "data" / "compact" / "archive"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_open_input_holds_a_lock_and_sees_a_change(tmp_path):
    import fcntl

    from compactor.errors import InputChangedError

    p = tmp_path / "s.jsonl"
    p.write_bytes(b"a\n")
    info = open_input(str(p), lock=True)
    try:
        assert info.changed() is None
        other = os.open(p, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
        with pytest.raises(InputChangedError, match="holds its lock"):
            open_input(str(p), lock=True)
        with p.open("ab") as fh:
            fh.write(b"b\n")
        assert "size went from 2 to 4 bytes" in (info.changed() or "")
    finally:
        info.close()


def test_closed_stdin_is_a_stream_error(monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(StreamError, match="failed to read <stdin>: stdin is closed"):
        open_input("-")


def test_write_all_loops_over_short_writes_and_refuses_a_write_that_takes_nothing(monkeypatch):
    from compactor.io import write_all

    taken: list[bytes] = []

    def short(fd: int, data: memoryview) -> int:
        taken.append(bytes(data[:3]))
        return min(3, len(data))

    monkeypatch.setattr(os, "write", short)
    write_all(99, b"abcdefgh", "x")
    assert b"".join(taken) == b"abcdefgh"
    monkeypatch.setattr(os, "write", lambda fd, data: 0)
    with pytest.raises(StreamError, match="failed to write x completely: the write took nothing"):
        write_all(99, b"abc", "x")


# ---------------------------------------------------------------------------------------------
# A streamed input (FileSource): parsed as it is read, read again on demand, and checked


def _streamed(path: Path, block: int = 7) -> InputFile:
    from compactor.io import FileSource

    info = open_input(str(path), stream=True)
    assert isinstance(info.source, FileSource)
    info.source.BLOCK = block  # many blocks, lines across their ends
    return info


def test_a_streamed_input_is_read_again_and_checked(tmp_path):
    from compactor.errors import InputChangedError
    from compactor.formats.registry import read_transcript, write_transcript
    from compactor.schema import Message

    p = tmp_path / "s.jsonl"
    raw = b'{"role":"system","content":"rules"}\n{"role":"user","content":"hello there"}\n'
    p.write_bytes(raw)
    info = _streamed(p)
    try:
        t = read_transcript(info.display, info.source, snapshot=False)
        assert [ln.text for ln in t.meta.lines] == raw.splitlines()
        assert info.raw == raw  # the whole input, read again
        summary = Message(role="user", content="summary")
        assert write_transcript(t, [t.messages[0], summary]).startswith(raw.splitlines()[0])
        # Appending keeps every line already read valid: what was read is still there.
        with p.open("ab") as fh:
            fh.write(b'{"role":"user","content":"later"}\n')
        assert t.meta.lines[0].text == raw.splitlines()[0]
        assert info.raw == raw
        # Rewritten in place: a line read again differs, and so does the whole.
        p.write_bytes(raw.replace(b"rules", b"RULES"))
        with pytest.raises(InputChangedError, match="changed during the run"):
            t.meta.lines[0].text  # noqa: B018 - the property reads the file again
        with pytest.raises(InputChangedError, match="changed during the run"):
            info.raw  # noqa: B018
    finally:
        info.close()


def test_a_streamed_input_replaced_by_a_rename_is_still_the_file_read(tmp_path):
    from compactor.formats.registry import read_transcript

    p = tmp_path / "s.jsonl"
    raw = b'{"role":"user","content":"one"}\n{"role":"assistant","content":"two"}\n'
    p.write_bytes(raw)
    info = _streamed(p)
    try:
        t = read_transcript(info.display, info.source, snapshot=False)
        (tmp_path / "new.jsonl").write_bytes(b'{"role":"user","content":"other"}\n')
        os.replace(tmp_path / "new.jsonl", p)  # an editor's or an agent's atomic save
        assert t.meta.lines[1].text == raw.splitlines()[1]
        assert info.raw == raw
    finally:
        info.close()
    assert info.source.fd is None  # type: ignore[union-attr]


def test_only_a_regular_unlocked_input_is_streamed(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"{}\n")
    locked = open_input(str(p), lock=True, stream=True)
    try:
        assert locked.source == b"{}\n"  # --in-place archives what it read: it keeps the bytes
    finally:
        locked.close()
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(b"{}\n"))
    writer.start()
    piped = open_input(str(fifo), stream=True)
    writer.join()
    assert piped.source == b"{}\n"
