"""Where a cleared or truncated tool result goes: the offload backend (SPEC §10).

:class:`FileOffload` writes each result to ``{root}/trunc/{call_id}`` or ``{root}/clear/{call_id}``
in a private folder (0700, files 0600), each file through a temp file and a rename
(:func:`compactor.io.write_new_file`), all made durable at once by :meth:`FileOffload.sync`.
A file is never overwritten with other bytes: a call id used twice, or a name an earlier run
left holding another result, gets a short content hash added (``{call_id}-{hash}``), since
a transcript may still name the older file. A call id that is not a plain file name (``/``,
``..``, control characters, over 100 characters) is made one, with the hash added.
:meth:`FileOffload.discard` removes what this backend wrote (a run that fails afterwards
leaves nothing behind).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path
from typing import Literal, Protocol

from compactor.errors import ConfigError
from compactor.io import make_private_dirs, sync_filesystem, unsafe_folder, write_new_file

__all__ = ["FileOffload", "OffloadBackend", "OffloadKind", "check_offload_dir"]

OffloadKind = Literal["trunc", "clear"]

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]")
_MAX_NAME = 100


class OffloadBackend(Protocol):
    """Saves one tool result and says where an agent can read it back."""

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        """Store ``content``; return the absolute path (or address) that holds it."""
        ...


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _file_name(call_id: str, data: bytes) -> str:
    name = _UNSAFE_NAME.sub("_", call_id)[:_MAX_NAME].lstrip(".")
    if name != call_id or not name:
        name = f"{name or 'call'}-{_digest(call_id.encode('utf-8', 'surrogatepass'))}"
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
        raise ConfigError(f"cannot write the {what} {str(probe)!r}: permission denied")


class FileOffload:
    """The default backend: private files under ``root`` (created when first needed)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.abspath(root))
        self.written: list[Path] = []
        """Files this backend created, in order (what :meth:`discard` removes)."""
        self._made: list[Path] = []
        self._names: dict[Path, bytes] = {}

    def save(self, kind: OffloadKind, call_id: str, content: str) -> str:
        data = content.encode("utf-8", "surrogatepass")
        folder = self.root / kind
        if not folder.exists():
            for path in (self.root, folder):
                if not path.exists():
                    self._made.append(path)
            make_private_dirs(folder)
        path = folder / _file_name(call_id, data)
        if self._holds_other(path, data):
            path = folder / f"{path.name}-{_digest(data)}"
        if not self._holds(path, data):
            write_new_file(path, data, mode=0o600)
            self.written.append(path)
        self._names[path] = data
        return str(path)

    def _holds(self, path: Path, data: bytes) -> bool:
        if self._names.get(path) == data:
            return True
        try:
            return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
        except OSError:
            return False

    def _holds_other(self, path: Path, data: bytes) -> bool:
        """``path`` is taken (this run, or a file left by an earlier one) by other bytes."""
        if path in self._names:
            return self._names[path] != data
        return (path.exists() or path.is_symlink()) and not self._holds(path, data)

    def sync(self) -> None:
        """Make every file written so far durable (one ``syncfs``, not one fsync per file):
        called before a transcript that names them replaces anything."""
        if self.written:
            sync_filesystem(self.root)

    def discard(self) -> None:
        """Remove the files (and the folders) this backend created."""
        for path in reversed(self.written):
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(self._made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
        self.written.clear()
        self._made.clear()
        self._names.clear()
