"""A Copilot CLI call the user denied is a rejection, not a call in flight (blind check 74, W1).

Copilot CLI records a denied permission as ``permission.completed`` with a ``result.kind`` such as
``denied-interactively-by-user``, writes no ``tool.execution_complete`` for the call, and then an
``abort`` (``reason: user_initiated``). The reader took both for housekeeping, so the summary
listed the denied call as in flight ("run them again if still needed"). The denial is now the
call's result (a rejection, where Claude Code's rejected tool use goes) and the abort marks the
turn interrupted. Every session here is invented in the test, by shape.
"""

from __future__ import annotations

from typing import Any

from compactor.facts import entries_of
from compactor.formats.registry import read_transcript, write_transcript
from compactor.models.local import summarize_transcript
from compactor.rejections import is_rejection

from .test_formats_cursor_copilot import _Events, _lines, copilot_session


def _denied_session(kind: str = "denied-interactively-by-user") -> list[dict[str, Any]]:
    s = _Events()
    s.events = copilot_session(2)
    s.add("user.message", {"content": "Write the contributor guide under .github"})
    request = {"toolCallId": "d1", "name": "bash", "arguments": {"command": "mkdir -p .github"}}
    s.add("assistant.message", {"messageId": "m1", "content": "", "toolRequests": [request]})
    s.add("permission.requested", {"requestId": "r1", "permissionRequest": {"toolCallId": "d1"}})
    s.add("permission.completed", {"requestId": "r1", "toolCallId": "d1", "result": {"kind": kind}})
    s.add("abort", {"reason": "user_initiated"})
    s.add("session.shutdown", {"shutdownType": "routine"})
    return s.events


def test_a_denied_call_is_a_rejection_and_the_abort_ends_the_turn() -> None:
    raw = _lines(_denied_session())
    t = read_transcript("events.jsonl", raw)
    entries = entries_of(t.messages)
    results = [r for e in entries for r in e.results if r.call_id == "d1"]
    assert len(results) == 1 and is_rejection(results[0].text)
    assert entries[-1].aborted  # the turn the user aborted
    assert write_transcript(t, t.messages) == raw  # the denial is its own record, as it was
    summary = summarize_transcript(t.messages)
    assert "in flight when the session was saved" not in summary
    assert "run them again" not in summary
    assert "rejected by the user" in summary.lower()
    assert "The user interrupted the turn" in summary


def test_a_denial_by_rules_is_a_failed_call_and_a_call_with_a_result_keeps_it() -> None:
    events = _denied_session("denied-by-rules")
    t = read_transcript("events.jsonl", _lines(events))
    found = [r for e in entries_of(t.messages) for r in e.results if r.call_id == "d1"]
    assert len(found) == 1 and found[0].is_error and not is_rejection(found[0].text)
    result = {"toolCallId": "d1", "success": False, "result": {"content": "Denied: not allowed"}}
    events.insert(-2, {**events[-3], "type": "tool.execution_complete", "data": result, "id": "x"})
    t = read_transcript("events.jsonl", _lines(events))
    texts = [r.text for e in entries_of(t.messages) for r in e.results if r.call_id == "d1"]
    assert texts == ["Denied: not allowed"]  # the CLI's own result, never a second one
