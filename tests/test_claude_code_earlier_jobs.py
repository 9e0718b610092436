"""Background jobs a Claude Code session started before its own compaction (blind check 46).

Claude Code loads the history from its last ``compact_boundary``; the ``run_in_background``
calls before it are no messages. The CLI keeps its background shells across a compaction, so a
dev server started before the boundary and never stopped still runs, but the summary's section 7
did not list it (cc-mfa: the frontend and ngrok jobs). Now the reader notes the jobs started
before the boundary that nothing there ended (a stop call naming the id, a poll or a
notification reporting its end), and the summary lists them as running unless a notice or poll
after the boundary ends them. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.formats._claude_earlier import earlier_jobs
from compactor.formats._claude_history import history_order
from compactor.formats._jsonl import Line
from compactor.formats.registry import read_transcript
from compactor.schema import EARLIER_CALLS_KEY

from .cc_session import Session, cc_summary
from .test_models_local_session import section

DEV, TUNNEL, KILLED, DONE, LATER = "bd0a850", "bd9f9ac", "b463a86", "bad6bb9", "bb7f051"


def _started(s: Session, job: str, command: str) -> None:
    s.call(
        "Bash",
        {"command": command, "description": "start", "run_in_background": True},
        f"Command running in background with ID: {job}. Output is being written to: "
        f"/tmp/claude/tasks/{job}.output",
    )


def _notice(job: str, status: str) -> str:
    return (
        f"<task-notification>\n<task-id>{job}</task-id>\n<status>{status}</status>\n<summary>"
        f'Background command "x" {status} with exit code 143</summary>\n</task-notification>'
    )


def _session(*, restarted: bool = False) -> Session:
    s = Session()
    s.user("Start the app and the tunnel so I can test the login on my phone.")
    _started(s, DEV, "cd frontend && npm run dev -- --port 5177")
    _started(s, TUNNEL, "ngrok http 5177")
    _started(s, KILLED, "cd api && npm run start:dev")
    s.call("KillShell", {"shell_id": KILLED}, f"Successfully killed shell: {KILLED}")
    _started(s, DONE, "npm run build")
    s.call(
        "TaskOutput",
        {"task_id": DONE, "block": True},
        f"<task_id>{DONE}</task_id>\n<status>completed</status>\n<exit_code>0</exit_code>",
    )
    _started(s, LATER, "cd api && npm run start:dev")
    s.say("Both are up: http://localhost:5177 and the ngrok URL.")
    s.compacted("This session is being continued from a previous conversation. Summary: ...")
    at = len(s.records) - 2
    s.user("The login fails with a CORS error on the phone. Fix it.")
    s.call(
        "Read",
        {"file_path": "/home/dev/app/api/src/main.ts"},
        "1\tapp.enableCors({ origin: 'http://localhost:5177' })",
    )
    s.user(_notice(LATER, "failed"))
    for rec in s.records[at:] if restarted else ():  # the CLI restarted, then compacted
        rec["sessionId"] = "another-run"
    return s


def _lines(s: Session) -> list[Line]:
    path_bytes = b"\n".join(s.lines()) + b"\n"
    t = read_transcript("s.jsonl", path_bytes)
    return list(t.meta.lines)


def test_the_reader_notes_only_the_jobs_nothing_before_the_boundary_ended() -> None:
    lines = _lines(_session())
    start, _order, live = history_order(lines)
    found = earlier_jobs(lines, start, live)
    assert [j["id"] for j in found] == [DEV, TUNNEL, LATER], found
    assert found[0]["command"] == "cd frontend && npm run dev -- --port 5177", found
    raw = b"\n".join(_session().lines()) + b"\n"
    first = read_transcript("s.jsonl", raw).messages[0]
    assert [j["id"] for j in first.extra[EARLIER_CALLS_KEY]["jobs"]] == [DEV, TUNNEL, LATER]


def test_the_summary_lists_the_jobs_still_running_from_before_the_compaction(
    tmp_path: Path,
) -> None:
    pending = section(cc_summary(_session(), tmp_path), 7)
    assert DEV in pending and TUNNEL in pending, pending
    assert "started before the earlier compaction" in pending, pending
    assert "npm run dev -- --port 5177" in pending and "ngrok http 5177" in pending, pending
    for gone in (KILLED, DONE):  # stopped, or polled as completed, before the boundary
        assert gone not in pending, pending
    running = [ln for ln in pending.splitlines() if LATER in ln]
    assert all("still running" not in ln for ln in running), running  # its notice came after


def test_a_job_of_an_earlier_run_of_the_cli_is_not_listed(tmp_path: Path) -> None:
    """A restart ends the CLI's background shells: jobs started by another ``sessionId`` than
    the one that wrote the file's last records are not running."""
    pending = section(cc_summary(_session(restarted=True), tmp_path), 7)
    assert DEV not in pending and TUNNEL not in pending, pending


@pytest.mark.parametrize("status", ["completed", "killed"])
def test_a_notice_before_the_boundary_ends_the_job(status: str) -> None:
    s = _session()
    at = next(i for i, r in enumerate(s.records) if r.get("subtype") == "compact_boundary")
    tail = s.records[at:]
    s.records = s.records[:at]
    s.user(_notice(DEV, status))
    s.records.extend(tail)
    lines = _lines(s)
    start, _order, live = history_order(lines)
    assert DEV not in [j["id"] for j in earlier_jobs(lines, start, live)]


def test_a_session_without_its_own_compaction_notes_nothing() -> None:
    s = Session()
    s.user("run it")
    _started(s, DEV, "npm run dev")
    raw = b"\n".join(s.lines()) + b"\n"
    assert all(EARLIER_CALLS_KEY not in m.extra for m in read_transcript("s.jsonl", raw).messages)


def _killed_later(kill: str) -> Session:
    """A dev server started in the background before the compaction, then a later foreground
    command before it that kills by program name or port."""
    s = Session()
    s.user("run the dashboard")
    _started(s, DEV, "cd dashboard && npx next dev --port 3001")
    s.bash(kill, "")
    s.say("Restarted.")
    s.compacted("This session is being continued from a previous conversation. Summary: ...")
    s.user("is it up?")
    s.bash("curl -s localhost:3001 | head -1", "<!DOCTYPE html>")
    return s


def test_a_later_kill_of_its_program_before_the_boundary_ends_the_job(tmp_path: Path) -> None:
    """(set 28 cc-mkauth, seen: ``sudo killall -9 node`` after the job started; the job was
    listed as running once the reader noted jobs before the boundary.)"""
    pending = section(cc_summary(_killed_later("pkill -f 'next dev'"), tmp_path), 7)
    assert DEV not in pending, pending


def test_a_later_kill_of_its_port_only_says_it_may_still_run(tmp_path: Path) -> None:
    pending = section(cc_summary(_killed_later("lsof -ti:3001 | xargs kill -9"), tmp_path), 7)
    assert DEV in pending and "may still be running" in pending, pending
    assert "do not start it again" not in pending, pending
