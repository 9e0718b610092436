"""OpenAI-chat logs after blind check 8 (RELIABILITY rows 380+).

A real agent log (agentj) starts with a session-metadata record ``{"role": "metadata",
"created_at": ...}`` and writes LangChain's own tool-call shape ``{"name", "args", "id", "type":
"tool_call"}`` in ``tool_calls``. The metadata record made the whole log unreadable (exit 2,
"unknown openai role 'metadata'"); the LangChain calls were read with an empty name and empty
arguments ("Tools used:  (1×)"). Now a ``metadata`` record without conversational content is
kept verbatim in place, counted nowhere, reported by one warning; another unknown role (or a
``metadata`` record with content) is still refused; a LangChain call is read by its keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.schema import Message

from .fake_server_cli import invoke

META: dict[str, Any] = {
    "role": "metadata",
    "created_at": "2026-05-20T16:23:13",
    "last_consolidated": 0,
    "updated_at": "2026-05-20T16:38:53",
}
META_LINE = json.dumps(META).encode()


def _rounds(n: int) -> list[dict[str, Any]]:
    """``n`` rounds: a request, a LangChain-style ``list_dir`` call, its long result, an answer."""
    recs: list[dict[str, Any]] = []
    for i in range(n):
        listing = "\n".join(f"file_{i}_{k}.csv  {k * 1024} bytes" for k in range(60))
        call = {
            "name": "list_dir",
            "args": {"path": f"/srv/data/part{i}"},
            "id": f"call_{i}",
            "type": "tool_call",
        }
        recs += [
            {"role": "user", "content": f"Step {i}: look into /srv/data/part{i} and report."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": listing},
            {"role": "assistant", "content": f"Part {i} holds 60 CSV files."},
        ]
    return recs


def _write(tmp_path: Path, recs: list[dict[str, Any]], name: str = "agent.jsonl") -> Path:
    src = tmp_path / name
    src.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in recs))
    return src


def _warnings(stderr: bytes) -> list[str]:
    return [x for x in stderr.decode().splitlines() if x.startswith("compact: warning:")]


def _expected_warning(src: Path, line: int = 1) -> str:
    return (
        f"compact: warning: {src}:{line}: unknown openai record type 'metadata' has no "
        "message: kept as it is, as metadata"
    )


def test_check_reads_a_log_led_by_a_metadata_record_counts_nothing_for_it_and_warns(
    tmp_path: Path,
) -> None:
    plain = _write(tmp_path, _rounds(3), "plain.jsonl")
    src = _write(tmp_path, [META, *_rounds(3)])
    before = src.read_bytes()
    for args in (["check", str(src)], ["check", "--format", "openai", str(src)]):
        proc = invoke(args)
        assert proc.returncode == 0, proc.stderr
        assert _warnings(proc.stderr) == [_expected_warning(src)]
        # detected as openai; the same messages and tokens as without the record
        expected = invoke(["check", str(plain)]).stdout.decode().replace(str(plain), str(src))
        assert proc.stdout.decode() == expected
        assert "openai, 12 messages" in proc.stdout.decode()
    assert src.read_bytes() == before  # input never modified
    # the metadata record is no message; the file's records still hold it
    t = read_transcript(str(src), before)
    assert t.format == "openai"
    assert len(t.messages) == 12
    assert t.records[0] == META
    assert all(m.role != "metadata" for m in t.messages)


def test_summarize_run_keeps_the_metadata_record_first_byte_identical_and_eval_reads_both(
    tmp_path: Path,
) -> None:
    src = _write(tmp_path, [META, *_rounds(12)])
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [_expected_warning(src)]
    lines = out.read_bytes().splitlines()
    assert lines[0] == META_LINE
    assert lines.count(META_LINE) == 1
    summary = json.loads(lines[1])
    assert summary["role"] == "user"
    # the LangChain-style calls are read with their name: the summary lists the tool
    assert "Tools used: list_dir (12×)" in summary["content"]
    assert "/srv/data/part11" in out.read_text("utf-8")
    ev = invoke(["eval", "--json", str(src), str(out)])
    assert ev.returncode == 0, ev.stderr
    assert json.loads(ev.stdout)["score"] > 0


def test_reduce_keeps_metadata_records_in_place_and_langchain_calls_verbatim(
    tmp_path: Path,
) -> None:
    rounds = _rounds(12)
    late = {"role": "metadata", "updated_at": "2026-05-20T17:00:00"}
    src = _write(tmp_path, [META, *rounds[:20], late, *rounds[20:]])
    original = src.read_bytes().splitlines()
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--strategy", "reduce", "--force", str(src), "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert _warnings(proc.stderr) == [
        _expected_warning(src).replace(" has no", " (2 records, the first here) has no")
    ]
    assert "results cleared" in proc.stderr.decode()  # the reduction did change results
    lines = out.read_bytes().splitlines()
    assert len(lines) == len(original)
    assert lines[0] == original[0] == META_LINE
    assert lines[21] == original[21] == json.dumps(late).encode()  # in place
    # every assistant record with a LangChain call is written back byte for byte
    calls = [ln for ln in original if b'"type": "tool_call"' in ln]
    assert len(calls) == 12
    assert all(ln in lines for ln in calls)
    assert any(a != b for a, b in zip(original, lines, strict=True))  # results were cleared


def test_langchain_tool_calls_are_read_with_their_name_arguments_and_id(tmp_path: Path) -> None:
    src = _write(tmp_path, _rounds(1))
    t = read_transcript(str(src), src.read_bytes())
    msg = t.messages[1]
    assert isinstance(msg, Message)
    (call,) = msg.tool_calls
    assert call.name == "list_dir"
    assert call.id == "call_0"
    assert json.loads(call.arguments) == {"path": "/srv/data/part0"}
    # the result is paired with its call's tool
    proc = invoke(["check", "--json", str(src)])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["tool_calls"] == 1
    assert doc["tool_results"] == 1


def test_another_unknown_role_is_still_refused(tmp_path: Path) -> None:
    src = _write(tmp_path, [*_rounds(1), {"role": "observer", "note": "x"}])
    before = src.read_bytes()
    out = tmp_path / "out.jsonl"
    roles = "(its roles: system, developer, user, assistant, tool, function)"
    for args in (
        ["check", str(src)],
        ["run", "--strategy", "reduce", "--force", str(src), "-o", str(out)],
        ["run", "--model", "local", "--force", str(src), "-o", str(out)],
    ):
        proc = invoke(args)
        assert proc.returncode == 2, proc.stderr
        assert f"compact: {src}:5: field 'role': unknown openai role 'observer' {roles}" in (
            proc.stderr.decode()
        )
        assert not out.exists()
    assert src.read_bytes() == before


def test_a_metadata_record_with_content_is_a_message_of_an_unknown_role_refused(
    tmp_path: Path,
) -> None:
    src = _write(tmp_path, [{"role": "metadata", "content": "you are ..."}, *_rounds(1)])
    proc = invoke(["check", str(src)])
    assert proc.returncode == 2
    assert f"compact: {src}:1: field 'role': unknown openai role 'metadata'" in (
        proc.stderr.decode()
    )
    assert _warnings(proc.stderr) == []
