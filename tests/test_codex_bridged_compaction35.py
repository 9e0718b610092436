"""A Codex ``compacted`` record with a summary and no ``replacement_history`` (Codex up to
about 0.4x) resumes the user's own messages and the summary, as Codex rebuilds them (blind
check 35 F1: the reader started the history empty after such a record; the summary said "No
request from the user" and a resumed Codex would have seen no user message at all)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.formats.registry import read_transcript
from compactor.schema import CONTENT_TYPE_KEY, Message

from .codex_rollout import codex_say, codex_summary, codex_user, read_rounds, rec
from .test_cli_run import compact

SUMMARY = "Implemented T001-T019 of tasks.md; T020-T025 remain; the last test run had 10 failures."
FIRST = "/implement the tasks in specs/001-caddie/tasks.md, all of them"
SECOND = "Keep the coverage at or above 70 % while you do it."


def _records(compacted: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "shell", "call_id": "c1"}
    call["arguments"] = json.dumps({"command": ["pytest", "-q"]})
    out = {"type": "function_call_output", "call_id": "c1", "output": "10 failed, 52 passed"}
    return [
        codex_user("<environment_context>\n  <cwd>/w/golf</cwd>\n</environment_context>"),
        codex_user(FIRST),
        codex_say("Starting with T001."),
        rec("response_item", call),
        rec("response_item", out),
        codex_user(SECOND),
        codex_say("Understood."),
        rec("compacted", compacted),
        codex_say("Bumping the constitution to 0.1.1 next."),
    ]


def _messages(path: Path) -> list[Message]:
    found = read_transcript(str(path), path.read_bytes()).messages
    assert all(isinstance(m, Message) for m in found)
    return [m for m in found if isinstance(m, Message)]


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    head = rec("session_meta", {"id": "s-golf", "cwd": "/w/golf"})
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    return path


def test_the_users_messages_and_the_summary_start_the_history(tmp_path: Path) -> None:
    path = _write(tmp_path, _records({"message": SUMMARY}))
    messages = _messages(path)
    users = [m for m in messages if m.role == "user"]
    assert [m.content for m in users] == [FIRST, SECOND, SUMMARY]
    assert users[-1].extra.get(CONTENT_TYPE_KEY) == "summary"
    assert messages[-1].content == "Bumping the constitution to 0.1.1 next."


def test_the_summary_states_the_users_request_not_none(tmp_path: Path) -> None:
    text = codex_summary(_records({"message": SUMMARY}), tmp_path, "s-golf", "/w/golf")
    assert "No request from the user" not in text
    assert "/implement the tasks in specs/001-caddie/tasks.md" in text
    assert "T020-T025 remain" in text  # the earlier summary is kept


def test_reduce_keeps_them_in_the_replacement_history(tmp_path: Path) -> None:
    rounds = read_rounds(3, "notes.txt", "after the compaction")  # something to clear
    path = _write(tmp_path, [*_records({"message": SUMMARY}), *rounds, codex_say("Read them.")])
    out = tmp_path / "out.jsonl"
    run = compact(
        tmp_path,
        "run",
        str(path),
        "--strategy",
        "reduce",
        "--force",
        "--no-cache",
        "-q",
        "-o",
        str(out),
    )
    assert run.code == 0, run.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    history = next(r["payload"]["replacement_history"] for r in written if r["type"] == "compacted")
    said = json.dumps(history)
    assert FIRST in said and SECOND in said and SUMMARY in said


def test_a_replacement_history_still_starts_the_history_alone(tmp_path: Path) -> None:
    kept = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SECOND}]}
    ]
    path = _write(tmp_path, _records({"message": SUMMARY, "replacement_history": kept}))
    users = [m.content for m in _messages(path)]
    assert FIRST not in users and SECOND in users
