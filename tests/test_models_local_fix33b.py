"""Blind check 33 (fix33b): an earlier summary's pending item the user interrupted before the
compaction and replaced with a new request is dropped, not pending (W5); one a later request
restated and the work since answered is done (W6); a session left in plan mode says so (format
gap); a result a later one superseded is labelled (N1)."""

from __future__ import annotations

from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .test_models_local_session import section

_PLAN_FILE = "/home/dev/.claude/plans/amber-river.md"


def _tool(call: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def _result(s: CcSession, call: str, text: str) -> None:
    s.user([{"type": "tool_result", "tool_use_id": call, "content": text}])


def _summary(s: CcSession) -> str:
    raw = b"\n".join(s.lines()) + b"\n"
    return summarize_transcript(list(read_transcript("session.jsonl", raw).messages))  # type: ignore[arg-type]


def _earlier(pending: str, current: str) -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user studies the timer driver."
        "\n\nSummary:\n1. Primary Request and Intent:\n   Explain how the timer driver works.\n\n"
        "2. Key Technical Concepts:\n   - tick counting\n\n3. Files and Code Sections:\n"
        "   - drivers/timer.c (read)\n\n4. Errors and fixes:\n   None.\n\n"
        "5. Problem Solving:\n   Traced the tick path.\n\n6. All user messages:\n"
        '   - "explain the timer driver"\n\n'
        f"7. Pending Tasks:\n{pending}\n\n8. Current Work:\n   {current}\n\n"
        "9. Optional Next Step:\n   Present the trace.\n"
    )


def _compacted(s: CcSession, summary: str, *, interrupted: bool) -> None:
    """The turns before Claude Code's own compaction (the last one interrupted or answered), the
    user's ``/compact`` records, the boundary and the summary."""
    s.user("explain the timer driver")
    s.assistant([{"type": "text", "text": "The timer driver counts ticks in drivers/timer.c."}])
    s.user("now trace the testing code path end to end")
    s.assistant([{"type": "text", "text": "Let me trace the testing code path."}])
    if interrupted:
        s.user([{"type": "text", "text": "[Request interrupted by user]"}])
    else:
        s.assistant([{"type": "text", "text": "The test calls timer_init, then tick()."}])
    s.user("<command-name>/compact</command-name>\n<command-message>compact</command-message>")
    s.user("<local-command-stdout>Compacted</local-command-stdout>")
    s._add(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 40000},
        }
    )
    s.user(summary)
    s.records[-1]["isCompactSummary"] = True


# -- W5: an earlier summary's pending answer the user interrupted, then a new request -----------

_TRACE_ITEM = (
    '   - Deliver the synthesized answer to "the testing code path": present the end-to-end '
    "source code trace for what demo_roundtrip.sh exercises."
)


def _interrupted_session(*, interrupted: bool) -> CcSession:
    s = CcSession()
    summary = _earlier(_TRACE_ITEM, "Tracing the testing code path when the user interrupted.")
    _compacted(s, summary, interrupted=interrupted)
    s.user("Add a watchdog to the timer driver that resets after 5 missed ticks.")
    edit = {"file_path": "/home/dev/board/drivers/timer.c", "old_string": "a", "new_string": "b"}
    s.assistant([_tool("toolu_e1", "Edit", edit)])
    _result(s, "toolu_e1", "The file /home/dev/board/drivers/timer.c has been updated.")
    s.assistant([{"type": "text", "text": "The watchdog resets the timer after 5 missed ticks."}])
    return s


def test_an_earlier_summarys_answer_the_user_interrupted_then_replaced_is_dropped() -> None:
    pending = section(_summary(_interrupted_session(interrupted=True)), 7)
    assert "dropped by the user (interrupted, then a new request)" in pending, pending
    assert "Pending in the earlier summary (some may be done since)" not in pending
    assert "demo_roundtrip.sh" in pending  # still quoted, as the work the user dropped


