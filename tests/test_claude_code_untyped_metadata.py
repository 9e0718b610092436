"""A record with no ``type`` at all (an extractor's own header such as hive-mind's
``{"_type": "hive-mind-meta", ...}``) before or among Claude Code records (blind check 10).

It holds no key of a message of any format, so it is metadata, as an unknown ``type`` without a
``message`` is (``test_claude_code_unknown_records``): kept verbatim in place in every output
mode, counted nowhere, reported by one warning; detection still picks Claude Code. A file of
such records only, or an untyped record that carries a ``message``, is refused as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from .conftest import shared_file
from .fake_server_cli import invoke

TOKENFORGE = "claude-code/tokenforge-grant-session.jsonl"
META: dict[str, Any] = {
    "_type": "hive-mind-meta",
    "version": "0.1",
    "sessionId": "dd381a75-8ab9-47f2-8af2-fbee06a8f556",
    "extractedAt": "2026-01-09T04:48:30.689Z",
    "messageCount": 401,
}
RUNS = {
    "run": ["run", "--model", "local", "--force"],
    "append": ["run", "--model", "local", "--force", "--append"],
    "reduce": ["run", "--strategy", "reduce", "--force"],
    "hybrid": [
        "run",
        "--strategy",
        "hybrid",
        "--model",
        "local",
        "--force",
        "--threshold",
        "12000",
    ],
}


def _session(tmp_path: Path, *extra: tuple[int, dict[str, Any]]) -> tuple[Path, bytes]:
    lines = shared_file(TOKENFORGE).read_bytes().splitlines(keepends=True)
    for index, rec in sorted(extra, key=lambda e: -e[0]):
        lines.insert(index, orjson.dumps(rec) + b"\n")
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"".join(lines))
    return src, src.read_bytes()


def _warnings(stderr: bytes) -> list[str]:
    return [x for x in stderr.decode().splitlines() if x.startswith("compact: warning:")]


def _warning(src: Path, line: int, more: str = "") -> str:
    return (
        f"compact: warning: {src}:{line}: unknown claude-code record type '(no type)'{more} "
        "has no message: kept as it is, as metadata"
    )


def test_check_reads_a_session_led_by_an_untyped_record_counts_nothing_and_warns(
    tmp_path: Path,
) -> None:
    src, _ = _session(tmp_path, (0, META))
    plain = invoke(["check", str(shared_file(TOKENFORGE))])
    for args in (["check", str(src)], ["check", "--format", "claude-code", str(src)]):
        proc = invoke(args)
        assert proc.returncode == 0, proc.stderr
        assert _warnings(proc.stderr) == [_warning(src, 1)]
        ours = proc.stdout.decode().split(": ", 1)[1]
        assert ours == plain.stdout.decode().split(": ", 1)[1]  # same messages and tokens
        assert "claude-code" in ours


@pytest.mark.parametrize("how", list(RUNS))
def test_every_mode_keeps_untyped_records_verbatim_in_place_with_one_warning(
    how: str, tmp_path: Path
) -> None:
    src, raw = _session(tmp_path, (0, META), (30, META))
    out = tmp_path / "out.jsonl"
    proc = invoke([*RUNS[how], str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == raw
    assert _warnings(proc.stderr) == [_warning(src, 1, " (2 records, the first here)")]
    written = out.read_bytes()
    lines = written.splitlines()
    assert lines[0] == orjson.dumps(META)  # the header stays the first line
    assert written.count(orjson.dumps(META)) == 2  # every one kept, never merged
    if how in ("append", "reduce"):
        assert lines[31] == orjson.dumps(META)  # before original line 30, after the head
    if how == "append":
        assert written.startswith(raw)
    evaluated = invoke(["eval", "--json", str(src), str(out)])
    assert evaluated.returncode == 0, evaluated.stderr
    json.loads(evaluated.stdout)


def test_a_file_of_untyped_records_only_is_still_refused(tmp_path: Path) -> None:
    src = tmp_path / "meta.jsonl"
    src.write_bytes(orjson.dumps(META) + b"\n" + orjson.dumps({**META, "n": 2}) + b"\n")
    proc = invoke(["check", str(src)])
    assert proc.returncode == 2
    assert "not a transcript format compact knows" in proc.stderr.decode()


@pytest.mark.parametrize("how", ["check", *RUNS])
def test_an_untyped_record_with_a_message_still_refuses_the_file(how: str, tmp_path: Path) -> None:
    body = {"role": "assistant", "content": "draft"}
    src, raw = _session(tmp_path, (0, {"_type": "draft", "message": body}))
    out = tmp_path / "out.jsonl"
    args = ["check", str(src)] if how == "check" else [*RUNS[how], str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 2, proc.stderr
    assert (
        f"compact: {src}:1: field 'type': must be a string in a claude-code transcript"
        in proc.stderr.decode()
    )
    assert not out.exists() and src.read_bytes() == raw


CODEX = "codex/soul-grant-rollout.jsonl"


@pytest.mark.parametrize("how", ["check", *RUNS])
def test_a_codex_rollout_led_by_an_untyped_record_is_read_and_keeps_it_first(
    how: str, tmp_path: Path
) -> None:
    """Codex too: the header is kept first (shrink keeps it before ``session_meta``; append and
    reduce write the file's own lines), one warning, detection still says codex."""
    raw = orjson.dumps(META) + b"\n" + shared_file(CODEX).read_bytes()
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(raw)
    out = tmp_path / "out.jsonl"
    args = ["check", str(src)] if how == "check" else [*RUNS[how], str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == raw
    warning = _warning(src, 1).replace("claude-code", "codex")
    assert _warnings(proc.stderr) == [warning]
    if how == "check":
        assert "codex" in proc.stdout.decode()
        return
    written = out.read_bytes()
    assert written.splitlines()[0] == orjson.dumps(META)
    assert written.count(b"hive-mind-meta") == 1
