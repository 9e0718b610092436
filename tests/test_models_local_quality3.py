"""Blind check 4's wrong statements of where work stands (issue 28), each judged by shape:
harness notices are not requests, an earlier turn's answer is not the current request's
deliverable, calls that ended only as events are not in flight, failures that were worked
around, that established a fact or that were meant to fail are not unresolved, and an earlier
summary's facts are kept whole."""

from __future__ import annotations

import asyncio
import json

from compactor.facts.durable import earlier_summary_view
from compactor.formats.registry import read_transcript, write_transcript
from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import select_user_messages
from compactor.schema import CALL_ENDS_KEY

from .planted_session import SessionBuilder
from .test_models_local_session import section

_ABORTED = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running processes may "
    "still be running in the background; verify current state before retrying.\n</turn_aborted>"
)


def test_a_turn_aborted_notice_is_not_the_request_and_the_summary_says_the_user_interrupted() -> (
    None
):
    s = SessionBuilder()
    s.user("Audit the booking service for missing auth checks.")
    s.call("Bash", {"command": "rg -n 'def book' services/"}, "services/booking.py:12:def book(")
    s.call("Bash", {"command": "sed -n 1,80p services/booking.py"}, "def book(slot): ...")
    s.user(_ABORTED)
    text = summarize_transcript(s.messages)
    work, step = section(text, 8), section(text, 9)
    assert "The latest request is in progress (no answer yet): " in work
    assert "Audit the booking service for missing auth checks." in work
    assert "The user interrupted the turn" in work and "The user interrupted the turn" in step
    assert "Continue the latest request" in step and "Audit the booking service" in step
    assert "Answer the latest request" not in step
    assert "turn_aborted" not in work + step


def test_any_whole_message_snake_case_block_is_a_harness_notice_not_a_request() -> None:
    s = SessionBuilder()
    s.user("Rename the config loader.")
    s.call("Bash", {"command": "git mv cfg.py config_loader.py"}, "")
    s.user("<session_paused>\nThe harness paused the session for a quota check.\n</session_paused>")
    step = section(summarize_transcript(s.messages), 9)
    assert "Rename the config loader." in step and "session_paused" not in step


def test_an_earlier_turns_answer_is_not_the_deliverable_of_the_request_in_progress() -> None:
    s = SessionBuilder()
    s.user("Review the Dockerfiles.")
    verdict = "The api Dockerfile is empty and must be written before any deploy. " * 12
    s.say(verdict)
    s.user("Now write the api Dockerfile.")
    s.call("Bash", {"command": "ls api/"}, "Dockerfile main.py requirements.txt")
    text = summarize_transcript(s.messages)
    work = section(text, 8)
    assert "Final deliverable" not in text
    assert "An earlier request's answer, verbatim (NOT the answer to the current request" in work
    assert "The api Dockerfile is empty" in work  # its facts are kept, named for what they are
    assert "The latest request is in progress (no answer yet): " in work
    assert "Now write the api Dockerfile." in work


def test_the_deliverable_of_an_answered_request_is_still_shown() -> None:
    s = SessionBuilder()
    s.user("Review the Dockerfiles.")
    s.call("Bash", {"command": "ls api/"}, "Dockerfile main.py")
    s.say("Findings: the api Dockerfile has no HEALTHCHECK and runs as root. " * 12)
    text = summarize_transcript(s.messages)
    assert "Final deliverable" in section(text, 8)


def _rollout(*payloads: tuple[str, dict[str, object]]) -> bytes:
    meta = {"id": "s-1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w", "originator": "codex"}
    records = [{"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": meta}]
    for kind, payload in payloads:
        records.append({"timestamp": "2026-01-01T00:00:01Z", "type": kind, "payload": payload})
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _call(call_id: str, cmd: str) -> tuple[str, dict[str, object]]:
    args = json.dumps({"command": cmd})
    return "response_item", {"type": "function_call", "name": "shell_command",
                             "arguments": args, "call_id": call_id}  # fmt: skip


def _ended(call_id: str, code: int, output: str) -> tuple[str, dict[str, object]]:
    return "event_msg", {"type": "exec_command_end", "call_id": call_id, "exit_code": code,
                         "aggregated_output": output, "status": "completed"}  # fmt: skip


