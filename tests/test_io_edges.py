"""Nothing lost at the new edges (issue 27): file identities, file names as bytes, late failures.

Each test runs the real ``compact`` (a subprocess, where the process's own streams and argv
bytes matter) or the library on real files: real symlinks retargeted between the plan and the
read, names that are not UTF-8 or hold a newline, folders removed under a run, FIFOs whose
reader leaves early.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compactor.cli.safe_text import visible_line

from .fake_server_cli import CODING, compact_exe

BAD = b"bad\xff.jsonl"
"""A file name that is not UTF-8 (Python sees it as ``bad\\udcff.jsonl``)."""


def _compact(
    args: list[str | bytes], cwd: Path, *, stdin: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``compact run ARGS`` in ``cwd`` (argv as bytes where a name is not UTF-8)."""
    return subprocess.run(
        [compact_exe(), "run", *args],
        cwd=cwd,
        stdin=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


# -- point 5: names are bytes --------------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_kept_in_reports_events_and_the_note(tmp_path: Path) -> None:
    # Before: the report was a traceback (exit 1), --events exit 3, a triggered run exit 3 (its
    # note could not be counted). Now every file holds the name's very bytes (as a JSON escape
    # that os.fsencode turns back into them) and the terminal shows them escaped.
    src = tmp_path / os.fsdecode(BAD)
    shutil.copy(CODING, src)
    done = _compact([BAD, b"--report", b"r.json", b"--events", b"e.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"bad\\xff.compact.jsonl" in done.stderr and b"\xff" not in done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert os.fsencode(report["input"]) == BAD
    assert os.fsencode(report["output"]) == b"bad\xff.compact.jsonl"
    assert (tmp_path / "bad\udcff.compact.jsonl").read_bytes() == CODING.read_bytes()
    events = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text("utf-8").splitlines()]
    assert os.fsencode(events[0]["path"]) == BAD and events[-1]["exit_code"] == 0

    # triggered: the summary's note names the file, its odd byte written as \xff
    done = _compact([BAD, b"--force", b"--model", b"local", b"-o", b"out.jsonl"], tmp_path)
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    note = f"read the full transcript at: {tmp_path}/bad\\\\xff.jsonl"  # JSON-escaped backslash
    assert note in out


def test_a_batch_of_names_that_are_not_utf8_writes_its_report(tmp_path: Path) -> None:
    # Before: exit 6, "failed to write the batch report: 'utf-8' codec can't encode".
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(CODING, folder / os.fsdecode(BAD))
    shutil.copy(CODING, folder / "good.jsonl")
    done = _compact([b"logs", b"--report", b"batch.json"], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode("utf-8").splitlines()
    assert lines[0].startswith("logs/bad\\xff.jsonl: unchanged (not triggered)")
    assert lines[-1].startswith("2 files: 0 compacted, 2 unchanged, 0 failed")
    report = json.loads((tmp_path / "batch.json").read_text(encoding="utf-8"))
    assert [os.fsencode(f["input"]) for f in report["files"]] == [
        b"logs/" + BAD,
        b"logs/good.jsonl",
    ]


# -- point 18: a newline in a name cannot forge a line ---------------------------------------------


FORGED = "x.jsonl\ncompact: all files compacted, nothing failed\ny.jsonl"


def test_a_newline_in_a_name_is_shown_as_backslash_n_in_batch_and_error_lines(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / FORGED).write_text('{"role": "user", "content": broken\n')  # malformed: exit 2
    shutil.copy(CODING, folder / "good.jsonl")
    done = _compact([b"logs"], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 3, lines  # the failed file, the good one, the summary: no forged line
    assert lines[0].startswith("logs/good.jsonl: unchanged")
    shown = "logs/x.jsonl\\ncompact: all files compacted, nothing failed\\ny.jsonl"
    assert lines[1].startswith(f"{shown}: failed (exit 2): TranscriptError: {shown}:1:")
    assert not any(line.startswith("compact: all files") for line in lines)

    # one file: its error line is one line too
    done = _compact([os.fsencode(folder / FORGED), b"-o", b"out.jsonl"], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1 and lines[0].startswith("compact: TranscriptError: ")
    assert "x.jsonl\\ncompact: all files compacted, nothing failed\\ny.jsonl:1:" in lines[0]


def test_visible_line_keeps_one_line_and_shows_undecodable_bytes() -> None:
    assert visible_line("a\nb\tc") == "a\\nb\tc"
    assert visible_line(os.fsdecode(b"bad\xff\x1b[2J.jsonl")) == "bad\\xff\\x1b[2J.jsonl"
    assert visible_line("ordinary ✔ ファイル.jsonl") == "ordinary ✔ ファイル.jsonl"


@pytest.mark.parametrize("name", [b"a\nb.jsonl", BAD, b"\xc3(\n\x9b31m.jsonl"])
def test_visible_line_is_one_printable_line(name: bytes) -> None:
    shown = visible_line(os.fsdecode(name))
    assert "\n" not in shown and shown.isprintable()
    shown.encode("utf-8")  # a terminal can take it
