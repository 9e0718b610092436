"""Nothing lost at the new edges (issue 27, points 1, 6, 7, 8, 12, 13, 14): the archive, its
folder and the cache's, signals at the archive and events renames, relative ``archive_dir``,
a file named twice in an ``--in-place`` batch, and the modes of reports and events files.

Real files, real processes (``compact`` and ``tests/crash_child.py``), real signals and a real
concurrent ``compact archive prune``; the remote model is the loopback fake.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.io import archive_original, unsafe_folder
from compactor.pipeline.cache import SummaryCache
from compactor.testing.fake_openai import FakeOpenAI, reply

from .crash_child import COMPACT, child_env, held, temps, wait_for

REPO = Path(__file__).resolve().parents[1]
LONG = REPO / "sample_transcripts" / "coding-session-long.jsonl"
DAY = 86_400.0


def _session(path: Path) -> bytes:
    """A transcript a forced ``--model local`` compaction shrinks (long answers)."""
    lines = [
        {"role": role, "content": f"{role} {i} " * (20 if role == "user" else 200)}
        for i in range(20)
        for role in ("user", "assistant")
    ]
    data = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    path.write_bytes(data)
    return data


def _entry(folder: Path, data: bytes) -> Path:
    return folder / f"{hashlib.sha256(data).hexdigest()}.jsonl"


def _config(tmp_path: Path, archive: Path) -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"archive_dir: {archive}\n")
    return cfg


def _default_signals() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def _prune(cfg: Path, age: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMPACT, "archive", "prune", "--older-than", age, "-c", str(cfg)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


# -- point 1: prune never deletes an archive a run just named ---------------------------------


def test_archiving_the_same_bytes_again_refreshes_the_entry_so_prune_keeps_it(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    src = tmp_path / "s.jsonl"
    original = _session(src)
    entry = _entry(archive, original)
    entry.write_bytes(original)  # an earlier run archived these bytes 40 days ago
    old = time.time() - 40 * DAY
    os.utime(entry, (old, old))
    cfg = _config(tmp_path, archive)
    run = CliRunner().invoke(
        app, ["run", str(src), "--in-place", "--force", "--model", "local", "-c", str(cfg)]
    )
    assert run.exit_code == 0, run.output
    assert f"(original archived at {entry})" in run.stderr
    assert time.time() - entry.stat().st_mtime < 60, "the archiving did not refresh the entry"
    pruned = _prune(cfg, "30d")
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.splitlines()[-1] == f"removed 0 files (0 B), kept 1 file in {archive}"
    assert entry.read_bytes() == original
    # the library call does the same
    os.utime(entry, (old, old))
    assert archive_original(original, archive) == str(entry)
    assert time.time() - entry.stat().st_mtime < 60


@pytest.mark.parametrize("already_archived", [False, True], ids=["new", "old-entry"])
def test_prune_racing_a_run_keeps_the_archive_the_run_named(
    tmp_path: Path, already_archived: bool
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    work = tmp_path / "work"
    work.mkdir()
    src = work / "s.jsonl"
    original = _session(src)
    entry = _entry(archive, original)
    if already_archived:  # the same bytes, archived long ago (an earlier failed run)
        entry.write_bytes(original)
        old = time.time() - 40 * DAY
        os.utime(entry, (old, old))
    other = _entry(archive, b"another original\n")
    other.write_bytes(b"another original\n")  # no run holds this one: prune removes it
    cfg = _config(tmp_path, archive)
    marker, release = tmp_path / "held", tmp_path / "release"
    argv, env = held(
        ["run", str(src), "--in-place", "--force", "--model", "local", "-c", str(cfg)],
        "before",
        src,
        marker,
    )
    env["CRASH_RELEASE"] = str(release)
    proc = subprocess.Popen(
        argv, env=child_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        wait_for(marker, proc)  # archived and summarized; held just before replacing the input
        pruned = _prune(cfg, "0s")  # a real prune, in another process, while the run holds
    finally:
        release.touch()
        _, err = proc.communicate(timeout=60)
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout.splitlines() == [
        pruned.stdout.splitlines()[0],
        f"removed 1 file (17 B), kept 1 file in {archive}",
    ]
    assert pruned.stdout.startswith(f"removed {other} (")
    text = err.decode(errors="replace")
    assert proc.returncode == 0, text
    assert f"(original archived at {entry})" in text
    assert entry.read_bytes() == original, "prune deleted the archive the run had just named"
    assert src.read_bytes() != original
    # Once the run is over, its entry is an ordinary (fresh) one: kept by an age, not by a lock.
    assert _prune(cfg, "30d").stdout.splitlines()[-1].endswith("kept 1 file in " + str(archive))
    assert _prune(cfg, "0s").stdout.splitlines()[-1].startswith("removed 1 file")


def test_prune_racing_an_archive_write_keeps_its_temp_file(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    src = tmp_path / "s.jsonl"
    original = _session(src)
    cfg = _config(tmp_path, archive)
    marker, release = tmp_path / "held", tmp_path / "release"
    argv, env = held(
        ["run", str(src), "--in-place", "--force", "--model", "local", "-c", str(cfg)],
        "write",  # half of the original is in the archive's temp file
        archive,
        marker,
    )
    env["CRASH_RELEASE"] = str(release)
    proc = subprocess.Popen(
        argv, env=child_env(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        wait_for(marker, proc)
        (temp,) = temps(archive)
        pruned = _prune(cfg, "0s")
    finally:
        release.touch()
        _, err = proc.communicate(timeout=60)
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout == f"removed 0 files (0 B), kept 1 file in {archive}\n"
    assert proc.returncode == 0, err.decode(errors="replace")
    assert not temp.exists() and temps(archive) == []
    assert _entry(archive, original).read_bytes() == original


# -- point 6: unsafe archive and cache folders, planted symlinks ------------------------------


def test_unsafe_folder_is_one_check(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    assert unsafe_folder(folder) is None  # not there yet: it is created 0700
    folder.mkdir()
    for mode, unsafe in [(0o700, False), (0o755, False), (0o1777, False), (0o777, True)]:
        folder.chmod(mode)
        assert (unsafe_folder(folder) is not None) == unsafe, oct(mode)
    folder.chmod(0o770)
    assert unsafe_folder(folder) == (
        f"folder {str(folder)!r} can be written by other users (mode 0770, no sticky bit)"
    )


def _unsafe_archive(tmp_path: Path, how: str) -> Path:
    archive = tmp_path / "archive"
    archive.mkdir()
    if how == "world-writable":
        archive.chmod(0o777)
    elif how == "group-writable":
        archive.chmod(0o770)
    else:
        if os.geteuid() != 0:
            pytest.skip("only root can give a folder to another user")
        os.chown(archive, 65534, 65534)
        archive.chmod(0o700)
    return archive


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "another-users"])
def test_an_unsafe_archive_folder_is_exit_2_before_any_work(tmp_path: Path, how: str) -> None:
    archive = _unsafe_archive(tmp_path, how)
    src = tmp_path / "s.jsonl"
    original = _session(src)
    cfg = _config(tmp_path, archive)
    with FakeOpenAI() as fake:
        result = subprocess.run(
            [
                COMPACT,
                "run",
                str(src),
                "--in-place",
                "--force",
                "-c",
                str(cfg),
                "--model",
                "openai:gpt-4o-mini",
            ],
            env=child_env({"OPENAI_BASE_URL": fake.base_url, "OPENAI_API_KEY": "sk-test"}),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert fake.requests == [], "the model was called"
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()
    why = "belongs to another user (uid 65534)" if how == "another-users" else "can be written"
    assert line.startswith(f"compact: archive folder {str(archive)!r} {why}")
    assert src.read_bytes() == original
    assert list(archive.iterdir()) == []
    for command in (["list"], ["prune", "--older-than", "30d"]):
        refused = CliRunner().invoke(app, ["archive", *command, "-c", str(cfg)])
        assert refused.exit_code == 2, refused.output
        assert f"archive folder {str(archive)!r} " in refused.stderr


def test_a_sticky_shared_archive_folder_is_used(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    archive.chmod(0o1777)  # /tmp-like: no one can remove or rename another's files
    src = tmp_path / "s.jsonl"
    original = _session(src)
    run = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            "--in-place",
            "--force",
            "--model",
            "local",
            "-c",
            str(_config(tmp_path, archive)),
        ],
    )
    assert run.exit_code == 0, run.output
    entry = _entry(archive, original)
    assert entry.read_bytes() == original and stat.S_IMODE(entry.stat().st_mode) == 0o600


@pytest.mark.parametrize("same_bytes", [True, False], ids=["same-bytes", "other-bytes"])
def test_a_symlink_planted_at_the_archive_entry_is_never_followed(
    tmp_path: Path, same_bytes: bool
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    src = tmp_path / "s.jsonl"
    original = _session(src)
    elsewhere = tmp_path / "elsewhere.jsonl"
    planted = original if same_bytes else b"not the original\n"
    elsewhere.write_bytes(planted)
    elsewhere.chmod(0o644)
    entry = _entry(archive, original)
    entry.symlink_to(elsewhere)
    run = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            "--in-place",
            "--force",
            "--model",
            "local",
            "-c",
            str(_config(tmp_path, archive)),
        ],
    )
    assert run.exit_code == 0, run.output
    assert not entry.is_symlink(), "the archive is a link to a file someone else controls"
    assert entry.read_bytes() == original
    assert stat.S_IMODE(entry.lstat().st_mode) == 0o600  # never the link target's 0644
    assert elsewhere.read_bytes() == planted and stat.S_IMODE(elsewhere.stat().st_mode) == 0o644


@pytest.fixture
def remote(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-edges-0001")
    return fake


def test_an_unsafe_cache_folder_is_not_used_and_the_run_says_so(
    tmp_path: Path, remote: FakeOpenAI
) -> None:
    folder = tmp_path / "cache"
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"cache: {{dir: {folder}}}\n")
    src = REPO / "sample_transcripts" / "coding-session.jsonl"
    summary = "<summary>\nThe user asked for a fix; it is done.\n</summary>"

    def run(n: int) -> tuple[dict[str, object], str]:
        remote.enqueue(reply(summary))
        out, rep = tmp_path / f"{n}.jsonl", tmp_path / f"{n}.json"
        result = CliRunner().invoke(
            app,
            [
                "run",
                str(src),
                "--model",
                "openai:gpt-4o-mini",
                "--force",
                "-o",
                str(out),
                "--report",
                str(rep),
                "-c",
                str(cfg),
            ],
        )
        assert result.exit_code == 0, result.output
        return json.loads(rep.read_text()), result.stderr

    first, _ = run(1)  # a private folder: the reply is stored
    assert first["cache"]["stores"] == 1 and len(remote.requests) == 1  # type: ignore[index]
    folder.chmod(0o777)  # now anyone could plant an entry there
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    second, err = run(2)
    assert len(remote.requests) == 2, "an entry of an unsafe folder was served"
    why = f"folder {str(folder)!r} can be written by other users (mode 0777, no sticky bit)"
    assert err.count("summary cache not used") == 1
    assert f"compact: summary cache not used: {why}" in err
    assert second["cache"] == {"dir": str(folder), "refused": why}
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before  # nothing written
    events = tmp_path / "e.jsonl"
    remote.enqueue(reply(summary))
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            "--model",
            "openai:gpt-4o-mini",
            "--force",
            "-o",
            str(tmp_path / "3.jsonl"),
            "--events",
            str(events),
            "-c",
            str(cfg),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    kinds = [json.loads(line) for line in events.read_text().splitlines()]
    assert {"type": "cache_refused", "directory": str(folder), "reason": why} in kinds
    # a batch says it once, for all its files
    (tmp_path / "outs").mkdir()
    remote.enqueue(reply(summary), reply(summary))
    batch = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            str(REPO / "sample_transcripts" / "coding-session-long.jsonl"),
            "--output-dir",
            str(tmp_path / "outs"),
            "--model",
            "openai:gpt-4o-mini",
            "--force",
            "-c",
            str(cfg),
        ],
    )
    assert batch.exit_code == 0, batch.output
    assert batch.stderr.count(f"compact: summary cache not used: {why}") == 1
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before


def test_a_symlink_planted_at_a_cache_fanout_folder_is_never_followed(tmp_path: Path) -> None:
    from compactor.schema import Message

    cache = SummaryCache(tmp_path / "cache")
    key = "ab" + "0" * 62
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache").mkdir(mode=0o700)
    (tmp_path / "cache" / "ab").symlink_to(elsewhere)
    cache.put(key, "m", Message("assistant", "<summary>x</summary>"))
    assert list(elsewhere.iterdir()) == [] and cache.errors == 1 and cache.stores == 0
    # an entry someone put behind the link is not read either
    real = SummaryCache(tmp_path / "real")
    real.put(key, "m", Message("assistant", "<summary>planted</summary>"))
    shutil.copy(real.path(key), elsewhere / f"{key}.json")
    assert cache.get(key, Message) is None
    assert cache.path(key).parent.is_symlink()
    # a symlink at the entry's own path: replaced by the entry, its target never written
    target = tmp_path / "target.json"
    target.write_text("precious\n")
    target.chmod(0o644)
    real.path(key).unlink()
    real.path(key).symlink_to(target)
    assert real.get(key, Message) is None
    real.put(key, "m", Message("assistant", "<summary>new</summary>"))
    assert not real.path(key).is_symlink() and stat.S_IMODE(real.path(key).stat().st_mode) == 0o600
    assert target.read_text() == "precious\n" and stat.S_IMODE(target.stat().st_mode) == 0o644


# -- points 7 and 8: a signal at the events or archive rename ---------------------------------


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_signal_at_the_events_rename_leaves_no_temp_and_is_reported(
    tmp_path: Path, side: str
) -> None:
    work, side_dir = tmp_path / "work", tmp_path / "ev"
    work.mkdir()
    side_dir.mkdir()
    src = work / "s.jsonl"
    _session(src)
    out, events, report = work / "out.jsonl", side_dir / "run.ev.jsonl", tmp_path / "r.json"
    marker = tmp_path / "held"
    argv, env = held(
        [
            "run",
            str(src),
            "-o",
            str(out),
            "--force",
            "--model",
            "local",
            "-q",
            "--events",
            str(events),
            "--report",
            str(report),
        ],
        side,
        events,
        marker,
    )
    proc = subprocess.Popen(
        argv,
        env=child_env(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    wait_for(marker, proc)
    proc.send_signal(signal.SIGTERM)
    _, raw_err = proc.communicate(timeout=30)
    err = raw_err.decode(errors="replace")
    assert proc.returncode == 143, err
    assert temps(side_dir) == [], "the events temp file was left behind"
    rep = json.loads(report.read_text())
    assert rep["error"] == "interrupted by SIGTERM"
    last = err.strip().splitlines()[-1]
    if side == "before":
        assert not events.exists()
        assert rep["not_written"] == {"events": str(events)}
        assert "events" not in rep["written"]
        assert last == (
            f"compact: interrupted by SIGTERM; written: output {out}; not written: events {events}"
        )
    else:
        lines = [json.loads(line) for line in events.read_text().splitlines()]
        assert lines[-1]["type"] == "run_finished"
        assert rep["written"]["events"] == str(events)
        assert "events" not in rep["not_written"]
        assert last == f"compact: interrupted by SIGTERM; written: output {out}"


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_signal_at_the_archive_rename_is_reported_truthfully(tmp_path: Path, side: str) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    src = tmp_path / "s.jsonl"
    original = _session(src)
    report = tmp_path / "r.json"
    marker = tmp_path / "held"
    argv, env = held(
        [
            "run",
            str(src),
            "--in-place",
            "--force",
            "--model",
            "local",
            "-q",
            "-c",
            str(_config(tmp_path, archive)),
            "--report",
            str(report),
        ],
        side,
        archive,
        marker,
    )
    proc = subprocess.Popen(
        argv,
        env=child_env(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    wait_for(marker, proc)
    proc.send_signal(signal.SIGTERM)
    _, raw_err = proc.communicate(timeout=30)
    err = raw_err.decode(errors="replace")
    assert proc.returncode == 143, err
    last = err.strip().splitlines()[-1]
    rep = json.loads(report.read_text())
    entry = _entry(archive, original)
    assert temps(archive) == []
    assert src.read_bytes() == original
    if side == "before":
        assert not entry.exists()
        assert last == "compact: interrupted by SIGTERM; nothing was written"
        assert rep["archive"] is None and "archive" not in rep["written"]
    else:
        assert entry.read_bytes() == original
        assert last == f"compact: interrupted by SIGTERM; written: archive {entry}"
        assert rep["archive"] == rep["written"]["archive"] == str(entry)


# -- point 12: a relative archive_dir is relative to the config file --------------------------


def test_a_relative_archive_dir_is_relative_to_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf_dir, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    conf_dir.mkdir()
    elsewhere.mkdir()
    cfg = conf_dir / "c.yaml"
    cfg.write_text("archive_dir: kept/originals\ncache: {dir: cache}\n")
    src = tmp_path / "s.jsonl"
    original = _session(src)
    monkeypatch.chdir(elsewhere)
    run = CliRunner().invoke(
        app, ["run", str(src), "--in-place", "--force", "--model", "local", "-c", "../conf/c.yaml"]
    )
    assert run.exit_code == 0, run.output
    archive = conf_dir / "kept" / "originals"
    assert _entry(archive, original).read_bytes() == original
    assert list(elsewhere.iterdir()) == []
    listed = CliRunner().invoke(app, ["archive", "list", "-c", "../conf/c.yaml"])
    assert listed.stdout.splitlines()[-1].endswith(f" in {archive}")
    shown = CliRunner().invoke(app, ["config", "show", "-c", "../conf/c.yaml", "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["archive_dir"] == str(archive)


# -- point 13: a file named twice in an --in-place batch runs once ----------------------------


def test_an_in_place_batch_compacts_a_file_named_twice_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "archive"
    archive.mkdir(mode=0o700)
    work = tmp_path / "work"
    work.mkdir()
    original = _session(work / "a.jsonl")
    (work / "link.jsonl").symlink_to("a.jsonl")
    monkeypatch.chdir(work)
    report = tmp_path / "batch.json"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "a.jsonl",
            "./a.jsonl",
            "link.jsonl",
            str(work / "a.jsonl"),
            "--in-place",
            "--force",
            "--model",
            "local",
            "-c",
            str(_config(tmp_path, archive)),
            "--report",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert [f["input"] for f in data["files"]] == ["a.jsonl"]
    totals = data["totals"]
    assert (totals["files"], totals["compacted"]) == (1, 1)
    assert totals["tokens_before"] == data["files"][0]["tokens_before"]
    # compacted once: only the original was archived (a second run would archive the compaction)
    assert [p.name for p in archive.glob("[!.]*")] == [_entry(archive, original).name]
    assert (work / "link.jsonl").is_symlink()


# -- point 14: a report or events file is never more readable than its input ------------------


def test_reports_and_events_are_never_more_readable_than_the_input(tmp_path: Path) -> None:
    src = tmp_path / "s.jsonl"
    _session(src)
    src.chmod(0o600)
    report, events, out = tmp_path / "r.json", tmp_path / "e.jsonl", tmp_path / "o.jsonl"
    report.write_text("{}\n")
    report.chmod(0o644)  # an earlier, readable report is replaced by a private one
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            "-o",
            str(out),
            "--force",
            "--model",
            "local",
            "--report",
            str(report),
            "--events",
            str(events),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text())["triggered"] is True
    for path in (report, events, out):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    # a batch report holds every file's report: no more readable than the least readable input
    other = tmp_path / "t.jsonl"
    _session(other)
    other.chmod(0o640)
    batch_report = tmp_path / "batch.json"
    (tmp_path / "outs").mkdir()
    batch = CliRunner().invoke(
        app,
        [
            "run",
            str(src),
            str(other),
            "--output-dir",
            str(tmp_path / "outs"),
            "--force",
            "--model",
            "local",
            "--report",
            str(batch_report),
        ],
    )
    assert batch.exit_code == 0, batch.output
    assert stat.S_IMODE(batch_report.stat().st_mode) == 0o600
