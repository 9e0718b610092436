"""Blind check 20 (issue 28, fix20b): a harness's evaluation notice is no user request; work
after Claude Code's own summary that ended with an answer ended answered; a unified-exec
session whose last poll said it still runs is an open job."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript
from compactor.models.local_evalnotice import is_evaluation_notice
from compactor.schema import Message, ToolCall

from .cc_session import Session
from .planted_session import SessionBuilder
from .test_models_local_session import section

_NOTICE = "The agent has finished. Now running automated tests to validate the solution."
_REPORT = (
    "=" * 40 + "\nGRADING REPORT\n" + "=" * 40 + "\n--- CHECKS ---\n"
    "✓ PASS: Lint check\n       Warnings: 0\n       Items processed: 0\n"
    "✓ PASS: Unit suite -> parser\n       Coverage: 100.00% (required: 100%)\n"
    "✗ FAIL: Unit suite -> printer\n       Coverage: 80.00% (required: 100%)\n"
    "--- METRICS ---\nWall Clock Time:     0.00 sec\nTotal Items:  0\n" + "=" * 40
)


def _graded() -> str:
    """An OpenAI-chat session: the request, the agent's work and answer, then the harness's
    notice (user role, third person) and its own calls that build, run and grade the work."""
    build = ToolCall("c1", "Bash", json.dumps({"command": "make build"}))
    grade = ToolCall("c2", "Bash", json.dumps({"command": "pytest grade.py::test_grade"}))
    write = ToolCall("w1", "Write", json.dumps({"file_path": "src/parser.py", "content": "x=1"}))
    msgs = [
        Message(role="system", content="You are a coding agent."),
        Message(role="user", content="Write a parser in src/parser.py with full test coverage."),
        Message(role="assistant", content="", tool_calls=[write]),
        Message(
            role="tool", content="File created successfully at: src/parser.py", tool_call_id="w1"
        ),
        Message(role="assistant", content="Done: src/parser.py is written and covered."),
        Message(role="user", content=_NOTICE),
        Message(role="assistant", content="Compiling the project", tool_calls=[build]),
        Message(role="tool", content="building...\nerrors: 0, warnings: 0", tool_call_id="c1"),
        Message(role="assistant", content="Analyzing results and grading", tool_calls=[grade]),
        Message(role="tool", content=_REPORT, tool_call_id="c2"),
    ]
    return summarize_transcript(msgs)


def test_a_harness_notice_is_no_request_and_its_grading_report_ends_the_work() -> None:
    """taxi-chat: "The agent has finished. Now running automated tests …" (user role, written by
    the harness) was the current request, "still in progress"; §9 said to continue it, and the
    grading report's PASS lines were dropped for "Total Transactions: 0"."""
    text = _graded()
    intent, pending, current, step = (section(text, n) for n in (1, 7, 8, 9))
    assert 'Current request: "The agent has finished' not in intent, intent
    assert "Write a parser" in intent, intent
    assert "still in progress" not in pending and "in progress" not in current, (pending, current)
    assert "Continue the latest request" not in step, step
    assert "evaluated" in current and "evaluated" in step, (current, step)
    assert "✓ PASS: Lint check" in current and "✗ FAIL: Unit suite -> printer" in current, current
    assert "wait for the user" in step, step
    # the notice's result lines come before any metric line, and every verdict is kept
    assert current.count("PASS:") == 2, current
    # a user writing about "the agent" who asks for something is a request
    for asked in (
        "The agent has finished the refactor. Now running the tests shows 3 failures, fix them.",
        "The agent has finished. Now run the tests and tell me if you see errors?",
    ):
        assert is_evaluation_notice(_NOTICE) and not is_evaluation_notice(asked), asked


