"""Claude Code records of a type the reader does not know, read by their shape (RELIABILITY,
Decisions: the issue-15 rule narrowed after blind check 5).

Claude Code adds metadata record types often (2.1.158: ``agent-name``, ``pr-link``, ...; 2.1.197
writes ``relocated``, ``frame-link``, ``attribution-snapshot`` and more) and itself treats every
record that is not ``user``/``assistant``/``attachment``/``system`` as metadata. So a record of
an unknown type **without** a ``message`` is kept verbatim where it is, counted nowhere, and
reported once per type as a warning naming the type and its first line; one **with** a
``message`` (conversation we cannot interpret) still refuses the file (exit 2, the line and the
field named, nothing written). ``check``, ``run``, ``run --append`` and ``run --strategy
reduce`` behave the same way.
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

RUNS = {
    "run": ["run", "--model", "local", "--force"],
    "append": ["run", "--model", "local", "--force", "--append"],
    "reduce": ["run", "--strategy", "reduce", "--force"],
    "hybrid": ["run", "--strategy", "hybrid", "--model", "local", "--force"],
}


def _session(tmp_path: Path, *extra: tuple[int, dict[str, Any]]) -> tuple[Path, bytes]:
    """tokenforge with each ``(index, record)`` inserted before its line ``index`` (0-based
    among the original lines, inserted from the last)."""
    lines = shared_file(TOKENFORGE).read_bytes().splitlines(keepends=True)
    for index, rec in sorted(extra, key=lambda e: -e[0]):
        lines.insert(index, orjson.dumps(rec) + b"\n")
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"".join(lines))
    return src, src.read_bytes()


def _sid() -> str:
    first = shared_file(TOKENFORGE).read_text("utf-8").splitlines()
    return str(next(json.loads(x)["sessionId"] for x in first if '"sessionId"' in x))


def _metadata(tmp_path: Path) -> tuple[Path, bytes, list[bytes]]:
    sid = _sid()
    frame = {"type": "frame-link", "frameUrl": "https://example.invalid/f", "sessionId": sid}
    latch = {"type": "isolation-latch", "latched": True, "sessionId": sid}
    src, raw = _session(tmp_path, (3, frame), (40, latch), (60, frame))
    return src, raw, [orjson.dumps(frame), orjson.dumps(latch)]


def _warnings(stderr: bytes) -> list[str]:
    return [x for x in stderr.decode().splitlines() if x.startswith("compact: warning:")]


EXPECTED = [
    "compact: warning: {src}:4: unknown claude-code record type 'frame-link' (2 records, the "
    "first here) has no message: kept as it is, as metadata",
    "compact: warning: {src}:42: unknown claude-code record type 'isolation-latch' has no "
    "message: kept as it is, as metadata",
]


def test_check_keeps_an_unknown_metadata_type_counts_nothing_for_it_and_warns(
    tmp_path: Path,
) -> None:
    src, _, _ = _metadata(tmp_path)
    plain = invoke(["check", str(shared_file(TOKENFORGE))])
    proc = invoke(["check", str(src)])
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [e.format(src=src) for e in EXPECTED]
    # the same verdict, messages and tokens as the session without those records
    ours = proc.stdout.decode().split(": ", 1)[1]
    theirs = plain.stdout.decode().split(": ", 1)[1]
    assert ours == theirs
    assert not _warnings(plain.stderr)
    as_json = invoke(["check", "--json", str(src)])
    assert as_json.returncode == 0
    json.loads(as_json.stdout)  # stdout stays one JSON object; the warning is on stderr
    assert len(_warnings(as_json.stderr)) == 2
    explained = invoke(["check", "--explain", str(src)])
    assert explained.returncode == 0
    assert _warnings(explained.stderr) == [e.format(src=src) for e in EXPECTED]


def test_a_batch_run_warns_for_each_file(tmp_path: Path) -> None:
    """``compact run A B`` (a batch) shows the warning without ``-v``, once per file and type."""
    src, raw, _ = _metadata(tmp_path)
    other = tmp_path / "other.jsonl"
    other.write_bytes(raw)
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), str(other)])
    assert proc.returncode == 0, proc.stderr
    warned = sorted(_warnings(proc.stderr))
    want = [e.format(src=p) for p in (src, other) for e in EXPECTED]
    assert warned == sorted(want)
    quiet = invoke(["run", "-q", "--strategy", "reduce", "--force", str(src), str(other)])
    assert quiet.returncode == 0 and not _warnings(quiet.stderr)


@pytest.mark.parametrize("how", list(RUNS))
def test_run_append_reduce_keep_unknown_metadata_verbatim_and_warn_once_per_type(
    how: str, tmp_path: Path
) -> None:
    src, raw, records = _metadata(tmp_path)
    out, events = tmp_path / "out.jsonl", tmp_path / "events.jsonl"
    threshold = ["--threshold", "12000"] if how == "hybrid" else []
    proc = invoke([*RUNS[how], *threshold, str(src), "-o", str(out), "--events", str(events)])
    assert proc.returncode == 0, proc.stderr
    assert src.read_bytes() == raw  # the input is untouched
    assert _warnings(proc.stderr) == [e.format(src=src) for e in EXPECTED]
    noted = [e for e in map(json.loads, events.read_text().splitlines()) if "record_type" in e]
    assert [(e["type"], e["record_type"], e["line"], e["count"]) for e in noted] == [
        ("unknown_records", "frame-link", 4, 2),
        ("unknown_records", "isolation-latch", 42, 1),
    ]
    written = out.read_bytes()
    frame, latch = records
    # every one kept (never only the latest, as for the known session metadata)
    assert written.count(frame) == 2 and written.count(latch) == 1
    if how in ("append", "reduce"):  # the file as it is, records in place
        lines = written.splitlines()
        assert lines[3] == frame and lines[41] == latch
    if how == "append":
        assert written.startswith(raw)


@pytest.mark.parametrize("how", ["check", *RUNS])
def test_an_unknown_type_with_a_message_still_refuses_the_file(how: str, tmp_path: Path) -> None:
    """Conversation content compact cannot interpret: exit 2 naming the line and the field,
    nothing written, the input untouched."""
    body = {"role": "assistant", "content": "draft"}
    rec = {"type": "assistant-draft", "uuid": "u-draft", "sessionId": _sid(), "message": body}
    src, raw = _session(tmp_path, (10, rec))
    out = tmp_path / "out.jsonl"
    args = ["check", str(src)] if how == "check" else [*RUNS[how], str(src), "-o", str(out)]
    proc = invoke(args)
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.decode()
    assert (
        f"compact: {src}:11: field 'type': unknown claude-code record type 'assistant-draft': "
        "compact reads no record it does not know"
    ) in err
    assert not _warnings(proc.stderr)
    assert not out.exists() and src.read_bytes() == raw
