"""Two agent transcript formats a blind check found unread (blind check 51, format gaps).

* ``cursor``: Cursor agent transcripts, ``{"role", "message": {"content": [blocks]}}`` per line,
  were detected as ``openai`` and read as empty messages (0 tokens). They are read as their own
  format: ``<user_query>`` as the user's request, the other wrappers as injected context.
* ``copilot``: GitHub Copilot CLI ``events.jsonl`` was refused as unknown. It is read (user and
  assistant messages, tool requests paired with ``tool.execution_complete`` by ``toolCallId``),
  its housekeeping kept, and written back as Copilot events (the summary as a ``user.message``).

Every session here is invented in the test, by shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.errors import TranscriptError
from compactor.facts import entries_of
from compactor.formats.cursor import split_user_text
from compactor.formats.registry import detect_format, read_transcript, write_transcript
from compactor.models.local import summarize_transcript

from .fake_server_cli import invoke
from .test_golden import _golden, _normalize


def _lines(records: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


# -- invented sessions --------------------------------------------------------------------------


def cursor_session(turns: int = 6) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(turns):
        listing = "\n".join(f"def step{j}(): return {j}" for j in range(30))
        query = (
            f"<attached_files>\n<file path='src/steps{i}.py'>\n{listing}\n</file>\n"
            "</attached_files>\n<documentation_context>\nUse pytest.\n</documentation_context>\n"
            f"<user_query>\nMake step{i} return its double and add a test\n</user_query>"
        )
        out.append({"role": "user", "message": {"content": [{"type": "text", "text": query}]}})
        use = {"type": "tool_use", "id": f"toolu_{i}", "name": "read_file", "input": {"p": i}}
        say = {"type": "text", "text": f"Reading src/steps{i}.py."}
        out.append({"role": "assistant", "message": {"content": [say, use]}})
        body = "\n".join(f"{j}: def step{j}(): return {j}" for j in range(120))
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": body}
        out.append({"role": "user", "message": {"content": [result]}})
        done = {
            "type": "text",
            "text": f"step{i} now returns {2 * i}; tests/test_steps{i}.py added.",
        }
        out.append({"role": "assistant", "message": {"content": [done]}, "model": "m"})
    return out


class _Events:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, data: dict[str, Any], **extra: Any) -> None:
        n = len(self.events) + 1
        parent = self.events[-1]["id"] if self.events else None
        stamp = f"2026-10-01T09:{n // 60:02d}:{n % 60:02d}.000Z"
        event = {"type": kind, "data": data, "id": f"ev-{n:04d}", "timestamp": stamp}
        self.events.append({**event, "parentId": parent, **extra})


def copilot_session(turns: int = 6, *, fail_last: bool = False) -> list[dict[str, Any]]:
    s = _Events()
    s.add("session.start", {"sessionId": "s-1", "version": 1, "producer": "copilot-agent"})
    for i in range(turns):
        words = f"Rename helper{i} to tool{i} in lib/h{i}.py"
        sent = f"<current_datetime>2026-10-01T09:0{i}</current_datetime>\n\n{words}"
        s.add("user.message", {"content": words, "transformedContent": sent})
        s.add("assistant.turn_start", {"turnId": str(i)})
        request = {"toolCallId": f"c{i}", "name": "bash", "arguments": {"command": f"grep {i}"}}
        s.add("assistant.message", {"messageId": f"a{i}", "content": "", "toolRequests": [request]})
        s.add("permission.requested", {"requestId": f"p{i}", "toolCallId": f"c{i}"})
        s.add("tool.execution_start", {"toolCallId": f"c{i}", "toolName": "bash"})
        s.add("hook.start", {"hookName": "pre-tool"})
        s.add("hook.end", {"hookName": "pre-tool"})
        out = "\n".join(f"lib/h{i}.py:{j}: helper{i}()" for j in range(150))
        ok = not (fail_last and i == turns - 1)
        result = {"content": out if ok else "grep: lib: No such file", "detailedContent": out}
        s.add("tool.execution_complete", {"toolCallId": f"c{i}", "success": ok, "result": result})
        s.add("assistant.message", {"messageId": f"b{i}", "content": f"Renamed helper{i}."})
        s.add("session.usage_checkpoint", {"totalTokens": 1000 * i})
    return s.events


# -- cursor -------------------------------------------------------------------------------------


def test_a_cursor_transcript_is_detected_and_read_not_taken_for_openai() -> None:
    raw = _lines(cursor_session())
    assert detect_format("c.jsonl", raw) == "cursor"
    t = read_transcript("c.jsonl", raw)
    assert t.format == "cursor"
    entries = entries_of(t.messages)
    users = [e.text for e in entries if e.role == "user" and not e.injected and e.text]
    assert users == [f"Make step{i} return its double and add a test" for i in range(6)]
    context = [e.text for e in entries if e.injected]
    assert len(context) == 6
    assert all(c.startswith("<attached_files>") and "<documentation_context>" in c for c in context)
    calls = [c.id for e in entries for c in e.calls]
    results = [r.call_id for e in entries for r in e.results]
    assert calls == results == [f"toolu_{i}" for i in range(6)]


def test_cursor_round_trip_read_write_read(tmp_path: Path) -> None:
    raw = _lines(cursor_session())
    t = read_transcript("c.jsonl", raw)
    assert write_transcript(t, t.messages) == raw  # unchanged: the same bytes
    kept = t.messages[1:]  # the first turn's query without the context read from its record
    again = read_transcript("c.jsonl", write_transcript(t, kept))
    assert again.messages == kept
    assert again.meta.lines[0].obj["message"]["content"][0]["text"].startswith("<user_query>")


def test_cursor_check_run_eval_and_show(tmp_path: Path) -> None:
    src = tmp_path / "cursor.jsonl"
    src.write_bytes(_lines(cursor_session(30)))
    check = invoke(["check", str(src), "--threshold", "5k"])
    assert check.returncode == 1, check.stdout  # over the threshold: not "0 tokens, ok"
    assert b"cursor," in check.stdout
    for strategy in ("summarize", "reduce", "hybrid"):
        out = tmp_path / f"{strategy}.jsonl"
        args = ["run", str(src), "--strategy", strategy, "--model", "local", "-o", str(out)]
        run = invoke([*args, "--threshold", "5k", "--no-cache"])
        assert run.returncode == 0, run.stderr
        assert len(out.read_bytes()) < len(src.read_bytes()) // 2
        assert read_transcript(str(out), out.read_bytes()).format == "cursor"
    summary = tmp_path / "summarize.jsonl"
    assert invoke(["eval", str(src), str(summary)]).returncode == 0
    shown = invoke(["show", str(summary), "--raw"])
    assert shown.returncode == 0 and b"Make step29 return its double" in shown.stdout


def test_cursor_summary_golden() -> None:
    t = read_transcript("cursor.jsonl", _lines(cursor_session()))
    _golden("local_summary_invented_cursor.txt", _normalize(summarize_transcript(t.messages)))


def test_a_cursor_record_without_its_message_is_an_error() -> None:
    records = cursor_session(2)
    records[2] = {"role": "user", "text": "hi"}
    with pytest.raises(TranscriptError) as caught:
        read_transcript("c.jsonl", _lines(records))
    assert (caught.value.line, caught.value.field) == (3, "message")  # detected, then read


# -- copilot ------------------------------------------------------------------------------------


def test_copilot_events_are_read_with_calls_paired_and_housekeeping_kept() -> None:
    raw = _lines(copilot_session(fail_last=True))
    assert detect_format("events.jsonl", raw) == "copilot"
    t = read_transcript("events.jsonl", raw)
    entries = entries_of(t.messages)
    users = [e.text for e in entries if e.role == "user" and not e.injected and e.text]
    assert users == [f"Rename helper{i} to tool{i} in lib/h{i}.py" for i in range(6)]
    calls = [(c.id, c.name) for e in entries for c in e.calls]
    assert calls == [(f"c{i}", "bash") for i in range(6)]
    results = [(r.call_id, r.name, r.is_error) for e in entries for r in e.results]
    assert results == [(f"c{i}", "bash", i == 5) for i in range(6)]
    assert len(t.messages) == 6 * 5  # housekeeping events are no messages
    assert not t.meta.unknown  # every event type here is known
    context = [e.text for e in entries if e.injected]  # what transformedContent added: counted
    assert context == [f"<current_datetime>2026-10-01T09:0{i}</current_datetime>" for i in range(6)]


def test_copilot_round_trip_and_summary_written_as_a_user_message(tmp_path: Path) -> None:
    raw = _lines(copilot_session())
    t = read_transcript("events.jsonl", raw)
    assert write_transcript(t, t.messages) == raw
    tail = t.messages[-10:]  # two turns, each user.message read as context + words
    again = read_transcript("events.jsonl", write_transcript(t, tail))
    assert again.messages == tail
    words = t.messages[-9:]  # the words without their context: the event is written once
    again = read_transcript("events.jsonl", write_transcript(t, words))
    assert again.messages == tail
    src = tmp_path / "events.jsonl"
    src.write_bytes(_lines(copilot_session(30)))
    out = tmp_path / "out.jsonl"
    args = ["run", str(src), "--model", "local", "--threshold", "5k", "--no-cache", "-o", str(out)]
    assert invoke(args).returncode == 0
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert events[0]["type"] == "session.start"
    assert events[1]["type"] == "user.message"
    assert events[1]["data"]["content"].startswith("This session continues")
    assert [e["parentId"] for e in events[1:]] == [e["id"] for e in events[:-1]]  # one chain
    kinds = {e["type"] for e in events}
    assert {"hook.start", "hook.end", "session.usage_checkpoint"} <= kinds  # not lost
    starts = {e["data"]["toolCallId"] for e in events if e["type"] == "tool.execution_start"}
    requested = {
        r["toolCallId"]
        for e in events
        if e["type"] == "assistant.message"
        for r in e["data"].get("toolRequests", [])
    }
    assert starts <= requested  # a start of a call summarized away went with it
    assert invoke(["eval", str(src), str(out)]).returncode == 0
    shown = invoke(["show", str(out), "--raw"])
    assert shown.returncode == 0 and b"Rename helper29 to tool29" in shown.stdout


def test_copilot_reduce_keeps_event_order_and_envelope(tmp_path: Path) -> None:
    src = tmp_path / "events.jsonl"
    src.write_bytes(_lines(copilot_session(30)))
    out = tmp_path / "out.jsonl"
    run = invoke(["run", str(src), "--strategy", "reduce", "--threshold", "5k", "-o", str(out)])
    assert run.returncode == 0, run.stderr
    before = [json.loads(line) for line in src.read_text().splitlines()]
    after = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(e["type"], e["id"], e["parentId"]) for e in after] == [
        (e["type"], e["id"], e["parentId"]) for e in before
    ]
    cleared = next(e for e in after if e["type"] == "tool.execution_complete")["data"]
    assert "detailedContent" not in cleared["result"]  # the UI's copy of the old output went
    assert invoke(["check", str(out), "--threshold", "5k"]).returncode == 0


def test_copilot_summary_golden() -> None:
    t = read_transcript("events.jsonl", _lines(copilot_session(fail_last=True)))
    _golden("local_summary_invented_copilot.txt", _normalize(summarize_transcript(t.messages)))


def test_copilot_hostile_input(tmp_path: Path) -> None:
    events = copilot_session(2)
    events.insert(3, {"type": "session.brand_new", "data": {"x": 1}, "id": "n1", "parentId": None})
    events.append({"type": "future.event", "data": {"text": "?"}, "id": "n2", "parentId": None})
    orphan = {"toolCallId": "nobody", "success": True, "result": {"content": "stray"}}
    events.append({"type": "tool.execution_complete", "data": orphan, "id": "n3"})
    t = read_transcript("events.jsonl", _lines(events))
    assert [kind for kind, _, _ in t.meta.unknown] == ["future.event"]  # warned, kept
    assert write_transcript(t, t.messages) == _lines(events)
    assert [r.call_id for e in entries_of(t.messages) for r in e.results][-1] == "nobody"
    cut = _lines(events)[:-20]  # a truncated last line
    src = tmp_path / "cut.jsonl"
    src.write_bytes(cut)
    check = invoke(["check", str(src)])
    assert check.returncode == 2 and b"cut.jsonl:" in check.stderr
    bad = copilot_session(1)
    bad[1]["data"] = {"content": 5}
    with pytest.raises(TranscriptError) as caught:
        read_transcript("events.jsonl", _lines(bad))
    assert (caught.value.line, caught.value.field) == (2, "data.content")


def test_cursor_hostile_input(tmp_path: Path) -> None:
    records = cursor_session(2)
    stray = {"type": "tool_result", "tool_use_id": "nobody", "content": "stray output"}
    records.append({"role": "user", "message": {"content": [stray]}})
    odd = {"type": "mermaid_diagram", "source": "graph TD; a-->b"}  # a block type no one knows
    records.append({"role": "assistant", "message": {"content": [odd]}})
    raw = _lines(records)
    t = read_transcript("c.jsonl", raw)
    assert write_transcript(t, t.messages) == raw
    entries = entries_of(t.messages)
    assert entries[-2].results[0].call_id == "nobody"
    assert "graph TD; a-->b" in entries[-1].text  # its text read, not dropped
    src = tmp_path / "cut.jsonl"
    src.write_bytes(raw[:-15])  # a truncated last line
    check = invoke(["check", str(src)])
    assert check.returncode == 2 and b"cut.jsonl:" in check.stderr


@pytest.mark.parametrize("session", [cursor_session, copilot_session])
def test_check_json_counts_the_files_calls_and_results(tmp_path: Path, session: Any) -> None:
    """``check --json``'s whole-file pairs agree with the history's (no earlier compaction)."""
    src = tmp_path / "s.jsonl"
    src.write_bytes(_lines(session()))
    data = json.loads(invoke(["check", str(src), "--json"]).stdout)
    keys = ("tool_calls", "tool_results", "file_tool_calls", "file_tool_results")
    assert [data[k] for k in keys] == [6, 6, 6, 6]


def test_copilot_skill_messages_and_header_lines_are_not_the_users() -> None:
    """A ``user.message`` the CLI wrote for a skill (``source: skill-…``) is injected context;
    a record with no type and no message keys (a tool's header) is kept with a warning."""
    events = copilot_session(1)
    skill = {"content": "Read PDFs with pdftotext -layout.", "source": "skill-pdf"}
    events.insert(2, {"type": "user.message", "data": skill, "id": "k1", "parentId": "x"})
    events.insert(0, {"_exporter": "session-dump", "v": 2})
    t = read_transcript("events.jsonl", _lines(events))
    users = [
        e.text for e in entries_of(t.messages) if e.role == "user" and not e.injected and e.text
    ]
    assert users == ["Rename helper0 to tool0 in lib/h0.py"]
    assert [kind for kind, _, _ in t.meta.unknown] == ["(no type)"]
    assert write_transcript(t, t.messages) == _lines(events)


def test_copilot_events_of_unknown_types_outnumbering_its_messages_are_refused() -> None:
    """A log whose conversation sits in event types the reader does not know (a newer CLI that
    renamed them) is refused, never read as a history of the few events it knows."""
    s = _Events()
    s.add("session.start", {"sessionId": "s-2"})
    for i in range(5):
        s.add("user.prompt", {"text": f"Deploy build {i}"})
        s.add("agent.reply", {"text": f"Deployed build {i}."})
    s.add("user.message", {"content": "and the last one?"})
    with pytest.raises(TranscriptError) as caught:
        read_transcript("events.jsonl", _lines(s.events))
    err = caught.value
    assert (err.line, err.field) == (2, "type")
    assert "10 events of types copilot does not read" in err.message


def test_cursor_text_beside_the_query_is_the_users_and_written_back_unwrapped() -> None:
    context = "<attached_files>\na.py\n</attached_files>"
    text = f"{context}\nalso: keep it short\n<user_query>\nfix a\n</user_query>"
    assert split_user_text(text) == [
        ("context", context),
        ("loose", "also: keep it short"),
        ("query", "fix a"),
    ]
    turn = {"role": "user", "message": {"content": [{"type": "text", "text": text}]}}
    t = read_transcript("c.jsonl", _lines([turn, *cursor_session(1)]))
    loose, query = t.messages[1], t.messages[2]
    written = write_transcript(t, [loose, query, *t.messages[3:]])
    first = [json.loads(line)["message"]["content"][0]["text"] for line in written.splitlines()[:2]]
    assert first == ["also: keep it short", "<user_query>\nfix a\n</user_query>"]
