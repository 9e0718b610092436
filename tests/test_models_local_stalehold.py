"""A stop-and-wait rejection after Claude Code's own compaction with no typed request since
(blind check 40, W1; RELIABILITY rows 1870-1889): the user steered only through answers to the
agent's questions, the work went on for many calls, and the session ended with the user
rejecting the agent's last question with the CLI's "STOP … wait for the user" text. Section 9
is to wait for the user, not the own summary's next step ("wait for quota, then dispatch Task
8"), which the calls since made stale. The sessions are built here."""

from __future__ import annotations

from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session
from .test_models_local_session import section

_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
_SAID = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\n{}"
)
_NOTICE = "[Request interrupted by user for tool use]"
_OLD_STEP = "Wait until the quota is back, then dispatch the Task 8 subagent with its prompt."
_PUSH = {
    "question": "The branch is ready. What now?",
    "header": "Finish",
    "multiSelect": False,
    "options": [
        {"label": "Push", "description": "Push the branch to the review server"},
        {"label": "Keep local", "description": "Leave the commits on this machine"},
    ],
}
_QUOTA = {
    "question": "Is the quota back?",
    "header": "Quota",
    "multiSelect": False,
    "options": [{"label": "Yes", "description": "Dispatch Task 8"}, {"label": "No"}],
}


def _own_summary() -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user runs a module plan.\n\n"
        "Summary:\n1. Primary Request and Intent:\n   Carry out the module plan, Tasks 1-15.\n\n"
        "2. Key Technical Concepts:\n   - module registry\n\n3. Files and Code Sections:\n"
        "   - docs/plan.md (written)\n\n4. Errors and fixes:\n   - 402 quota errors\n\n"
        "5. Problem Solving:\n   Tasks 1-7 done.\n\n6. All user messages:\n"
        '   - "Run the plan"\n\n7. Pending Tasks:\n   - Task 8: the router pilot\n'
        "   - Task 15: the memory entry\n\n8. Current Work:\n   Waiting for the quota.\n\n"
        f"9. Optional Next Step:\n   {_OLD_STEP}\n"
        "Please continue the conversation from where we left it off without asking the user "
        "any further questions. Continue with the last task that you were asked to work on."
    )


def _ask(s: Session, key: str, question: dict[str, Any], result: str, error: bool) -> None:
    ask = {"type": "tool_use", "id": key, "name": "AskUserQuestion"}
    s.assistant([{**ask, "input": {"questions": [question]}}])
    out = {"type": "tool_result", "tool_use_id": key, "content": result, "is_error": error}
    s.user([out])


def _session(tmp_path: Any, rejection: str = _BARE, request: str = "") -> str:
    s = Session()
    s.compacted(_own_summary())
    if request:
        s.user(request)
    _ask(
        s, "toolu_q1", _QUOTA, 'User has answered your questions: "Is the quota back?"="Yes"', False
    )
    for n in range(8, 16):
        s.call("Task", {"description": f"Task {n}", "prompt": f"Do task {n}"}, f"Task {n} done")
        s.call("Bash", {"command": f"git commit -m 'task {n}'"}, f"[main {n:07d}] task {n}")
    s.say("All fifteen tasks are done and committed.")
    _ask(s, "toolu_q2", _PUSH, rejection, True)
    s.user([{"type": "text", "text": _NOTICE}])
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


@pytest.mark.parametrize("rejection", [_BARE, _SAID.format("STOP")], ids=["cli", "users-stop"])
def test_a_hold_after_the_work_since_the_own_summary_is_the_next_step(
    tmp_path: Any, rejection: str
) -> None:
    text = _session(tmp_path, rejection)
    step = " ".join(section(text, 9).split()).split("Next Step:", 1)[1].strip()
    assert step.startswith("Wait for the user"), step
    assert "Option 1: Push" in step, step
    assert _OLD_STEP not in step and "Continue the earlier summary's work" not in step, step
    assert "not the next step now" in step, step


def test_the_users_own_stop_is_a_hold_not_a_correction(tmp_path: Any) -> None:
    """With a typed request too: the user's "STOP" rejecting the last question is no correction
    to act on ("First act on the user's correction"): wait for the user."""
    text = _session(tmp_path, _SAID.format("STOP, wait for me"), request="Run Tasks 8 to 15.")
    step = " ".join(section(text, 9).split()).split("Next Step:", 1)[1].strip()
    assert step.startswith("Wait for the user"), step
    assert 'said "STOP, wait for me"' in step and "First act on" not in step, step
    assert "without a word of their own" not in step, step


def test_a_rejection_whose_words_say_more_than_stop_stays_a_correction(tmp_path: Any) -> None:
    text = _session(tmp_path, _SAID.format("stop, push to the gerrit remote instead"), "Run it.")
    step = " ".join(section(text, 9).split()).split("Next Step:", 1)[1].strip()
    assert step.startswith("First act on the user's correction"), step
