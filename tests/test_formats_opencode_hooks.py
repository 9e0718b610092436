"""OpenCode transcripts written by oh-my-opencode's Claude Code-compatible hooks (blind check 66,
format gaps): ``{"type": "user" | "assistant" | "tool_use" | "tool_result", ...}`` per line, no
call ids, no assistant text in the files seen. They were refused as unknown (exit 2 in run, show,
eval and check). Every session here is invented in the test, by shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.errors import TranscriptError
from compactor.facts import entries_of
from compactor.formats.base import Transcript
from compactor.formats.registry import detect_format, read_transcript, write_transcript
from compactor.schema import AgenticMessage, Block, Message

from .fake_server_cli import invoke


def _lines(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _agentic(t: Transcript) -> list[AgenticMessage]:
    out = [m for m in t.messages if isinstance(m, AgenticMessage)]
    assert len(out) == len(t.messages)
    return out


def _at(n: int) -> str:
    return f"2026-04-01T10:{n // 60:02d}:{n % 60:02d}.000Z"


def hook_session(turns: int = 6, in_flight: bool = False) -> list[dict[str, Any]]:
    """Turns of a user request, two parallel reads (results in reverse order), a failed grep
    logged with an empty ``tool_input``, and a sub-agent task whose output is an object."""
    out: list[dict[str, Any]] = []
    n = 0

    def add(rec: dict[str, Any]) -> None:
        nonlocal n
        out.append({"type": rec.pop("type"), "timestamp": _at(n), **rec})
        n += 1

    for i in range(turns):
        add({"type": "user", "content": f"Fix the flaky test in pkg{i}/check_{i}.py"})
        reads = [{"filePath": f"/w/pkg{i}/check_{i}.py"}, {"filePath": f"/w/pkg{i}/util.py"}]
        grep = {"pattern": f"retry_{i}", "path": "/w"}
        task = {"subagent_type": "explore", "prompt": f"Find callers of retry_{i}"}
        for args in reads:
            add({"type": "tool_use", "tool_name": "read", "tool_input": args})
        add({"type": "tool_use", "tool_name": "grep", "tool_input": grep})
        add({"type": "tool_use", "tool_name": "task", "tool_input": task})
        body = "\n".join(f"{j}: line {j} of pkg{i}" for j in range(80))
        for args in reversed(reads):
            add(
                {
                    "type": "tool_result",
                    "tool_name": "read",
                    "tool_input": args,
                    "tool_output": {"output": body},
                }
            )
        failed = {"output": f"Error: rg: /w/pkg{i}: timeout after 60000ms"}
        add({"type": "tool_result", "tool_name": "grep", "tool_input": {}, "tool_output": failed})
        if in_flight and i == turns - 1:
            break
        agent = {
            "agent": "explore",
            "sessionId": f"ses_{i}",
            "output": f"retry_{i} is called twice",
        }
        add({"type": "tool_result", "tool_name": "task", "tool_input": task, "tool_output": agent})
    return out


def test_a_hook_transcript_is_detected_and_calls_paired_without_ids() -> None:
    raw = _lines(hook_session(in_flight=True))
    assert detect_format("t.jsonl", raw) == "opencode-hooks"
    t = read_transcript("t.jsonl", raw)
    entries = entries_of(t.messages)
    users = [e.text for e in entries if e.role == "user" and e.text]
    assert users == [f"Fix the flaky test in pkg{i}/check_{i}.py" for i in range(6)]
    calls = {c.id: (c.name, c.arguments) for e in entries for c in e.calls}
    assert len(calls) == 6 * 4
    results = [(r.call_id, r.name) for e in entries for r in e.results]
    assert len(results) == 6 * 4 - 1  # the last task is still in flight
    for call_id, name in results:
        assert calls[call_id][0] == name
    first = [r.call_id for e in entries for r in e.results][:4]
    assert first == ["ohc-3", "ohc-2", "ohc-4", "ohc-5"]  # by input; the failed grep by name
    texts = [
        b.content[0].text for m in _agentic(t) for b in m.blocks if b.type == "function_tool_result"
    ]
    assert texts[3] == "retry_0 is called twice"  # a sub-agent's output object: its output


def test_detection_takes_no_other_formats_file() -> None:
    claude = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
    }
    assert detect_format("c.jsonl", _lines([claude])) == "claude-code"
    chat = {"role": "user", "content": "hi", "type": "user"}
    assert detect_format("o.jsonl", _lines([chat])) == "openai"
    copilot = {"type": "user.message", "data": {"content": "hi"}, "id": "1", "parentId": None}
    assert detect_format("e.jsonl", _lines([copilot])) == "copilot"
    codex = {"type": "response_item", "payload": {"type": "message", "role": "user", "content": []}}
    assert detect_format("r.jsonl", _lines([codex])) == "codex"
    with pytest.raises(TranscriptError):  # a Claude Code record in a hook transcript
        read_transcript("m.jsonl", _lines([*hook_session(1), claude]))


def test_round_trip_read_write_read() -> None:
    raw = _lines(hook_session())
    t = read_transcript("t.jsonl", raw)
    assert write_transcript(t, t.messages) == raw  # unchanged: the same bytes
    tail = t.messages[9:]  # from the second turn's request: one message per record
    written = write_transcript(t, tail)
    assert written == _lines(hook_session()[9:])  # each kept record is its own bytes
    again = read_transcript("t.jsonl", written)

    def shape(messages: list[Any]) -> list[Any]:  # the ids are made up from line numbers
        return [
            (m.role, [(b.type, b.name, b.arguments, b.text, b.content) for b in m.blocks])
            for m in messages
        ]

    assert shape(again.messages) == shape(tail)
    assert write_transcript(again, again.messages) == written


def test_a_result_no_call_claims_is_read_as_its_own_call_and_written_once() -> None:
    records = hook_session(1)
    stray = {
        "type": "tool_result",
        "timestamp": _at(99),
        "tool_name": "bash",
        "tool_input": {"command": "ls"},
        "tool_output": "a\nb",
    }
    records.append(stray)
    raw = _lines(records)
    t = read_transcript("t.jsonl", raw)
    messages = _agentic(t)
    assert [b.type for b in messages[-2].blocks + messages[-1].blocks] == [
        "function_tool_call",
        "function_tool_result",
    ]
    assert messages[-1].blocks[0].content[0].text == "a\nb"  # a string output as it is
    assert write_transcript(t, t.messages) == raw
    cleared: list[Message | AgenticMessage] = list(t.messages)
    call_id = messages[-1].blocks[0].call_id
    text = Block("user_input_text", "[cleared]")
    cleared[-1] = AgenticMessage(
        "user", [Block("function_tool_result", call_id=call_id, name="bash", content=[text])]
    )
    out = write_transcript(t, cleared).decode().splitlines()
    assert len(out) == len(records)  # the stray's call is not written as a record of its own
    assert json.loads(out[-1])["tool_output"] == "[cleared]"


@pytest.mark.parametrize(
    ("change", "line", "field"),
    [
        ({"content": 5}, 1, "content"),
        ({"tool_name": None}, 2, "tool_name"),
        ({"tool_input": "x"}, 2, "tool_input"),
    ],
)
def test_malformed_records_name_file_line_and_field(
    change: dict[str, Any], line: int, field: str
) -> None:
    records = hook_session(1)
    records[line - 1].update(change)
    with pytest.raises(TranscriptError) as caught:
        read_transcript("t.jsonl", _lines(records))
    assert (caught.value.path, caught.value.line, caught.value.field) == ("t.jsonl", line, field)


def test_reduce_keeps_every_user_message_and_call(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    src.write_bytes(_lines(hook_session(30, in_flight=True)))
    out = tmp_path / "out.jsonl"
    run = invoke(["run", str(src), "--strategy", "reduce", "--threshold", "5k", "-o", str(out)])
    assert run.returncode == 0, run.stderr
    before = [json.loads(line) for line in src.read_text().splitlines()]
    after = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(out.read_bytes()) < len(src.read_bytes()) // 2
    keep = ("user", "tool_use")
    assert [r for r in after if r["type"] in keep] == [r for r in before if r["type"] in keep]
    shape = [(r["type"], r.get("tool_name"), r.get("tool_input")) for r in after]
    assert shape == [(r["type"], r.get("tool_name"), r.get("tool_input")) for r in before]
    assert any("persisted-output" in json.dumps(r.get("tool_output")) for r in after)
    assert invoke(["check", str(out), "--threshold", "20k"]).returncode == 0


def test_run_show_eval_and_check(tmp_path: Path) -> None:
    src = tmp_path / "t.jsonl"
    src.write_bytes(_lines(hook_session(30, in_flight=True)))
    check = invoke(["check", str(src), "--threshold", "5k"])
    assert check.returncode == 1, check.stdout + check.stderr  # over the threshold
    assert b"opencode-hooks," in check.stdout
    for strategy in ("summarize", "hybrid"):
        out = tmp_path / f"{strategy}.jsonl"
        args = ["run", str(src), "--strategy", strategy, "--model", "local", "-o", str(out)]
        run = invoke([*args, "--threshold", "5k", "--no-cache"])
        assert run.returncode == 0, run.stderr
        assert read_transcript(str(out), out.read_bytes()).format == "opencode-hooks"
    summary = tmp_path / "summarize.jsonl"
    first = json.loads(summary.read_text().splitlines()[0])
    assert first["type"] == "user" and first["content"].startswith("This session continues")
    assert invoke(["eval", str(src), str(summary)]).returncode == 0
    shown = invoke(["show", str(summary), "--raw"])
    assert shown.returncode == 0 and b"pkg29/check_29.py" in shown.stdout