def test_calls_that_ended_only_as_codex_events_are_not_in_flight_and_the_file_is_unchanged() -> (
    None
):
    content = [{"type": "input_text", "text": "Draft the grant application."}]
    user: dict[str, object] = {"type": "message", "role": "user", "content": content}
    raw = _rollout(
        ("response_item", user),
        _call("call_a", "git config --get user.name"),
        _call("call_b", "git log --oneline -3"),
        _call("call_c", "Copy-Item a.jsonl b.jsonl"),
        _ended("call_a", 0, "octocat-dev\n"),
        _ended("call_b", 0, "f19876a bugs fixed\n"),
    )
    t = read_transcript("rollout.jsonl", raw)
    ends = [m.extra.get(CALL_ENDS_KEY) for m in t.messages if m.role == "assistant"]
    assert ends[0] == {"call_a": {"exit_code": 0, "output": "octocat-dev\n"}}
    assert ends[2] is None
    assert [m.role for m in t.messages] == ["user", "assistant", "assistant", "assistant"]
    assert write_transcript(t, list(t.messages)) == raw  # nothing new is written back
    text = summarize_transcript(t.messages)
    pending = section(text, 7)
    assert "in flight when the session was saved (1;" in pending
    assert "Copy-Item a.jsonl b.jsonl" in pending
    assert "git config --get user.name" not in pending and "git log" not in pending
    assert "octocat-dev" in text and "f19876a" in text


