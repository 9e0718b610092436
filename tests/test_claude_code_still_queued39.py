"""A prompt the user typed while the agent worked, still queued when the session ended (blind
check 39, cc-admin; RELIABILITY rows 1810-1811).

Claude Code 2.1.x logs it only as a ``queue-operation`` ``enqueue`` (never ``dequeue``d nor
``remove``d): the user's last instruction, typed while the model API kept failing. The reader
dropped it, so the summary and the hybrid lost the user's latest words. Now it is read as the
user's message after the last record, marked still queued; the summary says so and counts it
as the current request; every output still writes the queue record back as it was and invents
no record. Sessions are synthetic, built here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import STILL_QUEUED_KEY, AgenticMessage

from .cc_session import Session, queue_record, work_session
from .fake_server_cli import invoke

EARLIER = "Put the page numbers at the bottom right of every slide"
LAST = "Also save the finished deck as deck-final.pptx on the desktop and tell me where it is"


def _queue(operation: str, content: str | None = None) -> dict[str, Any]:
    return queue_record(operation, content, stamp="2026-08-09T13:30:00.000Z")


def _api_error(s: Session, n: int) -> None:
    refused = {"code": "ConnectionRefused", "path": "http://127.0.0.1:8080/v1/messages"}
    rec = {"type": "system", "subtype": "api_error", "level": "error", "cause": refused}
    s._add(rec | {"retryInMs": 500 * n, "retryAttempt": n, "maxRetries": 10})


def _session(last: str | None = LAST) -> Session:
    s = work_session()
    s.records.append(_queue("enqueue", EARLIER))
    s.bash("ls slides", "deck.pptx")
    s.records.append(_queue("remove"))  # taken mid-turn: the current request, read at remove
    s.assistant([{"type": "text", "text": "Adding page numbers at the bottom right now."}])
    s.bash("python number.py deck.pptx", "numbered 12 slides")
    if last is not None:
        s.records.append(_queue("enqueue", last))  # typed while it worked: never delivered
    for n in (1, 2, 3):
        _api_error(s, n)
    return s


def _write(tmp_path: Path, s: Session) -> tuple[Path, bytes]:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(orjson.dumps(r) for r in s.records) + b"\n")
    return src, src.read_bytes()


def _users(messages: list[Any]) -> list[tuple[str, bool]]:
    return [
        (b.text or "", STILL_QUEUED_KEY in m.extra)
        for m in messages
        if isinstance(m, AgenticMessage) and m.role == "user"
        for b in m.blocks
        if b.type == "user_input_text"
    ]


def test_a_prompt_still_queued_at_the_end_is_the_users_last_message(tmp_path: Path) -> None:
    src, raw = _write(tmp_path, _session())
    t = read_transcript(str(src), raw)
    users = _users(t.messages)
    assert users[-1] == (LAST, True), users
    assert (EARLIER, False) in users
    # after every record the file holds (the agent never saw it): the last user message
    messages: list[Any] = list(t.messages)
    at = [i for i, m in enumerate(messages) if STILL_QUEUED_KEY in m.extra]
    said = [i for i, m in enumerate(messages) if m.role == "assistant"]
    assert len(at) == 1 and at[0] > said[-2], (at, said)  # the last: the API error's message


def test_a_queued_prompt_written_later_as_a_user_record_is_read_once(tmp_path: Path) -> None:
    s = _session(last=None)
    s.records.append(_queue("enqueue", LAST))
    s.user(LAST)  # delivered (its dequeue not logged): the record is the message
    src, raw = _write(tmp_path, s)
    users = _users(read_transcript(str(src), raw).messages)
    assert [u for u in users if u[0] == LAST] == [(LAST, False)]


def _summary(tmp_path: Path, args: list[str]) -> tuple[str, bytes, bytes]:
    src, raw = _write(tmp_path, _session())
    (tmp_path / "c.yaml").write_text(
        "model: {provider: local}\nkeep: {messages: 4}\nloop_guard: false\n", encoding="utf-8"
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
    summary = next(
        (
            r["message"]["content"]
            for r in map(json.loads, data.splitlines())
            if r.get("isCompactSummary")
        ),
        "",
    )
    return (summary if isinstance(summary, str) else json.dumps(summary)), raw, data


def test_the_summary_carries_the_still_queued_prompt_as_the_current_request(
    tmp_path: Path,
) -> None:
    summary, _, _ = _summary(tmp_path, ["--model", "local"])
    section1 = summary.split("<summary>", 1)[1].split("\n2. ", 1)[0]
    assert "Current request:" in section1 and LAST in section1, section1
    assert "still queued, not yet delivered when the session ended" in section1, section1
    everyone = summary.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert EARLIER in everyone and "still queued" in everyone, everyone


@pytest.mark.parametrize(
    "args",
    [
        ["--model", "local"],
        ["--model", "local", "--append"],
        ["--strategy", "reduce"],
        ["--strategy", "hybrid", "--threshold", "2000"],
        ["--strategy", "hybrid", "--append", "--threshold", "2000"],
    ],
    ids=["summarize", "summarize-append", "reduce", "hybrid", "hybrid-append"],
)
def test_outputs_stay_claude_code_files_and_invent_no_record(
    tmp_path: Path, args: list[str]
) -> None:
    summary, raw, data = _summary(tmp_path, args)
    queue = [line for line in raw.splitlines() if b'"queue-operation"' in line]
    lines = data[len(raw) :].splitlines() if "--append" in args else data.splitlines()
    if "--append" in args:
        assert data.startswith(raw)
    written = [line for line in lines if b'"queue-operation"' in line]
    if args[:2] == ["--strategy", "reduce"]:
        assert written == queue  # metadata, as it was
    else:
        assert not written
    for line in lines:
        rec = json.loads(line)
        if not rec.get("isCompactSummary"):
            assert LAST not in json.dumps(rec.get("message")), rec  # no record made of it
    if args[:2] != ["--strategy", "reduce"]:
        assert LAST in summary, summary  # the summary, never a record, carries it


def test_the_embedded_summary_alone_says_it_was_still_queued() -> None:
    summary = _session().summary()  # no kept tail, no finalizer: the summarizer's own lines
    section1 = summary.split("<summary>", 1)[1].split("\n2. ", 1)[0]
    assert f'Current request: "{LAST}" (typed while the agent worked; still queued' in section1
    everyone = summary.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert f"{LAST} (typed while the agent worked; still queued" in everyone, everyone
    assert "Answer the latest request" in summary.split("9. ", 1)[1]


def test_a_prompt_the_user_pulled_back_or_a_notice_is_no_queued_request(tmp_path: Path) -> None:
    s = _session(last=None)
    s.records.append(_queue("enqueue", "draft, not sent"))
    s.records.append(_queue("popAll"))  # back into the editor
    s.records.append(_queue("enqueue", '{"task_id": "b1", "task_type": "local_bash"}'))
    src, raw = _write(tmp_path, s)
    users = _users(read_transcript(str(src), raw).messages)
    assert not any(q for _, q in users), users


def test_a_prompt_left_enqueued_before_a_later_user_message_is_not_the_current_one(
    tmp_path: Path,
) -> None:
    """Its ``dequeue`` may not be logged; the user wrote on after it: not read (as before)."""
    s = _session(last=None)
    s.records.append(_queue("enqueue", LAST))
    s.bash("ls", "deck.pptx")
    s.user("Now make the title slide blue.")
    s.assistant([{"type": "text", "text": "The title slide is blue now."}])
    src, raw = _write(tmp_path, s)
    users = _users(read_transcript(str(src), raw).messages)
    assert not any(q for _, q in users) and users[-1][0] == "Now make the title slide blue."
