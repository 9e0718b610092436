"""Blind check 76 (fix76): a report of a change done is no proposal the user turned down (W1); a
plan the user rejected bare, the session ending answered, is not to be presented again (W2)."""

from __future__ import annotations

from typing import Any

from .cc_session import Session as CcSession
from .cc_session import section

_PLAN_FILE = "/home/dev/.claude/plans/quiet-lake.md"
_REPO_PLAN = "/home/dev/app/PLAN.md"
_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)


def _tool(call: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def _result(s: CcSession, call: str, text: str, error: bool = False) -> None:
    s.user([{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}])


def _plan_session(
    *, report: str = "Saved the full plan to PLAN.md in the project root."
) -> CcSession:
    """Plan mode: the plan written, saved into the repository at the user's word, presented
    (ExitPlanMode) after ``report`` and rejected bare; then a new request, answered."""
    s = CcSession()
    s.user("Design the architecture of a build-order web app; plan it first.")
    s.records.append({"type": "permission-mode", "permissionMode": "plan", "sessionId": "5f0c"})
    s.attachment(
        {"type": "plan_mode", "reminderType": "full", "planFilePath": _PLAN_FILE,
         "planExists": False, "isSubAgent": False}
    )  # fmt: skip
    s.assistant([_tool("toolu_w", "Write", {"file_path": _PLAN_FILE, "content": "# Plan\n1. a"})])
    _result(s, "toolu_w", f"File created successfully at: {_PLAN_FILE}")
    s.assistant([_tool("toolu_r", "Write", {"file_path": _REPO_PLAN, "content": "# Plan\n1. a"})])
    _result(s, "toolu_r", f"File created successfully at: {_REPO_PLAN}")
    s.say(report)
    s.assistant([_tool("toolu_x", "ExitPlanMode", {"plan": "# Plan\n1. a"})])
    _result(s, "toolu_x", _BARE, error=True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user("How do I set the project up? Give me the steps, I don't want you to do it for me.")
    s.say("Here are the steps, following PLAN.md: 1. Run npm create vite. 2. Add redux.")
    return s


def test_a_report_of_a_change_done_is_no_rejected_proposal() -> None:
    decisions = section(_plan_session().summary(), 5)
    assert "Proposed, then the user rejected" not in decisions, decisions
    assert "The user rejected: `ExitPlanMode" in decisions, decisions  # the call stays rejected


def test_text_announcing_the_next_step_stays_a_rejected_proposal() -> None:
    s = _plan_session(report="Saved PLAN.md. Next I'll scaffold the client with npm create vite.")
    decisions = section(s.summary(), 5)
    assert "Proposed, then the user rejected its call (not run)" in decisions, decisions


def test_a_plan_rejected_bare_then_an_answered_request_is_not_presented_again() -> None:
    text = _plan_session().summary()
    for n in (7, 9):
        part = section(text, n)
        assert "present the plan with ExitPlanMode" not in part, part
        assert "carry the plan out" not in part, part
        assert "the user rejected plan #1 (its ExitPlanMode call" in part, part
        assert "do not present the plan again unasked; wait for the user" in part, part
    assert "No task is left to continue, so this step wins" in section(text, 9)


def test_a_plan_rejected_bare_with_the_last_request_unanswered_keeps_the_plan_mode_rule() -> None:
    s = _plan_session()
    s.records.pop()  # the last request is not answered yet
    step = section(s.summary(), 9)
    assert "rejected plan #" not in step, step
