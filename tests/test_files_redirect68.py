"""A shell redirection is no operand of ``mv``/``cp``, and a later ``rm -rf DIR`` deletes the
files recorded inside DIR (blind check 68 W6: ``mv app/.* . 2>/dev/null || true`` made
"/home/…/2>/dev/null/…/README.md (edited, then moved …)", and a later ``rm -rf`` of the folder
the edited docs were in left them listed as changed files that still exist)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compactor.facts.shellwrap import without_redirections

from .cc_session import Session, cc_summary, section

HOME = "/home/dev/board"


def _edit(s: Session, path: str) -> None:
    s.call("Read", {"file_path": path}, "     1→# Title\n     2→progress: 75%")
    args = {"file_path": path, "old_string": "75%", "new_string": "90%"}
    s.call("Edit", args, f"The file {path} has been updated.")


def _session() -> Session:
    s = Session()
    s.user("Move the web app to the project root and drop the old folders.")
    _edit(s, f"{HOME}/web/README.md")
    _edit(s, f"{HOME}/notes/log.md")
    s.bash("mv web/* . && mv web/.* . 2>/dev/null || true", "")
    s.bash("rm -rf web notes", "")
    return s


def test_a_redirection_is_no_move_destination(tmp_path: Path) -> None:
    files = section(cc_summary(_session(), tmp_path), 3)
    assert "2>" not in files and "/dev/null" not in files, files
    assert f"{HOME}/README.md (edited, then moved from {HOME}/web/README.md" in files, files


def test_a_later_rm_rf_deletes_the_files_recorded_inside(tmp_path: Path) -> None:
    summary = cc_summary(_session(), tmp_path)
    files = section(summary, 3)
    assert f"{HOME}/notes/log.md (edited, then deleted by Bash" in files, files
    assert f"{HOME}/notes/log.md (deleted)" in section(summary, 8)


def test_a_copy_with_a_redirection_names_its_destination(tmp_path: Path) -> None:
    s = Session()
    s.user("Set up the local config.")
    s.bash("cp config.example.json config.json 2>/dev/null", "")
    s.say("config.json is in place.")
    assert f"{HOME}/config.json" in section(cc_summary(s, tmp_path), 3)


@pytest.mark.parametrize(
    ("words", "kept"),
    [
        (["mv", "a/.*", ".", "2>/dev/null"], ["mv", "a/.*", "."]),
        (["cp", "a", "b", ">", "log.txt", "2>&1"], ["cp", "a", "b"]),
        (["mv", "a", "b", "&>", "/dev/null"], ["mv", "a", "b"]),
        (["rm", "-v", "x", ">>out.log"], ["rm", "-v", "x"]),
        (["sort", "<", "in.txt", "out"], ["sort", "out"]),
        (
            ["install", "/dev/stdin", "/etc/x", "<", "<(vault", "read", "x)"],
            ["install", "/dev/stdin", "/etc/x"],
        ),
        (["diff", "<(sort", "a)", "<(sort", "b)"], ["diff"]),  # process substitutions
        (["echo", "a > b"], ["echo", "a > b"]),  # a quoted word holding ">" is an operand
        (["git", "log", "--format=->%h"], ["git", "log", "--format=->%h"]),
    ],
)
def test_without_redirections(words: list[str], kept: list[str]) -> None:
    assert without_redirections(words) == kept


def test_the_files_a_glob_moved_are_listed_in_the_same_order_every_run(tmp_path: Path) -> None:
    """The known files a ``mv DIR/* .`` carried were taken from a set: their order in section 3
    changed with the interpreter's hash seed (seen on blind check 68's cc_maru_commit)."""
    s = Session()
    s.user("Move the web app to the project root.")
    s.call("Read", {"file_path": f"{HOME}/web/package.json"}, "     1→{}")
    for name in ("README.md", "vercel.json", "tsconfig.json", "next.config.js", "app.md"):
        _edit(s, f"{HOME}/web/{name}")
    s.bash("mv web/* . && mv web/.* . 2>/dev/null || true", "")
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    code = (
        "import sys, hashlib; from compactor.formats.registry import read_transcript; "
        "from compactor.models.local import summarize_transcript; p = sys.argv[1]; "
        "t = read_transcript(p, open(p, 'rb').read()); "
        "print(hashlib.sha256(summarize_transcript(t.messages).encode()).hexdigest())"
    )
    digests = set()
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = [sys.executable, "-c", code, str(path)]
        proc = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        digests.add(proc.stdout.strip())
    assert len(digests) == 1, digests