def test_an_earlier_summarys_answer_not_interrupted_is_not_said_dropped() -> None:
    pending = section(_summary(_interrupted_session(interrupted=False)), 7)
    assert "dropped by the user" not in pending, pending
    assert "demo_roundtrip.sh" in pending


# -- W6: an earlier summary's item a later request restated and the work since answered ---------

_PATCH_ITEMS = (
    "   - **Implement plugin patch to support V instructions in QEMU 1** — the handoff plugin "
    "drops vector state on a switch.\n"
    "   - Potential: extend state_drain.hpp::drain_with_passthrough for masked loads."
)


def _restated_session(*, worked: bool) -> CcSession:
    s = CcSession()
    summary = _earlier(_PATCH_ITEMS, "Reviewed how the handoff plugin saves vector state.")
    _compacted(s, summary, interrupted=False)
    s.user("make a plan: support V instructions in QEMU 1. patch the plugin?")
    s.assistant([{"type": "text", "text": "Plan: save vtype/vl and the v registers on handoff."}])
    if worked:
        s.user("go ahead")
        path = "/home/dev/board/qemu_plugin/hybrid_handoff.c"
        edit = {"file_path": path, "old_string": "save_x()", "new_string": "save_x(); save_v()"}
        s.assistant([_tool("toolu_e1", "Edit", edit)])
        _result(s, "toolu_e1", f"The file {path} has been updated.")
        s.bash('git commit -am "plugin: carry V state across handoff"', "[main b3525d7] plugin")
        s.assistant([{"type": "text", "text": "Committed b3525d7: the plugin carries V state."}])
    return s


def test_an_earlier_summarys_item_a_later_request_restated_and_did_is_done_since() -> None:
    text = _summary(_restated_session(worked=True))
    pending = section(text, 7)
    assert '"Implement plugin patch to support V instructions in QEMU 1" done since' in pending
    assert "1 file changed, 1 commit" in pending, pending
    assert "(some may be done since)" not in pending  # section 9 says nothing is pending
    assert "nothing is pending" in section(text, 9)


def test_an_earlier_summarys_item_only_planned_since_is_not_done() -> None:
    pending = section(_summary(_restated_session(worked=False)), 7)
    assert "done since (the user asked for it again" not in pending, pending


# -- Plan mode: a session whose last permission mode is plan ---------------------------------------


def _mode(s: CcSession, mode: str) -> None:
    s.records.append({"type": "permission-mode", "permissionMode": mode, "sessionId": "5f0c"})


def _plan_mode_session(*, then: str = "") -> CcSession:
    """Plan mode: the mode record, the user's request with its ``plan_mode`` attachment, the plan
    file written, the approval tool loaded (ToolSearch) and no ExitPlanMode call yet."""
    s = CcSession()
    s.user("Make the icount calibration configurable; plan it first.")
    _mode(s, "plan")
    s.attachment(
        {"type": "plan_mode", "reminderType": "full", "planFilePath": _PLAN_FILE,
         "planExists": False, "isSubAgent": False}
    )  # fmt: skip
    s.assistant([_tool("toolu_w", "Write", {"file_path": _PLAN_FILE, "content": "# Plan\n1. a"})])
    _result(s, "toolu_w", f"File created successfully at: {_PLAN_FILE}")
    s.assistant([_tool("toolu_s", "ToolSearch", {"query": "select:ExitPlanMode"})])
    _result(s, "toolu_s", "Loaded tool: ExitPlanMode")
    if then == "default":
        _mode(s, "default")
    elif then == "approved":
        s.assistant([_tool("toolu_x", "ExitPlanMode", {"plan": "# Plan\n1. a"})])
        _result(s, "toolu_x", "User has approved your plan. You can now start coding.")
        _mode(s, "acceptEdits")
    return s


def test_a_session_left_in_plan_mode_says_so_with_its_plan_file() -> None:
    text = _summary(_plan_mode_session())
    for n in (7, 9):
        part = section(text, n)
        assert "The session is in plan mode: present the plan with ExitPlanMode for the user's " \
            "approval before editing any file" in part, part  # fmt: skip
        assert _PLAN_FILE in part


