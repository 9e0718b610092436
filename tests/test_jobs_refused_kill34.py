"""A job a kill or a Ctrl-C did not stop is still running (blind check 34 N1: a hung
``npm test`` session was taken for stopped by a Ctrl-C whose write failed, "stdin is closed",
though three later polls said "Process running", and for killed by ``killall node || true``,
which printed "Operation not permitted"; it was left out of the running jobs)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.facts import background_jobs, entries_of
from compactor.formats.registry import read_transcript

from .codex_rollout import codex_say, codex_summary, codex_user, rec

START = (
    "Chunk ID: 1a2b3c\nWall time: 1.0 seconds\nProcess running with session ID 777\n"
    "Original token count: 11\nOutput:\n\n> shop@1.0.0 test\n> node --test\n\n"
)
RUNNING = "Chunk ID: 4d5e6f\nWall time: 5.0 seconds\nProcess running with session ID 777\nOutput:\n"


def _exchange(n: int, name: str, args: dict[str, Any], output: str) -> list[dict[str, Any]]:
    call = {
        "type": "function_call",
        "name": name,
        "call_id": f"c{n}",
        "arguments": json.dumps(args),
    }
    out = {"type": "function_call_output", "call_id": f"c{n}", "output": output}
    return [rec("response_item", call), rec("response_item", out)]


def _records(kill_output: str, *, poll_after_ctrl_c: bool) -> list[dict[str, Any]]:
    records = [
        codex_user("Run the test suite and fix what fails."),
        codex_say("Running the tests."),
    ]
    records += _exchange(1, "exec_command", {"cmd": "npm test", "workdir": "/w/shop"}, START)
    records += _exchange(2, "write_stdin", {"session_id": 777, "chars": ""}, RUNNING)
    stdin_closed = "write_stdin failed: stdin is closed for this session"
    records += _exchange(3, "write_stdin", {"session_id": 777, "chars": "\u0003"}, stdin_closed)
    if poll_after_ctrl_c:
        records += _exchange(4, "write_stdin", {"session_id": 777, "chars": ""}, RUNNING)
    kill = "Chunk ID: 7a8b9c\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n"
    records += _exchange(5, "exec_command", {"cmd": "killall node || true"}, kill + kill_output)
    return [*records, codex_say("The suite hangs on listen EPERM in the sandbox; stopping here.")]


REFUSED = "killall: could not sysctl(KERN_PROC): Operation not permitted\n"


def test_a_kill_the_system_refused_leaves_the_job_running(tmp_path: Path) -> None:
    text = codex_summary(_records(REFUSED, poll_after_ctrl_c=True), tmp_path, "s1", "/w/shop")
    running = [ln for ln in text.splitlines() if "still running" in ln or "(id 777)" in ln]
    assert any("777" in ln for ln in running), text


def test_a_kill_that_went_through_ends_the_job(tmp_path: Path) -> None:
    text = codex_summary(_records("", poll_after_ctrl_c=True), tmp_path, "s2", "/w/shop")
    assert "(id 777)" not in text and "running (777" not in text, text


def _jobs(tmp_path: Path, records: list[dict[str, Any]]) -> dict[str, str]:
    head = rec("session_meta", {"id": "s", "cwd": "/w/shop"})
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in [head, *records]))
    messages = read_transcript(str(path), path.read_bytes()).messages
    return {j.id: j.finished for j in background_jobs(entries_of(messages))}


def test_a_ctrl_c_a_later_poll_shows_running_did_not_stop_the_job(tmp_path: Path) -> None:
    records = _records(REFUSED, poll_after_ctrl_c=True)[:-3]  # up to the poll after the Ctrl-C
    assert _jobs(tmp_path, records)["777"] == ""
    without = _records(REFUSED, poll_after_ctrl_c=False)[:-3]  # the Ctrl-C is the last word
    assert _jobs(tmp_path, without)["777"].startswith("stopped by")
