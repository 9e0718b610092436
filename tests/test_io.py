"""atomic_write, archive_original, read_input."""

from __future__ import annotations

import hashlib
import os

import pytest

from compactor.errors import TranscriptError
from compactor.io import archive_original, atomic_write, read_input


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
    with pytest.raises(OSError, match="disk full"):
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
