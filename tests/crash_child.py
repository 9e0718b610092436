"""``compact`` for crash tests: the real ``main()``, held at one point of one atomic write.

Run as ``python tests/crash_child.py ARGS…`` (``ARGS`` as for ``compact``) with

* ``CRASH_HOLD=<point>:<path>``: ``write`` (half of the file's bytes are in its temp file),
  ``before`` (the temp file is complete and fsynced, just before the rename) or ``after`` (just
  after it); ``path`` is the file written, or a folder (any file written into it);
* ``CRASH_MARKER=<file>``: created when the process reaches the point;
* ``CRASH_RELEASE=<file>`` (optional): the process goes on as soon as this file exists.

There the process sleeps (60 s at most) until the test signals or kills it (or releases it). A
test waits for the marker, then signals: no tight polling, and the signal lands at that point
however busy the machine is. The points are the ones ``compactor.io.writing`` marks for tests
(``pause_at_replace``, called on both sides of :meth:`AtomicFile.commit`'s rename) and its single
writer, ``write_all``.

The tests (``test_io_crash.py``, ``test_interrupts.py``) start it with :func:`held` and wait
with :func:`wait_for`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from compactor.io import writing

HOLD_SECONDS = 60


def _matches(path: str | os.PathLike[str], target: Path) -> bool:
    p = Path(path)
    return p == target or (target.is_dir() and p.parent == target)


def _hold(marker: Path) -> None:
    marker.touch()
    release = os.environ.get("CRASH_RELEASE")
    deadline = time.monotonic() + HOLD_SECONDS
    while time.monotonic() < deadline:
        if release and os.path.exists(release):
            return
        time.sleep(0.01)


def install(point: str, target: Path, marker: Path) -> None:
    """Patch ``compactor.io.writing`` so that the first matching write holds at ``point``."""
    if point not in ("write", "before", "after"):
        raise SystemExit(f"crash_child: unknown point {point!r}")
    write_all, commit = writing.write_all, writing.AtomicFile.commit
    committing: list[Path] = []
    pauses = 0

    def held_write_all(fd: int, data: bytes, label: str) -> None:
        if point == "write" and _matches(label, target) and len(data) > 1 and not marker.exists():
            half = len(data) // 2
            write_all(fd, data[:half], label)
            _hold(marker)
            data = data[half:]
        write_all(fd, data, label)

    def held_commit(self: writing.AtomicFile, **kwargs: Any) -> None:
        committing.append(self.path)
        try:
            commit(self, **kwargs)
        finally:
            committing.pop()

    def held_pause() -> None:
        nonlocal pauses
        if committing and _matches(committing[-1], target):
            pauses += 1  # 1: before the rename, 2: after it
            if (point, pauses) in (("before", 1), ("after", 2)):
                _hold(marker)

    writing.write_all = held_write_all
    writing.AtomicFile.commit = held_commit  # type: ignore[method-assign]  # the patch is the point
    writing.pause_at_replace = held_pause


# -- for the tests: start a held process, wait for its point ---------------------------------------

CRASH_CHILD = str(Path(__file__).resolve())
COMPACT = str(Path(sys.executable).parent / "compact")
"""The installed console script (for kills at an arbitrary moment)."""


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment, plus ``extra``."""
    out = dict(os.environ)
    out.update(extra or {})
    return out


def held(
    args: list[str], point: str, target: Path, marker: Path
) -> tuple[list[str], dict[str, str]]:
    """argv and environment entries of ``compact ARGS`` held at ``point`` of writing
    ``target``."""
    return [sys.executable, CRASH_CHILD, *args], {
        "CRASH_HOLD": f"{point}:{target}",
        "CRASH_MARKER": str(marker),
    }


def wait_for(marker: Path, proc: subprocess.Popen[bytes]) -> None:
    """Until the held process reached its point (fails if it ended or took 60 s)."""
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None, f"the process ended on its own (exit {proc.returncode})"
        assert time.monotonic() < deadline, "the process never reached its hold point"
        time.sleep(0.01)


def temps(folder: Path) -> list[Path]:
    """The temp files an atomic write left in ``folder``."""
    return [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def parses_fully(p: Path) -> bool:
    """``p`` holds a whole transcript: it reads, ends with a newline and has messages."""
    from compactor.formats.registry import read_transcript

    raw = p.read_bytes()
    t = read_transcript(str(p), raw)
    return raw.endswith(b"\n") and len(t.messages) > 0


def main() -> None:
    point, _, target = os.environ["CRASH_HOLD"].partition(":")
    install(point, Path(target), Path(os.environ["CRASH_MARKER"]))
    from compactor.cli.app import main as compact_main

    sys.argv[0] = "compact"
    compact_main()


if __name__ == "__main__":
    main()
