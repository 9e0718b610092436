"""Nothing lost at the new edges (issue 27): file identities, file names as bytes, late failures.

Each test runs the real ``compact`` (a subprocess, where the process's own streams and argv
bytes matter) or the library on real files: real symlinks retargeted between the plan and the
read, names that are not UTF-8 or hold a newline, folders removed under a run, FIFOs whose
reader leaves early.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.cli.run import written_clause
from compactor.cli.safe_text import visible_line
from compactor.models.scripted import ScriptedModel
from compactor.runs.runner import Run, RunOptions, arun_file, plan

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


# -- point 2: --in-place replaces only the file it read ------------------------------------------


def _retarget(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` atomically, as an agent rotating its session file does."""
    tmp = link.with_name(link.name + ".new")
    tmp.symlink_to(target)
    os.replace(tmp, link)


@pytest.fixture
def rotating(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``current.jsonl`` → ``a.jsonl``; ``b.jsonl`` another session."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    shutil.copy(CODING, a)
    b.write_bytes(CODING.read_bytes().replace(b"coding agent", b"other agent"))
    assert a.read_bytes() != b.read_bytes()
    link = tmp_path / "current.jsonl"
    link.symlink_to("a.jsonl")
    return link, a, b


def _archived() -> list[Path]:
    """The archive's files (under this session's $XDG_DATA_HOME)."""
    archive = Path(os.environ["XDG_DATA_HOME"]) / "compact" / "archive"
    return sorted(archive.glob("*.jsonl")) if archive.is_dir() else []


def test_in_place_through_a_link_retargeted_after_the_plan_replaces_nothing(
    rotating: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    # The race: the plan resolved current.jsonl -> a.jsonl, then the agent pointed the
    # link at b.jsonl before the run opened it. Before: a.jsonl was replaced with a compaction
    # of b.jsonl's content, never archived, exit 0. Now: exit 5, both files as they were.
    link, a, b = rotating
    a_before, b_before = a.read_bytes(), b.read_bytes()
    archived = _archived()
    report = tmp_path / "r.json"
    planned = plan(
        RunOptions(input=str(link), in_place=True, force=True, model="local", report=str(report))
    )
    assert planned.output.path == str(a)
    _retarget(link, "b.jsonl")
    result = asyncio.run(Run(planned).execute())
    assert result.exit_code == 5
    assert result.error == (
        f"{link}: it is no longer the file the run planned to replace "
        f"({str(a)!r}): a link was retargeted or the file replaced before it was read; "
        "nothing was replaced"
    )
    assert a.read_bytes() == a_before and b.read_bytes() == b_before
    assert os.readlink(link) == "b.jsonl"
    assert result.written == {"report": str(report)} and result.archive is None
    assert _archived() == archived  # nothing archived either
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.jsonl",
        "b.jsonl",
        "current.jsonl",
        "r.json",
    ]


class _RotatingModel(ScriptedModel):
    """A summarizer during whose call the agent points the session link at another file."""

    def __init__(self, link: Path) -> None:
        super().__init__(["<summary>the summary of session a</summary>"], name="rotating")
        self.link = link

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        _retarget(self.link, "b.jsonl")
        return await super().generate(messages, **options)


def test_in_place_through_a_link_retargeted_after_the_read_replaces_the_file_read(
    rotating: tuple[Path, Path, Path],
) -> None:
    # Once the file is open, the run reads only that descriptor and replaces only that file:
    # a.jsonl gets the compaction of a.jsonl (its original archived), b.jsonl is untouched.
    link, a, b = rotating
    a_before, b_before = a.read_bytes(), b.read_bytes()
    planned = plan(RunOptions(input=str(link), in_place=True, force=True))
    result = asyncio.run(Run(planned, model=_RotatingModel(link)).execute())
    assert result.exit_code == 0, result.error
    assert os.readlink(link) == "b.jsonl" and b.read_bytes() == b_before
    assert b"the summary of session a" in a.read_bytes()
    assert result.archive is not None and Path(result.archive).read_bytes() == a_before


def test_in_place_while_an_agent_keeps_rotating_its_link_never_mixes_two_files(
    rotating: tuple[Path, Path, Path],
) -> None:
    # The loop: `compact run current.jsonl --in-place` while the link flips between two
    # sessions (2 of 10 runs replaced a.jsonl with b.jsonl's compaction). Whatever the timing,
    # each file holds its own content (as it was, or its own compaction): never the other's.
    link, a, b = rotating
    originals = {a: a.read_bytes(), b: b.read_bytes()}
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for target in ("b.jsonl", "a.jsonl"):
                _retarget(link, target)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    codes = []
    try:
        for _ in range(20):
            for path, raw in originals.items():
                path.write_bytes(raw)
            options = RunOptions(input=str(link), in_place=True, force=True, model="local")
            codes.append(int(asyncio.run(arun_file(options)).exit_code))
            assert b"other agent" not in a.read_bytes()
            assert b"coding agent" not in b.read_bytes()
    finally:
        stop.set()
        flipper.join()
    assert set(codes) <= {0, 2, 5}, codes  # 2: the plan itself saw the link mid-flip


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


# -- point 9: no destination is the config file or the file stdin reads ----------------------------

FAILING_CONFIG = "loop_guard: {max_ratio: 0.01}\n"
"""A config whose run fails with exit 4 (the loop guard refuses any result)."""


@pytest.mark.parametrize("flag", ["--report", "--events"])
@pytest.mark.parametrize("named_by", ["-c", "$COMPACT_CONFIG"])
def test_a_report_or_events_naming_the_config_file_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str, named_by: str
) -> None:
    # Before: the report (or events) replaced the config file, even on this failed run (exit 4).
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(FAILING_CONFIG)
    monkeypatch.chdir(tmp_path)
    args = ["run", "s.jsonl", "--threshold", "10", "--model", "local", "-o", "out.jsonl"]
    if named_by == "-c":
        args += ["-c", "c.yaml"]
    else:
        monkeypatch.setenv("COMPACT_CONFIG", str(cfg))
    assert CliRunner().invoke(app, args).exit_code == 4  # the run itself fails with exit 4
    result = CliRunner().invoke(app, [*args, flag, "./c.yaml"])
    assert result.exit_code == 2
    where = "-c/--config" if named_by == "-c" else "$COMPACT_CONFIG"
    shown = "c.yaml" if named_by == "-c" else str(cfg)
    assert (
        f"compact: {flag} './c.yaml' is the config file {shown!r} ({where}); name another file"
    ) in result.output
    assert cfg.read_text() == FAILING_CONFIG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "s.jsonl"]


