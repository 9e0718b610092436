"""What a path is, decided once at plan time, before anything is read or written.

* :func:`resolve_destination` classifies a destination of a run: a regular file (or a path to
  create, or a symlink to one) is a ``file`` that will be replaced atomically; a character
  device, FIFO or socket is a ``stream`` written to directly; ``-`` is stdout (stderr for
  ``--events``). A destination that cannot be written (a missing or read-only folder, a
  directory, a block device) is a :class:`~compactor.errors.ConfigError` (exit 2).
* :func:`plan_archive_dir` and :func:`default_archive_dir`: where an original is archived.
* :func:`unsafe_folder`: the one check, used by the archive and the summary cache alike, that a
  folder holding private files cannot be written by another user.
* :func:`os_cause`: how every module of :mod:`compactor.io` names an ``OSError`` in a message.
* :func:`name_text`: a file name as text that UTF-8 can carry (the transcript note).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from compactor.errors import ConfigError

__all__ = [
    "TEMP_NAME_EXTRA",
    "Destination",
    "Kind",
    "check_archive_folder",
    "default_archive_dir",
    "is_inside",
    "name_text",
    "os_cause",
    "plan_archive_dir",
    "resolve_destination",
    "unsafe_folder",
]

Kind = Literal["file", "stream", "stdout", "stderr"]

_FLAGS = {
    "output": "-o/--output",
    "in-place": "--in-place",
    "report": "--report",
    "events": "--events",
    "archive": "archive_dir",
}
"""The flag (or config key) that names each destination role in messages."""


TEMP_NAME_EXTRA = len(".") + len(".") + 8 + len(".tmp")
"""What the temp file of an atomic write adds to its target's name (``.NAME.XXXXXXXX.tmp``,
:class:`compactor.io.writing.AtomicFile`): :func:`resolve_destination` checks that it fits."""


def os_cause(err: OSError) -> str:
    """The words of ``err`` for a message: its ``strerror``, else its text."""
    return err.strerror or str(err)


def unsafe_folder(folder: str | os.PathLike[str]) -> str | None:
    """Why ``folder`` must not hold private files (the archive, the summary cache), or None.

    Unsafe: a folder that another user can write (group- or world-writable without the sticky
    bit: they could remove, replace or plant entries), or that belongs to a user other than
    the current one or root. A folder that does not exist yet is safe (it is created 0700);
    one that cannot be examined, or is not a folder, is left to the caller's own checks."""
    try:
        st = os.stat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    name = os.fspath(folder)
    if st.st_uid not in (os.geteuid(), 0):
        return f"folder {name!r} belongs to another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not st.st_mode & stat.S_ISVTX:
        mode = f"{stat.S_IMODE(st.st_mode):04o}"
        return f"folder {name!r} can be written by other users (mode {mode}, no sticky bit)"
    return None


def name_text(name: str) -> str:
    """``name`` with each byte that is not UTF-8 written as ``\\xNN``.

    A file name is bytes; Python decodes one that is not UTF-8 with ``os.fsdecode``, each
    undecodable byte a lone surrogate (``b"bad\\xff"`` → ``"bad\\udcff"``), which no UTF-8
    text (a transcript, a summary, a token count) can hold. Where a name goes into such text
    (the transcript note) it is written as ``bad\\xff``, as a shell's ``$'...'`` would.
    """
    if name.isprintable() or not any("\ud800" <= ch <= "\udfff" for ch in name):
        return name
    return "".join(
        f"\\x{ord(ch) - 0xDC00:02x}"
        if "\udc80" <= ch <= "\udcff"
        else (f"\\u{ord(ch):04x}" if "\ud800" <= ch <= "\udfff" else ch)
        for ch in name
    )


def default_archive_dir() -> Path:
    """``$XDG_DATA_HOME/compact/archive``, else ``~/.local/share/compact/archive``."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "compact" / "archive"


def is_inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (symlinks resolved) lies inside ``folder``."""
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


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


def _check_temp_name(real: str, flag: str, name: str) -> None:
    """The temp file written beside ``real`` must have a name its folder can hold: else the
    run would fail with ENAMETOOLONG at its very end, after the model call."""
    folder, base = os.path.split(real)
    try:
        limit = os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    size = len(os.fsencode(base))
    if size + TEMP_NAME_EXTRA > limit:
        raise ConfigError(
            f"{flag} {name!r}: a file name of {size} bytes is too long to be written safely "
            f"(through a temp file beside it); at most {limit - TEMP_NAME_EXTRA} bytes here"
        )


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
        raise ConfigError(f"{flag} {name!r}: {os_cause(err)}") from err
    if st is None or stat.S_ISREG(st.st_mode):
        real = os.path.realpath(name)  # a dangling symlink: the file it names is created
        _check_folder(os.path.dirname(real) or ".", flag, name)
        _check_temp_name(real, flag, name)
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
    check_archive_folder(folder)
    return folder


def check_archive_folder(folder: str | os.PathLike[str]) -> None:
    """ConfigError (exit 2) when the archive folder is unsafe (:func:`unsafe_folder`)."""
    reason = unsafe_folder(folder)
    if reason is not None:
        raise ConfigError(
            f"archive {reason}; originals are kept only in a folder no other user can write "
            "(chmod go-w it, or set archive_dir)"
        )