def _own_summary_then_answer(tmp_path: Path, answered: bool) -> str:
    s = Session()
    s.user(
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nSummary:\n## 1. Primary Request and Intent\n"
        "Fix the audio capture.\n\n## 7. Pending Tasks\n- Disable echo cancellation in "
        "capture.ts\n\n## 8. Current Work\nWas about to edit capture.ts.\n\n"
        "## 9. Optional Next Step\nEdit capture.ts to disable echo cancellation.\n"
    )
    s.records[-1]["isCompactSummary"] = True
    s.bash("cat src/capture.ts", "echoCancellation: true,")
    s.bash("sed -i 's/true/false/' src/capture.ts", "")
    if answered:
        s.assistant([{"type": "text", "text": "Done. Echo cancellation is off; rerun the app."}])
    path = tmp_path / f"own{answered}.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def test_work_after_an_own_summary_that_ended_with_an_answer_ended_answered(
    tmp_path: Path,
) -> None:
    """k3rn-speechy: after Claude Code's own summary the fix was applied and answered ("Fait …
    reteste"), but §7 and §9 sent the agent back to the earlier summary's next step."""
    text = _own_summary_then_answer(tmp_path, answered=True)
    pending, step = section(text, 7), section(text, 9)
    assert "the work after it ended with an answer; nothing is pending" in pending, pending
    assert "wait for the user's next message" in step, step
    assert "Continue the earlier summary's work" not in step, step
    assert "Edit capture.ts to disable" not in step, step
    # without the answer, the older path stays (calls ran, nothing answered)
    open_text = _own_summary_then_answer(tmp_path, answered=False)
    assert "Continue the earlier summary's work" in section(open_text, 9), section(open_text, 9)


def test_config_names_in_the_cut_part_of_a_quoted_own_summary_survive(tmp_path: Path) -> None:
    """k3rn-speechy: OVERLAY_SIZE 320x72 and WHISPER_LANGUAGE=fr were in the part of the own
    summary's file list cut with "… (2375 more characters)": the names in the cut part are
    listed after the cut."""
    filler = "".join(
        f"- **src/mod{n}.ts** - Reworked the handler number {n} to keep its state local. "
        for n in range(300)  # past the 20,000 characters a section keeps whole (check 53 N5)
    )
    s = Session()
    s.user(
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nSummary:\n## 1. Primary Request and Intent\n"
        "Fix the overlay.\n\n## 3. Files and Code Sections\n" + filler
        + "- **src/config/constants.ts** - PANEL_SIZE changed to 320x72.\n"
        "- **.env** - enabled `APP_LANGUAGE=fr`.\n\n## 7. Pending Tasks\n- None\n"
    )  # fmt: skip
    s.records[-1]["isCompactSummary"] = True
    s.user("is the overlay smaller now?")
    s.assistant([{"type": "text", "text": "Yes, it is 320x72 now."}])
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    text = summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)
    files = section(text, 3)
    assert "more characters" in files, files  # the quote is cut
    assert "PANEL_SIZE" in files and "APP_LANGUAGE=fr" in files, files


def _polled(cmd: str, answered: bool) -> str:
    """A Codex exec session started, polled once with ``write_stdin`` (still running, no exit
    code), never mentioned again; other work, then (optionally) the answer."""
    b = SessionBuilder()
    b.user("Add short routes like /12 to the board.")
    running = "Wall time: {t} seconds\nProcess running with session ID 67001\nOutput:\n"
    b.call("exec_command", {"cmd": cmd, "yield_time_ms": 1000}, running.format(t="1.0016"))
    b.call("write_stdin", {"session_id": 67001, "chars": ""}, running.format(t="5.0016"))
    b.call("exec_command", {"cmd": "ls app"}, "Process exited with code 0\nOutput:\napp.py\n")
    b.call("apply_patch", {"input": "*** Begin Patch\n*** Update File: app.py\n"}, "Success.")
    if answered:
        b.say("Done: app.py now routes /12 to the board of grade 1, section 2.")
    return summarize_transcript(b.messages)