def test_a_batch_report_naming_the_config_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(CODING, folder / "a.jsonl")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(FAILING_CONFIG)
    result = CliRunner().invoke(app, ["run", str(folder), "-c", str(cfg), "--report", str(cfg)])
    assert result.exit_code == 2
    assert "--report" in result.output and "is the config file" in result.output
    assert cfg.read_text() == FAILING_CONFIG
    assert sorted(p.name for p in folder.iterdir()) == ["a.jsonl"]


@pytest.mark.parametrize("flag", ["--report", "-o", "--events"])
def test_a_destination_that_is_the_file_stdin_reads_is_refused(tmp_path: Path, flag: str) -> None:
    # `compact run - --report in.jsonl < in.jsonl` replaced the stdin source with a report.
    src = tmp_path / "in.jsonl"
    shutil.copy(CODING, src)
    with src.open("rb") as stdin:
        done = _compact(
            ["-", flag, "in.jsonl", "--force", "--model", "local"], tmp_path, stdin=stdin.fileno()
        )
    assert done.returncode == 2
    flag_name = {"-o": "-o/--output"}.get(flag, flag)
    assert done.stderr.decode() == (
        f"compact: {flag_name} 'in.jsonl' is the file stdin reads; name another file\n"
    )
    assert src.read_bytes() == CODING.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# -- point 10: what the plan could not foresee is exit 6 naming the destination -------------------


class _SabotagingModel(ScriptedModel):
    """A summarizer during whose call something happens to the destination."""

    def __init__(self, act: Callable[[], None]) -> None:
        super().__init__(["<summary>the summary</summary>"], name="sabotaging")
        self.act = act

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        self.act()
        return await super().generate(messages, **options)


def _late_failure(src: Path, out: Path, act: Callable[[], None]) -> Any:
    planned = plan(RunOptions(input=str(src), output=str(out), force=True))
    return asyncio.run(Run(planned, model=_SabotagingModel(act)).execute())


