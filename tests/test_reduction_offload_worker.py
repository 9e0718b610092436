"""``FileOffload(background=True)``: files named at once, created by a worker thread. The same
names and bytes as the plain backend in every naming case, the worker's error raised by
``sync``, nothing left by ``discard``, and the switch interval given back."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from compactor.errors import StreamError
from compactor.reduction import FileOffload

SAVES = [
    ("clear", "call_1", "one"),
    ("clear", "call_1", "one"),  # the same again: the same file
    ("clear", "call_1", "other bytes"),  # a reused id: a hashed name
    ("clear", "../etc/passwd", "unsafe id"),
    ("trunc", "call_2", "x" * 70_000),
    ("clear", "earlier_same", "as before"),  # an earlier run's identical file
    ("clear", "earlier_other", "new bytes"),  # an earlier run's file with other bytes
    ("clear", "call_ü", "non-ASCII ü"),
]


def _earlier(root: Path) -> None:
    (root / "clear").mkdir(parents=True, mode=0o700)
    (root / "clear" / "earlier_same").write_text("as before")
    (root / "clear" / "earlier_other").write_text("old bytes")


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_background_names_and_writes_what_the_plain_backend_does(tmp_path: Path) -> None:
    seen = []
    before = sys.getswitchinterval()
    for background in (False, True):
        root = tmp_path / f"b{background}"
        _earlier(root)
        backend = FileOffload(root, background=background)
        paths = [backend.save(kind, cid, text) for kind, cid, text in SAVES]  # type: ignore[arg-type]
        backend.sync()
        assert sys.getswitchinterval() == before
        for path, (_, _, text) in zip(paths, SAVES, strict=True):
            assert Path(path).read_text(encoding="utf-8") == text
        seen.append(([os.path.relpath(p, root) for p in paths], _tree(root), len(backend.written)))
    assert seen[0] == seen[1]
    assert seen[1][2] == 6  # the earlier identical file and the repeat are not written again


def test_a_worker_error_is_raised_by_sync_and_discard_leaves_nothing(tmp_path: Path) -> None:
    root = tmp_path / "o"
    backend = FileOffload(root, background=True)
    backend.save("clear", "a", "first")
    (root / "clear" / "b").mkdir()  # appears after the folder was listed: the worker meets it
    assert backend.save("clear", "b", "second") == str(root / "clear" / "b")
    backend.save("clear", "c", "third")
    with pytest.raises(StreamError, match="another process created this offload file"):
        backend.sync()
    backend.discard()
    assert [p.name for p in root.rglob("*")] == ["clear", "b"]  # only what it did not make