def test_a_polled_exec_session_still_running_at_its_last_poll_is_an_open_job() -> None:
    """dimi-codex: ``find .. -name AGENTS.md`` (session 67141) still said "Process running"
    at its last poll and never ended, but §7 said "no background job … is open"."""
    server = _polled("npm run dev", answered=True)
    pending = section(server, 7)
    assert "67001" in pending and "no task, background job" not in pending, pending
    assert "still running" in pending, pending
    # a bounded search, session answered: said as it was at its last poll, not as an order
    search = _polled("find .. -name AGENTS.md -print", answered=True)
    pending, step = section(search, 7), section(search, 9)
    assert "67001" in pending and "no task, background job" not in pending, pending
    assert "was still running at its last poll" in pending, pending
    assert "its output was not read" in pending, pending
    assert "do not start it again" not in pending, pending
    assert "do not start" not in step, step
    # a bounded search while the work goes on (no answer): an open job
    busy = section(_polled("find .. -name AGENTS.md -print", answered=False), 7)
    assert "67001" in busy and "still running" in busy, busy


def test_a_report_s_pass_fail_lines_are_what_its_call_returned() -> None:
    """taxi-chat: the last action's result was given as "Wall Clock Time: 0.00 sec | Total
    Transactions: 0", dropping every "✓ PASS" line of the grading report."""
    grade = ToolCall("g1", "Bash", json.dumps({"command": "pytest grade.py::test_grade"}))
    msgs = [
        Message(role="user", content="Write a parser in src/parser.py and grade it."),
        Message(role="assistant", content="Grading it", tool_calls=[grade]),
        Message(role="tool", content=_REPORT, tool_call_id="g1"),
    ]
    current = section(summarize_transcript(msgs), 8)
    assert "1 of 3 checks FAILED: ✗ FAIL: Unit suite -> printer" in current, current
    report = _REPORT.replace("✗ FAIL", "✓ PASS")
    passed = [*msgs[:2], Message(role="tool", content=report, tool_call_id="g1")]
    current = section(summarize_transcript(passed), 8)
    assert "all 3 checks PASS" in current and "Total Items" not in current, current


def test_eval_judges_a_session_ended_by_the_harness_s_evaluation_answered(tmp_path: Path) -> None:
    """``compact eval`` flagged the summary's "answered" as wrong for taxi-chat: it read the
    harness's notice as the last request and its calls as work before any reply."""
    from compactor.facts import entries_of
    from compactor.runs.ended import ending_of
    from compactor.runs.evaluate import _is_request

    build = ToolCall("c1", "Bash", json.dumps({"command": "make build"}))
    msgs = [
        Message(role="user", content="Write a parser in src/parser.py."),
        Message(role="assistant", content="Done: src/parser.py is written."),
        Message(role="user", content=_NOTICE),
        Message(role="assistant", content="Compiling the project", tool_calls=[build]),
        Message(role="tool", content="✓ PASS: build", tool_call_id="c1"),
    ]
    ending = ending_of(entries_of(msgs), _is_request)
    assert ending is not None and ending.answered, ending
    # a real request after the answer, then calls: not answered
    msgs[2] = Message(role="user", content="Now also add a printer to src/printer.py.")
    ending = ending_of(entries_of(msgs), _is_request)
    assert ending is not None and not ending.answered, ending


def test_eval_a_call_the_log_kept_without_result_mid_session_is_not_in_flight() -> None:
    """taxi-chat: two parallel ``make clean_compile`` calls have no result in the export; the
    agent went on (a later result, then its next turn): not "2 call(s) in flight" at the end."""
    from compactor.facts import entries_of
    from compactor.runs.ended import ending_of
    from compactor.runs.evaluate import _is_request

    lost = ToolCall("l1", "Bash", json.dumps({"command": "make clean"}))
    build = ToolCall("b1", "Bash", json.dumps({"command": "make build"}))
    msgs = [
        Message(role="user", content="Build the project."),
        Message(role="assistant", content="", tool_calls=[lost]),
        Message(role="assistant", content="", tool_calls=[build]),
        Message(role="tool", content="built", tool_call_id="b1"),
        Message(role="assistant", content="Built: the project compiles."),
    ]
    ending = ending_of(entries_of(msgs), _is_request)
    assert ending is not None and ending.answered, ending
    # the same call at the end, with no turn after it: in flight
    ending = ending_of(entries_of([*msgs[:4], msgs[1]]), _is_request)
    assert ending is not None and not ending.answered and "in flight" in ending.why, ending
