"""``compact`` reads back its own Claude Code output when records no format claims head it
(RELIABILITY, Claude Code records after blind check 6, row 330).

Claude Code 2.1.220 writes ``file-history-delta`` records (no ``message``, no ``sessionId``):
a type no reader knows, kept as metadata. A shrunk output puts its kept metadata first, so a
session with many of them starts with more than the 50 records detection used to look at, none
of which a format claims: ``check``/``show``/``eval`` exited 2 "not a transcript format compact
knows". Detection now reads on (up to ``SNIFF_LIMIT`` lines) while no format claims any record.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from compactor.errors import TranscriptError
from compactor.formats import registry
from compactor.formats.registry import KNOWN_FORMATS, SNIFF_RECORDS, detect_format

from .cc_session import delta, work_session
from .fake_server_cli import invoke

RUNS = {
    "summarize": ["run", "--model", "local", "--force"],
    "hybrid": ["run", "--strategy", "hybrid", "--model", "local", "--force", "--threshold", "3000"],
    "reduce": ["run", "--strategy", "reduce", "--force"],
}


def _session(tmp_path: Path, n: int = 100) -> Path:
    """The work session with ``n`` leading ``file-history-delta`` records."""
    lines = [orjson.dumps(delta(i)) for i in range(n)] + work_session().lines()
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    return src


@pytest.mark.parametrize("how", list(RUNS))
def test_check_show_eval_read_a_compacted_output_headed_by_unknown_metadata(
    how: str, tmp_path: Path
) -> None:
    src = _session(tmp_path)
    out = tmp_path / "out.jsonl"
    proc = invoke([*RUNS[how], str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    written = out.read_bytes().splitlines()
    head = [json.loads(x).get("type") for x in written[: SNIFF_RECORDS + 1]]
    assert head == ["file-history-delta"] * (SNIFF_RECORDS + 1)  # the case that failed
    assert sum(b'"file-history-delta"' in x for x in written) == 100
    assert detect_format(str(out), out.read_bytes()) == "claude-code"
    check = invoke(["check", str(out)])
    assert check.returncode == 0, check.stderr
    assert b"not a transcript format" not in check.stderr
    forced = invoke(["check", "--format", "claude-code", str(out)])
    assert check.stdout == forced.stdout
    ev = invoke(["eval", "--json", str(src), str(out)])
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["format"] == "claude-code"
    show = invoke(["show", "--raw", str(out)])
    if how == "reduce":  # read as claude-code; nothing summarized: show lists what was cleared
        assert show.returncode == 0, show.stderr
        assert f"Offload folder: {out.with_suffix('.offload')}".encode() in show.stdout
    else:
        assert show.returncode == 0, show.stderr
        assert b"Now add a filter by site" in show.stdout


def test_check_reads_a_session_headed_by_unknown_metadata_in_full_and_streamed(
    tmp_path: Path,
) -> None:
    src = _session(tmp_path, 500)
    proc = invoke(["check", "--json", str(src)])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["format"] == "claude-code"
    assert b"'file-history-delta' (500 records" in proc.stderr  # the warning, once


def test_a_file_no_format_claims_is_still_refused_and_detection_stops_at_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only = tmp_path / "only.jsonl"
    only.write_bytes(b"\n".join(orjson.dumps(delta(i)) for i in range(300)) + b"\n")
    proc = invoke(["check", str(only)])
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        f"compact: {only}: not a transcript format compact knows; it reads {KNOWN_FORMATS} "
        "(use --format to force one)\n"
    )
    # a conversation past the limit is not looked for (detection stays bounded)
    monkeypatch.setattr(registry, "SNIFF_LIMIT", 400)
    head = b"".join(orjson.dumps(delta(i)) + b"\n" for i in range(400))
    far = head + b"\n".join(work_session().lines())
    with pytest.raises(TranscriptError, match="not a transcript format compact knows"):
        detect_format("far", far)
    near = head[: head.index(b"\n", len(head) // 2) + 1] + b"\n".join(work_session().lines())
    assert detect_format("near", near) == "claude-code"


def test_files_detection_claimed_before_are_detected_as_before() -> None:
    chat = b'{"role":"user","content":"hi"}\n' * 60 + b'{"role":"assistant","content":"yo"}\n'
    assert detect_format("c", chat) == "openai"
    cc = b"\n".join(work_session().lines())
    assert detect_format("cc", cc) == "claude-code"
