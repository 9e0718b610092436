"""Issue 28 after blind check 22 (fix22a): a queued background-task registration is no user
message; the output of the user's own ``!`` shell commands reaches the summary's state.

Sessions are synthetic, built here in Claude Code 2.x record shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.schema import AgenticMessage

from .cc_session import SESSION, Session
from .test_models_local_session import section

PROMPT = "start the app so I can try it"


def _queue(operation: str, content: str | None = None) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "type": "queue-operation",
        "operation": operation,
        "timestamp": "2026-08-09T12:30:00.000Z",
        "sessionId": SESSION,
    }
    if content is not None:
        rec["content"] = content
    return rec


def _registration(task: str, call: str) -> str:
    """What Claude Code 2.1.4x enqueues when a Bash call goes to the background."""
    body = {"task_id": task, "tool_use_id": call, "description": "Run dev", "task_type": "x"}
    return json.dumps(body, separators=(",", ":"))


def _background(s: Session, task: str) -> None:
    call = f"toolu_bg{task}"
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": call,
                "name": "Bash",
                "input": {"command": "npm run dev", "run_in_background": True},
            }
        ]
    )
    s.records.append(_queue("enqueue", _registration(task, call)))
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": call,
                "content": f"Command running in background with ID: {task}. Output is being "
                f"written to: /tmp/tasks/{task}.output",
            }
        ]
    )


def _registered_session() -> Session:
    s = Session()
    s.user("Add a login page to the app.")
    s.bash("npm test", "Tests: 9 passed, 9 total")
    s.assistant([{"type": "text", "text": "The login page is in src/login.tsx; 9 tests pass."}])
    s.user(PROMPT)
    _background(s, "c41a9e0")
    s.bash("sleep 3; cat /tmp/tasks/c41a9e0.output", "VITE ready on http://localhost:5174/")
    s.assistant([{"type": "text", "text": "The app runs at http://localhost:5174/ (background)."}])
    s.records.append(_queue("remove"))  # the registration leaves the queue
    return s


def _read(s: Session, tmp_path: Path) -> list[Any]:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    return list(read_transcript(str(src), src.read_bytes()).messages)


def _user_texts(messages: list[Any]) -> list[str]:
    return [
        b.text or ""
        for m in messages
        if isinstance(m, AgenticMessage) and m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]


def test_a_queued_task_registration_is_no_user_message(tmp_path: Path) -> None:
    """cc-citedml (W1): Claude Code 2.1.49 enqueued ``{"task_id":…,"tool_use_id":…}`` when a
    Bash call went to the background and removed it later; the reader took it for a prompt the
    user typed mid-turn, and the summary made the JSON the current, unanswered request."""
    messages = _read(_registered_session(), tmp_path)
    texts = _user_texts(messages)
    assert not any("task_id" in t for t in texts), texts
    summary = summarize_transcript(messages)
    assert "task_id" not in section(summary, 1) and PROMPT in section(summary, 1), summary
    assert "not answered" not in section(summary, 7).lower(), section(summary, 7)
    assert "c41a9e0" in section(summary, 7), section(summary, 7)  # the job is still a fact


def test_a_queued_json_object_is_never_a_prompt_but_prose_is(tmp_path: Path) -> None:
    """By shape: any enqueued content that is one JSON object (no prose) is not the user's;
    a prompt that merely holds braces still is."""
    s = _registered_session()
    typed = 'also print {"debug": true} in the log'
    s.records.append(_queue("enqueue", '{"kind": "anything", "n": 3}'))
    s.records.append(_queue("enqueue", typed))
    s.bash("ls", "src")
    s.records.append(_queue("remove"))
    s.records.append(_queue("remove"))
    s.assistant([{"type": "text", "text": "Debug output is on."}])
    texts = _user_texts(_read(s, tmp_path))
    assert typed in texts and not any("anything" in t for t in texts), texts
