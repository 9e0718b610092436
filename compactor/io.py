"""Safe file handling for the command line (SPEC §9.5).

* :func:`atomic_write` — a temp file in the target folder, fsync, then ``os.replace``: readers see
  the old file or the new one, never half of it.
* :func:`archive_original` — keep the original transcript under a content-addressed name
  (``<sha256>.jsonl``) before ``--in-place`` replaces it.
* :func:`read_input` — read a path or ``-`` (stdin) with clear :class:`TranscriptError` messages.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

from .errors import TranscriptError

__all__ = ["DEFAULT_ARCHIVE_DIR", "archive_original", "atomic_write", "read_input"]

DEFAULT_ARCHIVE_DIR = "~/.local/share/compact/archive"
"""Where originals are archived when no ``archive_dir`` is configured."""

PAUSE_AT_REPLACE_ENV = "COMPACT_TEST_PAUSE_AT_REPLACE"
"""Test hook, unset in normal use: seconds :func:`atomic_write` sleeps just before and just after
its rename, so a crash test can SIGKILL the process on either side of it
(``tests/test_reliability_crash.py``)."""


def _pause_for_tests() -> None:
    value = os.environ.get(PAUSE_AT_REPLACE_ENV)
    if value:
        time.sleep(float(value))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; on any failure the target is left as it was."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600: keep the replaced file's mode, else what a plain open() gives.
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        _pause_for_tests()
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _pause_for_tests()
    with contextlib.suppress(OSError):  # make the rename itself durable where supported
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def archive_original(raw: bytes, archive_dir: str | os.PathLike[str] | None = None) -> str:
    """Store ``raw`` as ``<archive_dir>/<sha256>.jsonl`` (idempotent); return the absolute path."""
    folder = Path(os.path.expanduser(str(archive_dir or DEFAULT_ARCHIVE_DIR))).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{hashlib.sha256(raw).hexdigest()}.jsonl"
    if not (target.exists() and target.read_bytes() == raw):
        atomic_write(target, raw)
    return str(target)


def read_input(path_or_dash: str) -> tuple[str, bytes]:
    """(display path, bytes) of a transcript file, or of stdin for ``-``."""
    if path_or_dash == "-":
        return "-", sys.stdin.buffer.read()
    p = Path(path_or_dash)
    try:
        return path_or_dash, p.read_bytes()
    except FileNotFoundError as err:
        raise TranscriptError(path_or_dash, None, None, "file not found") from err
    except IsADirectoryError as err:
        raise TranscriptError(path_or_dash, None, None, "is a directory, not a file") from err
    except PermissionError as err:
        raise TranscriptError(path_or_dash, None, None, "permission denied") from err
    except OSError as err:
        raise TranscriptError(
            path_or_dash, None, None, f"failed to read: {err.strerror or err}"
        ) from err