def test_a_timed_out_command_replaced_by_an_equivalent_that_worked_is_not_unresolved() -> None:
    s = SessionBuilder()
    s.user("Prepare the grant application.")
    timed_out = "Exit code: 124\nOutput:\ncommand timed out after 11915 milliseconds"
    s.call("shell_command", {"command": "bash -lc 'cat ~/.cfg/c.json'"}, timed_out, error=True)
    s.say("The bash preamble did not finish on this shell, so I'm switching to a PowerShell "
          "equivalent.")  # fmt: skip
    s.call("shell_command", {"command": "Get-Content $HOME/.cfg/config.json"}, "tier: anonymous")
    s.call("shell_command", {"command": "Copy-Item a.jsonl b.jsonl"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7)
    assert "Done without it, not to be fixed" in section(text, 4)


def test_a_probe_that_found_no_git_repository_is_a_fact_not_an_unresolved_failure() -> None:
    s = SessionBuilder()
    s.user("Collect proof of work for the application.")
    no_repo = "Exit code: 128\nOutput:\nfatal: not a git repository (or any parent)"
    s.call("exec_command", {"cmd": "git log --oneline -20"}, no_repo, error=True)
    s.say("There is no repository here, so I'll use the project's files as evidence.")
    s.call("exec_command", {"cmd": "ls docs"}, "plan.md\nREADME.md")
    s.call("exec_command", {"cmd": "cp session.jsonl proof/"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7)
    errors = section(text, 4)
    assert "A fact it established (not a failure to fix): " in errors
    assert "not a git repository" in errors


def test_runs_meant_to_fail_are_not_errors_left_unfixed() -> None:
    s = SessionBuilder()
    s.user("Harden the test suite.")
    s.say("All 31 tests pass. Now let me prove these tests can fail: each check reverts a fix "
          "in a scratch copy.")  # fmt: skip
    for _ in range(2):
        s.call("Bash", {"command": "zsh scratch/revert_fixes.sh"},
               "M1: suite red, 15 failing tests\nexit code 1", error=True)  # fmt: skip
    s.call("Bash", {"command": "zsh run_checks.sh"}, None)
    text = summarize_transcript(s.messages)
    errors = section(text, 4)
    assert "Not fixed" not in errors
    assert "Meant to fail (run to confirm a failure), not an error: " in errors
    assert "Unresolved failure" not in section(text, 7)


def _earlier_summary() -> str:
    needs = " ".join(
        f"Requirement {i}: the forecast check {i} keeps its own threshold." for i in range(12)
    )
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        f"1. Primary Request and Intent:\n   Build the rain alert. {needs} Also: RAIN_THRESHOLD "
        f"is an env variable and Discord messages are in French. {needs}\n\n"
        "2. Key Technical Concepts:\n   - esbuild bundles to dist/index.mjs\n\n"
        '6. All User Messages:\n   - "Build the rain alert"\n'
        '   - "I want RAIN_THRESHOLD as a variable and DEBUG logs"\n\n'
        "7. Pending Tasks:\n   - Update the tests\n\n8. Current Work:\n   Editing discord.ts\n"
    )


def test_an_earlier_summarys_sections_are_kept_in_whole_sentences() -> None:
    s = SessionBuilder()
    s.user(_earlier_summary(), injected=True, compact_summary=True)
    s.say("You've hit your limit · resets 1am")
    text = summarize_transcript(s.messages)
    first = section(text, 1)
    assert "RAIN_THRESHOLD is an env variable and Discord messages are in French." in first
    assert "Requirement 11: the forecast check 11 keeps its own threshold." in first


def test_all_user_messages_come_from_an_injected_earlier_summary_first() -> None:
    s = SessionBuilder()
    s.user(_earlier_summary(), injected=True, compact_summary=True)
    s.say("You've hit your limit · resets 1am")
    kept, _ = asyncio.run(select_user_messages(s.messages, 30_000, None, 2_000))
    assert len(kept) == 1
    view = kept[0]
    assert view.startswith("[the user's messages, as an earlier summary lists them]")
    assert "I want RAIN_THRESHOLD as a variable and DEBUG logs" in view
    assert "Primary Request" not in view  # the summary's other facts are the summary's job
    assert "Update the tests" not in view  # its stale state is left out


def test_an_earlier_summary_view_cuts_after_whole_sentences() -> None:
    view = earlier_summary_view(_earlier_summary(), 700)
    assert " … " in view
    for piece in view.split(" … ")[:-1]:
        assert piece.rstrip().endswith((".", '"', ")", ";")), piece[-60:]


def test_a_diagnosis_fixed_since_is_not_listed_as_a_decision() -> None:
    s = SessionBuilder()
    s.user("Review the inflation control.")
    s.say("**Button vs Toggle**: Uses a button that changes text instead of a proper toggle UI.")
    s.user("Make it a real toggle.")
    s.say("Now I need to update the script to work with the checkbox instead of the button.")
    s.call("Edit", {"file_path": "app.js", "old_string": "button", "new_string": "checkbox"}, "ok")
    problems = section(summarize_transcript(s.messages), 5)
    assert "Uses a button that changes text" not in problems
    assert "checkbox instead of the button" in problems


def test_a_diagnosis_nothing_fixed_stays() -> None:
    s = SessionBuilder()
    s.user("Review the inflation control.")
    s.say("**Button vs Toggle**: Uses a button that changes text instead of a proper toggle UI.")
    s.say("The chart legend now sits above the grid.")
    problems = section(summarize_transcript(s.messages), 5)
    assert "Uses a button that changes text" in problems


def test_a_file_created_then_multi_edited_keeps_its_latest_content() -> None:
    s = SessionBuilder()
    s.user("Write the chart script.")
    body = "\n".join(f"function step{i}(v) {{ return v + {i}; }}" for i in range(4))
    s.call("Write", {"file_path": "chart.js", "content": body + "\nfunction old() {}\n"}, "ok")
    edits = [{"old_string": "function old() {}", "new_string": "function toggleInflation() {}"},
             {"old_string": "step0", "new_string": "scaleSqrt"}]  # fmt: skip
    s.call("MultiEdit", {"file_path": "chart.js", "edits": edits}, "ok")
    files = section(summarize_transcript(s.messages), 3)
    assert "function toggleInflation() {}" in files and "function scaleSqrt(v)" in files


def test_a_harness_notice_is_not_among_the_users_messages_the_finalizer_keeps() -> None:
    s = SessionBuilder()
    s.user("Audit the booking service.")
    s.call("Bash", {"command": "ls services"}, "booking.py")
    s.user(_ABORTED)
    kept, _ = asyncio.run(select_user_messages(s.messages, 30_000, None, 2_000))
    assert kept == ["Audit the booking service."]
