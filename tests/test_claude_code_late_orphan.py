"""A late tool result whose call lies before Claude Code's own compaction boundary (blind check
10, a33-hooks): the record stays in the file as it is, but it is no message of the live history
(the client never sends it), so no output keeps or re-emits it as one and no summary reads it as
the session's last action. The real client's view: ``test_resume_clients.py::
test_a_late_result_of_a_call_before_the_clients_own_boundary_is_no_part_of_the_history``."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage

from .conftest import shared_file
from .fake_server_cli import invoke
from .test_resume_clients import ORPHAN_ERROR, _with_late_orphan

TOKENFORGE = "claude-code/tokenforge-grant-session.jsonl"


def _session(tmp_path: Path) -> tuple[Path, str, bytes]:
    src = tmp_path / "session.jsonl"
    call_id = _with_late_orphan(shared_file(TOKENFORGE), src)
    return src, call_id, src.read_bytes().splitlines()[-1]


def test_the_late_result_is_no_message_of_the_history(tmp_path: Path) -> None:
    src, call_id, _ = _session(tmp_path)
    parsed = read_transcript(str(src), src.read_bytes())
    results = [
        b.call_id
        for m in parsed.messages
        if isinstance(m, AgenticMessage)
        for b in m.blocks
        if b.type == "function_tool_result"
    ]
    assert results and call_id not in results
    last = parsed.messages[-1]
    assert last.role == "assistant"  # the answered turn ends the history, not the late result


def test_reduce_and_append_keep_the_record_as_it_is_and_never_as_a_message(
    tmp_path: Path,
) -> None:
    src, call_id, late = _session(tmp_path)
    raw = src.read_bytes()
    out = tmp_path / "reduced.jsonl"
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert late in out.read_bytes().splitlines()  # the input's record, byte for byte
    appended = tmp_path / "appended.jsonl"
    args = ["run", "--strategy", "reduce", "--force", "--append", str(src), "-o", str(appended)]
    proc = invoke(args)
    assert proc.returncode == 0, proc.stderr
    written = appended.read_bytes()
    assert written.startswith(raw)
    tail = written[len(raw) :].decode()
    assert call_id not in tail and ORPHAN_ERROR not in tail  # no re-emitted copy of it
    assert src.read_bytes() == raw


def test_the_summary_never_reads_it_as_the_last_action(tmp_path: Path) -> None:
    src, call_id, _ = _session(tmp_path)
    out = tmp_path / "summary.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    text = "\n".join(
        json.dumps(json.loads(line)) for line in out.read_text("utf-8").splitlines() if line
    )
    assert ORPHAN_ERROR not in text and call_id not in text
