"""Every file a run touches (SPEC §9.5): the input, the destinations and the archive.

One package, three jobs, each in its own module:

* :mod:`compactor.io.reading` — :func:`open_input` reads a path or ``-`` (stdin) into an
  :class:`InputFile` that remembers the file's identity (device, inode, size, mtime) and can
  hold an advisory ``flock`` on it, so an ``--in-place`` run can tell, just before its rename,
  whether the file changed meanwhile; a regular input can be streamed as a :class:`FileSource`.
* :mod:`compactor.io.paths` — :func:`resolve_destination` classifies a destination once, at
  plan time: a regular file (or a path to create) is replaced atomically and a symlink is
  written through to its target; a character device, FIFO or socket is streamed to directly
  and never replaced; ``-`` is stdout (stderr for ``--events``); :func:`plan_archive_dir`.
* :mod:`compactor.io.writing` — every write is checked (a short write, EPIPE, ENOSPC or EFBIG
  raises :class:`~compactor.errors.StreamError`); a file is replaced through a temp file in the
  same folder, fsync, rename, the replaced file's mode kept; :func:`archive_original` keeps the
  original under ``$XDG_DATA_HOME/compact/archive`` (``~/.local/share/...``),
  content-addressed, folder 0700, file 0600.

The names below are the package's public API; import them from ``compactor.io``.
"""

from __future__ import annotations

from .paths import (
    Destination,
    check_archive_folder,
    default_archive_dir,
    is_inside,
    name_text,
    plan_archive_dir,
    resolve_destination,
    unsafe_folder,
)
from .reading import FileSource, InputFile, open_input, read_input
from .writing import (
    PAUSE_AT_REPLACE_ENV,
    ArchiveHold,
    AtomicFile,
    LineWriter,
    archive_held,
    archive_original,
    archive_path,
    atomic_write,
    json_bytes,
    make_private_dirs,
    sync_filesystem,
    write_all,
    write_destination,
    write_new_file,
)

__all__ = [
    "PAUSE_AT_REPLACE_ENV",
    "ArchiveHold",
    "AtomicFile",
    "Destination",
    "FileSource",
    "InputFile",
    "LineWriter",
    "archive_held",
    "archive_original",
    "archive_path",
    "atomic_write",
    "check_archive_folder",
    "default_archive_dir",
    "is_inside",
    "json_bytes",
    "make_private_dirs",
    "name_text",
    "open_input",
    "plan_archive_dir",
    "read_input",
    "resolve_destination",
    "sync_filesystem",
    "unsafe_folder",
    "write_all",
    "write_destination",
    "write_new_file",
]