def test_plan_mode_ends_when_the_mode_changes_or_the_plan_is_approved() -> None:
    for then in ("default", "approved"):
        text = _summary(_plan_mode_session(then=then))
        assert "in plan mode" not in text, (then, section(text, 7))


# -- N1: a result a later one superseded ----------------------------------------------------------


def _superseded_session(*, later: bool) -> CcSession:
    s = CcSession()
    s.user("The OCR endpoint hangs; make it fail fast and finish the setup tasks.")
    s.bash("curl -s localhost:3000/api/health", "curl: (7) Failed to connect")
    s.assistant(
        [{"type": "text", "text": "The health check failed because the app isn't running on "
          "port 3000. I added a 10s timeout to the OCR request in src/ocr.ts. I can't complete "
          "T001 in this session because installing dependencies requires network access."}]
    )  # fmt: skip
    if later:
        s.user('curl localhost:3000/api/health → {"status":"ok"}; the OCR call still aborts')
        s.assistant(
            [{"type": "text", "text": "I raised the timeout to 45s (OCR_TIMEOUT_MS). The "
              "escalated install worked, so T001 is done. The health check passes now."}]
        )  # fmt: skip
    s.user("Now list the parser's open issues.")
    s.bash("gh issue list --label parser", "12  parser drops empty pages")
    s.assistant([{"type": "text", "text": "One parser issue is open: #12, empty pages dropped."}])
    return s


def test_a_result_a_later_one_superseded_is_labelled() -> None:
    decisions = section(_summary(_superseded_session(later=True)), 5)
    for said in ("10s timeout", "can't complete T001", "health check failed"):
        line = next((x for x in decisions.splitlines() if said in x), "")
        assert line and "(superseded later:" in line, (said, decisions)
    decisions = section(_summary(_superseded_session(later=False)), 5)
    assert "10s timeout" in decisions and "superseded later" not in decisions, decisions


def test_plan_mode_from_the_mode_records_alone_names_the_plan_file_written() -> None:
    """No plan-mode attachment in the history (it came before the compaction): the mode record
    says plan mode, the plan file is the one the agent wrote into the plans folder."""
    s = _plan_mode_session()
    s.records = [r for r in s.records if r.get("type") != "attachment"]
    pending = section(_summary(s), 7)
    assert "The session is in plan mode" in pending and _PLAN_FILE in pending, pending


def test_a_timeout_a_constant_later_set_to_another_value_is_superseded() -> None:
    s = CcSession()
    s.user("The OCR call hangs.")
    s.assistant([{"type": "text", "text": "I added a 10s timeout to the OCR request."}])
    s.bash("grep -n TIMEOUT src/ocr.ts", "3: const OCR_TIMEOUT_MS = 10000")
    s.assistant([{"type": "text", "text": "Raised OCR_TIMEOUT_MS to 45000 for large scans."}])
    s.user("Now list the parser's open issues.")
    s.bash("gh issue list --label parser", "12  parser drops empty pages")
    s.assistant([{"type": "text", "text": "One parser issue is open: #12, empty pages dropped."}])
    decisions = section(_summary(s), 5)
    line = next((x for x in decisions.splitlines() if "10s timeout" in x), "")
    assert "(superseded later: 'Raised OCR_TIMEOUT_MS to 45000" in line, decisions


def test_an_interrupted_answer_the_user_then_asked_to_continue_is_not_dropped() -> None:
    for again in ("continue", "present the end-to-end source code trace for demo_roundtrip.sh"):
        s = CcSession()
        summary = _earlier(_TRACE_ITEM, "Tracing the testing code path when interrupted.")
        _compacted(s, summary, interrupted=True)
        s.user(again)
        s.assistant([{"type": "text", "text": "The test calls timer_init, then tick()."}])
        pending = section(_summary(s), 7)
        assert "dropped by the user" not in pending, (again, pending)