def test_an_output_folder_removed_during_the_run_is_exit_6_naming_the_output(
    tmp_path: Path,
) -> None:
    # Before: exit 2, "usage error", naming the temp file (FileNotFoundError from mkstemp).
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    folder = tmp_path / "sub"
    folder.mkdir()
    out = folder / "out.jsonl"
    result = _late_failure(src, out, folder.rmdir)
    assert result.exit_code == 6
    assert result.error == (
        f"failed to write {out} completely: cannot create its temp file: No such file or directory"
    )
    assert written_clause(result) == "nothing was written"
    assert result.not_written == {"output": str(out)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_an_output_turned_into_a_directory_is_exit_6_and_no_temp_is_left(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    out = tmp_path / "out.jsonl"
    result = _late_failure(src, out, out.mkdir)
    assert result.exit_code == 6
    assert result.error == (
        f"failed to write {out} completely: cannot rename its finished temp file "
        "over it: Is a directory"
    )
    assert out.is_dir() and list(out.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "s.jsonl"]  # no temp


def test_a_bind_mounted_output_is_exit_6_and_stays_as_it_was(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    out, over = tmp_path / "out.jsonl", tmp_path / "mounted.txt"
    out.write_text("the old output\n")
    over.write_text("a file mounted over it\n")
    mounted = subprocess.run(
        ["mount", "--bind", str(over), str(out)], capture_output=True, check=False
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.decode().strip()}")
    try:
        result = _late_failure(src, out, lambda: None)
        assert out.read_text() == "a file mounted over it\n"
    finally:
        subprocess.run(["umount", str(out)], check=True)
    assert result.exit_code == 6
    assert result.error == (
        f"failed to write {out} completely: cannot rename its finished temp file "
        "over it: Device or resource busy"
    )
    assert out.read_text() == "the old output\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mounted.txt", "out.jsonl", "s.jsonl"]


def test_a_name_too_long_for_its_temp_file_is_refused_before_any_work(tmp_path: Path) -> None:
    # Before: ENAMETOOLONG from the temp file after the model call (exit 2, naming the temp).
    # The temp file is ".NAME.XXXXXXXX.tmp": 14 bytes more than NAME, within NAME_MAX (255).
    src = tmp_path / "s.jsonl"
    shutil.copy(CODING, src)
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")  # 255 on the usual file systems
    longest = "o" * (limit - 14 - len(".jsonl")) + ".jsonl"
    result = CliRunner().invoke(
        app, ["run", str(src), "--force", "--model", "local", "-o", str(tmp_path / longest)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / longest).exists()
    too_long = "o" + longest
    # a remote model on a dead port: a plan that let the run start would end in exit 3
    result = CliRunner().invoke(
        app, ["run", str(src), "--force", "--model", "openai:x", "-o", str(tmp_path / too_long)]
    )
    assert result.exit_code == 2
    assert (
        f"a file name of {limit - 13} bytes is too long to be written safely (through a temp "
        f"file beside it); at most {limit - 14} bytes here"
    ) in result.output
    assert not (tmp_path / too_long).exists()


# -- point 11: a stream cut short says how much went out -----------------------------------------

KIB_100 = 100 * 1024


def _big_transcript(path: Path) -> int:
    """A ~600 KB openai transcript (far more than a pipe buffers); its size."""
    records = [{"role": "system", "content": "sys"}] + [
        {"role": ("user", "assistant")[i % 2], "content": f"message {i} " + "x" * 2000}
        for i in range(300)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path.stat().st_size


def _cut_short(stderr: bytes, label: str, total: int) -> int:
    """The bytes the error line says went out (and checks the line says they are not all)."""
    line = stderr.decode()
    found = re.search(
        rf"; incomplete: output {re.escape(label)} cut short after ([\d,]+) of {total:,} bytes\n$",
        line,
    )
    assert found, line
    assert "nothing was written" not in line
    return int(found.group(1).replace(",", ""))


def test_stdout_cut_short_says_how_many_bytes_went_out(tmp_path: Path) -> None:
    # `compact run big.jsonl -o - | head -c 100K`. Before: "...; nothing was written".
    total = _big_transcript(tmp_path / "big.jsonl")
    args = [compact_exe(), "run", "big.jsonl", "--threshold", "100000000", "-o", "-"]
    with subprocess.Popen(
        [*args, "--report", "r.json"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        got = proc.stdout.read(KIB_100)
        proc.stdout.close()  # the reader leaves: the next write is EPIPE
        stderr = proc.stderr.read()
        assert proc.wait(timeout=60) == 6
    assert stderr.startswith(b"compact: failed to write <stdout> completely: ")
    went = _cut_short(stderr, "<stdout>", total)
    assert len(got) == KIB_100 and KIB_100 <= went < total  # the pipe buffered the rest
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["incomplete"] == {"output": {"bytes_written": went, "bytes": total}}
    assert report["not_written"] == {"output": "-"} and report["exit_code"] == 6


def test_a_fifo_cut_short_says_how_many_bytes_went_out(tmp_path: Path) -> None:
    total = _big_transcript(tmp_path / "big.jsonl")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    with subprocess.Popen(
        [compact_exe(), "run", "big.jsonl", "--threshold", "100000000", "-o", str(fifo)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stderr is not None
        with fifo.open("rb") as reader:  # blocks until compact opens it for writing
            got = reader.read(KIB_100)
        stderr = proc.stderr.read()
        assert proc.wait(timeout=60) == 6
    assert stderr.startswith(f"compact: failed to write {fifo} completely: ".encode())
    went = _cut_short(stderr, str(fifo), total)
    assert len(got) == KIB_100 and KIB_100 <= went < total


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
    assert lines[1].startswith(f"{shown}: failed (exit 2): {shown}:1:")
    assert not any(line.startswith("compact: all files") for line in lines)

    # one file: its error line is one line too
    done = _compact([os.fsencode(folder / FORGED), b"-o", b"out.jsonl"], tmp_path)
    assert done.returncode == 2
    lines = done.stderr.decode("utf-8").splitlines()
    assert len(lines) == 1 and lines[0].startswith("compact: ")
    assert "x.jsonl\\ncompact: all files compacted, nothing failed\\ny.jsonl:1:" in lines[0]

    # `compact check`: a good file's line is one line as well
    named = folder / "ok.jsonl\ncompact: forged"
    shutil.copy(CODING, named)
    done = subprocess.run(
        [compact_exe(), "check", os.fsencode(named)], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines() == [
        f"{folder}/ok.jsonl\\ncompact: forged: ok — openai, 23 messages, 998 tokens (estimate); "
        "threshold 160,000 tokens; 998 tokens <= 160,000 token threshold"
    ]


def test_visible_line_keeps_one_line_and_shows_undecodable_bytes() -> None:
    assert visible_line("a\nb\tc") == "a\\nb\tc"
    assert visible_line(os.fsdecode(b"bad\xff\x1b[2J.jsonl")) == "bad\\xff\\x1b[2J.jsonl"
    assert visible_line("ordinary ✔ ファイル.jsonl") == "ordinary ✔ ファイル.jsonl"


@pytest.mark.parametrize("name", [b"a\nb.jsonl", BAD, b"\xc3(\n\x9b31m.jsonl"])
def test_visible_line_is_one_printable_line(name: bytes) -> None:
    shown = visible_line(os.fsdecode(name))
    assert "\n" not in shown and shown.isprintable()
    shown.encode("utf-8")  # a terminal can take it


# -- a transcript read from a FIFO ----------------------------------------------------------------


def _cc_session_led_by_metadata(path: Path) -> bytes:
    """A small Claude Code session whose first 300 records are of a type no reader knows."""
    lines = [json.dumps({"type": "file-history-delta", "delta": {"n": i}}) for i in range(300)]
    for i in range(6):
        base = {"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z"}
        lines.append(
            json.dumps(
                {**base, "type": "user", "uuid": f"u{i}", "parentUuid": f"a{i - 1}" if i else None}
                | {"message": {"role": "user", "content": f"please fix bug {i} in src/app.py"}}
            )
        )
        text = [{"type": "text", "text": f"Fixed bug {i}."}]
        lines.append(
            json.dumps(
                {**base, "type": "assistant", "uuid": f"a{i}", "parentUuid": f"u{i}"}
                | {"message": {"role": "assistant", "model": "m", "content": text}}
            )
        )
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(data)
    return data


@pytest.mark.parametrize("leading_metadata", [False, True])
def test_check_reads_a_claude_code_session_from_a_fifo_once(
    tmp_path: Path, leading_metadata: bool
) -> None:
    """``compact check FIFO`` of a format the streamed check hands to the full read (Claude
    Code; also one led by records no format claims, which the streamed check reads past its
    head): the FIFO is read once, by the full read. It used to read the head, then open the
    FIFO again and wait for a writer for ever."""
    data = _cc_session_led_by_metadata(tmp_path / "s.jsonl")
    if not leading_metadata:
        data = b"".join(data.splitlines(keepends=True)[300:])
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)

    def feed() -> None:
        with fifo.open("wb") as writer:  # blocks until compact opens it for reading
            writer.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = subprocess.run(
        [compact_exe(), "check", str(fifo)], capture_output=True, timeout=60, check=False
    )
    writer.join(timeout=5)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith(f"{fifo}: ok — claude-code, 12 messages, ")
    warned = b"unknown claude-code record type 'file-history-delta' (300 records" in done.stderr
    assert warned is leading_metadata
