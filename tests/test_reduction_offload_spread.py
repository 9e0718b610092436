"""Issue 30 point 5 (offload18): the offload folder a run makes is marked the top of a
directory tree (ext4's ``T`` attribute), so that its ``clear``/``trunc`` folders, and their
files, are placed in a little-used block group (see ``spread_below``). What a run writes is
the same; a folder that exists is left as it is; a file system without the flag is no error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from compactor.reduction import FileOffload
from compactor.reduction.offload import spread_below

REPO = Path(__file__).resolve().parent.parent
TOPDIR = 0x00020000


def _flags(path: Path) -> int | None:
    """The folder's inode flags (``lsattr``), None where the file system has none."""
    import fcntl
    import struct

    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return int(struct.unpack("I", fcntl.ioctl(fd, 0x80086601, b"\0\0\0\0"))[0])
    except OSError:
        return None
    finally:
        os.close(fd)


def _needs_flags(folder: Path) -> None:
    if sys.platform != "linux" or _flags(folder) is None:
        pytest.skip("this file system keeps no inode flags")


def _transcript(path: Path, rounds: int = 4) -> None:
    lines: list[dict[str, object]] = [{"role": "user", "content": "look at the files"}]
    for i in range(rounds):
        call = f"call_{i}"
        lines.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"p": i})},
                    }
                ],
            }
        )
        lines.append({"role": "tool", "tool_call_id": call, "content": f"result {i} " * 300})
    lines.append({"role": "assistant", "content": "done"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "s.jsonl"
    _transcript(src)
    cmd = [sys.executable, "-m", "compactor", "run", str(src), "--strategy", "reduce", "--force"]
    return subprocess.run(
        [*cmd, "-q", "-o", str(tmp_path / "out.jsonl"), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
    )


def test_the_offload_folder_a_run_makes_is_marked_a_top_folder(tmp_path: Path) -> None:
    _needs_flags(tmp_path)
    proc = _run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "out.offload"
    files = sorted((root / "clear").iterdir())
    assert [f.name for f in files] == ["call_0", "call_1", "call_2"]  # the last round kept
    assert [f.read_text() for f in files] == [f"result {i} " * 300 for i in range(3)]
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert (_flags(root) or 0) & TOPDIR  # its folders are placed as new trees
    assert not (_flags(root / "clear") or 0) & TOPDIR
    assert str(files[0]) in (tmp_path / "out.jsonl").read_text()


def test_an_offload_folder_that_exists_is_left_as_it_is(tmp_path: Path) -> None:
    _needs_flags(tmp_path)
    root = tmp_path / "out.offload"
    root.mkdir(mode=0o700)
    before = _flags(root)
    proc = _run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _flags(root) == before and not (before or 0) & TOPDIR
    assert len(list((root / "clear").iterdir())) == 3


def test_a_file_system_without_the_flag_gets_every_file_all_the_same(tmp_path: Path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm")
    folder = shm / f"offload-spread-{os.getpid()}"
    try:
        off = FileOffload(folder)  # tmpfs refuses the flag (or all flags): the run goes on
        path = off.save("clear", "call_1", "a result")
        off.sync()
        assert Path(path).read_text() == "a result"
        assert not (_flags(folder) or 0) & TOPDIR
        spread_below(str(folder))  # again, directly: still no error
        proc = _run(tmp_path, "--offload-dir", str(folder / "run"))
        assert proc.returncode == 0, proc.stderr
        assert len(list((folder / "run" / "clear").iterdir())) == 3
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def test_a_failed_run_removes_the_marked_folder_with_its_files(tmp_path: Path) -> None:
    _needs_flags(tmp_path)
    off = FileOffload(tmp_path / "off")
    off.save("clear", "call_1", "a result")
    assert (_flags(tmp_path / "off") or 0) & TOPDIR
    off.discard()
    assert not (tmp_path / "off").exists()
