"""Claude Code 2.x ``queue-operation`` records read for what they carry (issue 28 after blind
check 9, tcu; RELIABILITY rows 433-436).

Claude Code 2.1.39 logged a failed background agent's ``<task-notification>`` only as 27
identical ``enqueue`` records, and a prompt the user typed while it worked only as an
``enqueue`` then a ``remove`` (it reached the model mid-turn; no user record). The summary said
the agent was "still running" and missed the prompt. Now the notification is one job event
(injected context) and the removed prompt the user's message; a ``dequeue``d prompt, which
Claude Code writes afterwards as a normal user record (ocak, 2.1.212), is not read twice; a
prompt pulled back into the editor (``popAll``) was never sent. The records themselves are
written back as they were in every output mode. Sessions are synthetic, built here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage

from .cc_session import Session, queue_record, work_session
from .fake_server_cli import invoke

NOTICE = (
    "<task-notification>\n<task-id>a090939</task-id>\n<status>failed</status>\n<summary>Agent "
    '"Plan presentation architecture" failed: classifyHandoffIfNeeded is not defined</summary>\n'
    "</task-notification>\nFull transcript available at: /tmp/tasks/a090939.output"
)
TYPED = (
    "Can you pause after each phase so we can discuss the result and keep the plan in an md file"
)
DEQUEUED = "Also add a dark mode toggle to the header"
PULLED = "never mind, ignore this one"


_queue = queue_record


def _session() -> Session:
    s = work_session()
    s.assistant(
        [
            {
                "type": "tool_use",
                "id": "toolu_plan",
                "name": "Task",
                "input": {"description": "Plan presentation architecture", "prompt": "Plan it"},
            }
        ]
    )
    s.user(
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_plan",
                "content": [
                    {
                        "type": "text",
                        "text": "Async agent launched successfully.\nagentId: a090939 (internal "
                        "ID)\nThe agent is working in the background. You will be notified "
                        "automatically when it completes.",
                    }
                ],
            }
        ]
    )
    for _ in range(27):  # the same notice, enqueued and dequeued again and again
        s.records.append(_queue("enqueue", NOTICE))
        s.records.append(_queue("dequeue"))
    s.bash("ls", "index.html")
    s.records.append(_queue("enqueue", TYPED))
    s.bash("cat styles.css", "body { margin: 0 }")
    s.records.append(_queue("remove"))  # taken mid-turn: no record of it but this
    s.assistant([{"type": "text", "text": "Got it - I'll pause after this phase for review."}])
    s.records.append(_queue("enqueue", DEQUEUED))
    s.records.append(_queue("enqueue", PULLED))
    s.records.append(_queue("popAll"))  # back into the editor: never sent
    s.records.append(_queue("dequeue"))
    s.user(DEQUEUED)  # Claude Code writes a dequeued prompt as a normal user record
    s.bash("npm test", "Tests: 14 passed, 14 total")
    s.assistant([{"type": "text", "text": "The toggle is in src/header.ts; 14 tests pass."}])
    return s


def _write(tmp_path: Path) -> tuple[Path, bytes, list[bytes]]:
    s = _session()
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    raw = src.read_bytes()
    return src, raw, [line for line in raw.splitlines() if b'"queue-operation"' in line]


def _user_texts(messages: list[Any]) -> list[tuple[str, bool]]:
    return [
        (b.text or "", bool(m.extra.get("injected")))
        for m in messages
        if isinstance(m, AgenticMessage) and m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]


def test_queue_records_give_one_notification_and_the_removed_prompt(tmp_path: Path) -> None:
    src, raw, queue = _write(tmp_path)
    assert len(queue) == 54 + 2 + 4
    t = read_transcript(str(src), raw)
    texts = _user_texts(t.messages)
    assert [x for x in texts if x[0] == NOTICE] == [(NOTICE, True)]  # once, as context
    assert [x for x in texts if x[0] == TYPED] == [(TYPED, False)]  # the user's own
    assert [x for x in texts if x[0] == DEQUEUED] == [(DEQUEUED, False)]  # its record only
    assert not any(PULLED in x[0] for x in texts)
    # the notice after the agent's launch, the prompt after the result it came with
    order = [x[0] for x in texts]
    agentic = [m for m in t.messages if isinstance(m, AgenticMessage)]
    assert len(agentic) == len(t.messages)
    launched = next(
        i for i, m in enumerate(agentic) if any(b.call_id == "toolu_plan" for b in m.blocks)
    )
    notice_at = next(i for i, m in enumerate(agentic) if any(b.text == NOTICE for b in m.blocks))
    assert launched < notice_at
    assert order.index(TYPED) < order.index(DEQUEUED)


def test_the_summary_sees_the_job_failed_and_lists_the_queued_prompt(tmp_path: Path) -> None:
    src, _, _ = _write(tmp_path)
    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = next(
        r["message"]["content"]
        for r in map(json.loads, out.read_text("utf-8").splitlines())
        if r.get("isCompactSummary")
    )
    assert "still running" not in summary.lower(), summary
    everyone = summary.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert TYPED in everyone and everyone.count(DEQUEUED) == 1, everyone
    assert PULLED not in summary and summary.count("classifyHandoffIfNeeded") <= 2


@pytest.mark.parametrize(
    "args",
    [
        ["--model", "local"],
        ["--model", "local", "--append"],
        ["--strategy", "reduce"],
        ["--strategy", "reduce", "--append"],
        ["--strategy", "hybrid", "--append", "--threshold", "2000"],
    ],
    ids=["summarize", "summarize-append", "reduce", "reduce-append", "hybrid-append"],
)
def test_queue_records_are_written_back_as_they_were(tmp_path: Path, args: list[str]) -> None:
    """No output copies a queue record into the conversation or writes the messages read from
    it as records; ``--append`` and reduce keep every queue record byte for byte; a summarizing
    shrink drops them with the other bookkeeping records, as before."""
    src, raw, queue = _write(tmp_path)
    (tmp_path / "c.yaml").write_text(
        "model: {provider: local}\nkeep: {messages: 8}\nloop_guard: false\n", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", str(src), *args, "--force", "-c", "c.yaml", "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert src.read_bytes() == raw
    data = out.read_bytes()
    lines = data.splitlines()
    written = [line for line in lines if b'"queue-operation"' in line]
    if "--append" in args:
        assert data.startswith(raw)
        lines = data[len(raw) :].splitlines()
        written = [line for line in lines if b'"queue-operation"' in line]
        assert not written  # nothing of the queue is written again after the boundary
    elif args[:2] == ["--strategy", "reduce"]:
        assert written == queue  # every line as it was
    else:
        assert not written
    for line in lines:
        rec = json.loads(line)
        text = json.dumps(rec.get("message"))
        if rec.get("isCompactSummary"):
            continue
        assert TYPED not in text and NOTICE[:40] not in text, rec  # no record made of them


def test_a_removed_prompt_written_as_a_queued_command_is_read_once(tmp_path: Path) -> None:
    """2.1.197 writes a prompt taken mid-turn as a ``queued_command`` attachment too: the
    attachment is the message, the queue adds no second copy."""
    s = work_session()
    s.records.append(_queue("enqueue", TYPED))
    s.bash("ls", "index.html")
    s.records.append(_queue("remove"))
    s.attachment({"type": "queued_command", "prompt": TYPED, "commandMode": "prompt"})
    s.assistant([{"type": "text", "text": "Got it."}])
    src = tmp_path / "s.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    t = read_transcript(str(src), src.read_bytes())
    assert [x for x in _user_texts(t.messages) if x[0] == TYPED] == [(TYPED, False)]
    assert not any(m.extra.get("queue_operation") for m in t.messages)
