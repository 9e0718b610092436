"""Blind check 76 (fix76): a report of a change done is no proposal the user turned down (W1); a
plan the user rejected bare, the session ending answered, is not to be presented again (W2)."""

from __future__ import annotations

from typing import Any

from compactor.models.local_unreadable import unreadable

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


# -- N1: a last user message that is no readable text --------------------------------------------

_BINARY = "\n\n\n\x88\x13\n\nX\n\n@@\n\n\x80ÚB\x05\x85±"


def test_binary_bytes_are_unreadable_and_text_with_escapes_or_emoji_is_not() -> None:
    assert unreadable(_BINARY)
    assert unreadable("\ufffd\ufffd\ufffd ok \ufffd")
    for text in (
        "Builda e testa 🚀🚀",
        "the build fails: \x1b[31merror\x1b[0m: undefined reference to `main'",
        "Ça marche, merci — próximo passo?",
    ):
        assert not unreadable(text), text


def _binary_session(*, answered: bool = True) -> CcSession:
    s = CcSession()
    s.user("the texture bleeds into the terrain; fix it")
    s.call("Edit", {"file_path": "/home/dev/rts/main.cpp", "old_string": "a", "new_string": "b"},
           "The file /home/dev/rts/main.cpp has been updated successfully.")  # fmt: skip
    if answered:
        s.say("Fixed: the terrain now binds a black 1x1 texture first. Build and test it.")
    s.user(_BINARY)
    return s


def test_an_unreadable_last_message_is_no_request() -> None:
    text = _binary_session().summary()
    step = section(text, 9)
    assert "Answer the latest request" not in step, step
    assert "is not readable text" in step and "Wait for the user" in step, step
    assert "the texture bleeds into the terrain" in step, step
    intent = section(text, 1)
    assert '"the texture bleeds into the terrain; fix it" (the current request)' in intent, intent
    assert "is not readable text" in section(text, 7), section(text, 7)


def test_an_unreadable_message_the_assistant_answered_is_left_as_it_was() -> None:
    s = _binary_session()
    s.say("I can't read that message; it looks like binary data.")
    assert "is not readable text" not in section(s.summary(), 9)


# -- W3: an earlier summary's item worked on since, then other work asked ------------------------

_EARLIER = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
    "1. Primary Request and Intent:\n   Build a small RTS editor.\n\n"
    "7. Pending Tasks:\n"
    "   - **Verify the last fixes pass tests**: the user runs `./scripts/test.sh`.\n"
    "   - **Update `editor/src/scene.cpp`** to:\n"
    "     1. Scan `assets/` for existing models and textures (.mdx, .gltf, .glb)\n"
    "     2. Place loaded models with their textures in the scene\n\n"
    "8. Current Work:\n   Fixing test segfaults.\n"
)
_SCENE = "/home/dev/rts/editor/src/scene.cpp"


def _worked_session(*, moved_on: bool) -> CcSession:
    s = CcSession()
    s.user("Start the RTS editor.")
    s.say("Started.")
    s.compacted(_EARLIER)
    s.user("I put a few models and textures inside assets, generate a terrain for them")
    s.call("Edit", {"file_path": _SCENE, "old_string": "// scene", "new_string": "scan_assets();"},
           f"The file {_SCENE} has been updated successfully.")  # fmt: skip
    s.say("Done: the editor scans assets/ and places every model with its texture.")
    if moved_on:
        s.user("generate a procedural map and place only the wolfrider on it")
        s.call("Edit", {"file_path": _SCENE, "old_string": "scan_assets();", "new_string": "w();"},
               f"The file {_SCENE} has been updated successfully.")  # fmt: skip
        s.say("Done: one wolfrider on a procedural 128x128 map.")
    return s


def test_an_earlier_item_worked_on_then_superseded_is_not_pending() -> None:
    pending = section(_worked_session(moved_on=True).summary(), 7)
    assert "worked on since, then the user asked for other work" in pending, pending
    assert '"Scan `assets/` for existing models and textures (.mdx, .gltf, .glb)"' in pending
    assert "wanted now" not in pending, pending
    worked = next(x for x in pending.splitlines() if "worked on since" in x)
    assert "Verify the last fixes" not in worked, worked  # its file was not changed


def test_an_earlier_item_worked_on_in_the_last_turn_gets_no_worked_on_line() -> None:
    pending = section(_worked_session(moved_on=False).summary(), 7)
    assert "worked on since, then the user asked" not in pending, pending
