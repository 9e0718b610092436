"""Blind check 28 (fix28d): a plan-approval call rejected with the user's words asks for a revised
plan, and a plan-approval call left open waits for the user's approval (W3); an interrupt long
before the end is not how the session ended (W4)."""

from __future__ import annotations

from typing import Any

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession
from .codex_rollout import codex_say, codex_summary, codex_user
from .test_models_local_session import section

_REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). "
)
_SAID = _REJECTED + "To tell you how to proceed, the user said:\n"
_BARE = _REJECTED + "STOP what you are doing and wait for the user to tell you how to proceed."
_PLAN = "/home/dev/.claude/plans/quiet-sky.md"
_FEEDBACK = (
    "Quick validation and minor refinements: one instance with separate databases is feasible; "
    "add a backup step per database.",
    "The implementation plan you've outlined is excellent. Add rate limiting to the gateway and "
    "pin Postgres to 16.",
    "The refined plan is very strong and production-ready. Use Resend for outbound e-mail.",
)


def _tool(call: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": name, "input": args}


def _result(s: CcSession, call: str, text: str, error: bool = False) -> None:
    s.user([{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}])


def _summary(s: CcSession, tmp_path: Any) -> str:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(s.lines()) + b"\n")
    return summarize_transcript(read_transcript(str(path), path.read_bytes()).messages)


def _plan_session(rejections: tuple[str, ...], interrupt: bool = True) -> CcSession:
    """Plan mode: a request, (an interrupted explore subagent,) six answered question sets, a plan
    file, then one ExitPlanMode per rejection (each rejected, the plan edited after it) and a
    last ExitPlanMode with no result: the session ends waiting for the user's approval."""
    s = CcSession()
    s.user("Plan a control panel with a database per app; ask me what you need to know.")
    if interrupt:
        s.assistant(
            [
                {"type": "text", "text": "I'll explore the repository first."},
                _tool("toolu_t1", "Task", {"description": "Explore", "prompt": "look around"}),
            ]
        )
        _result(s, "toolu_t1", "[Request interrupted by user for tool use]", True)
        s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    for i in range(6):
        question = {"question": f"Which option for part {i}?", "header": f"P{i}", "options": []}
        s.assistant([_tool(f"toolu_q{i}", "AskUserQuestion", {"questions": [question]})])
        _result(s, f"toolu_q{i}", f'User has answered your questions: "{question["question"]}"="A"')
    s.assistant([_tool("toolu_w", "Write", {"file_path": _PLAN, "content": "# Plan\n1. one\n"})])
    _result(s, "toolu_w", f"File created successfully at: {_PLAN}")
    for i, answer in enumerate(rejections):
        s.assistant(
            [
                {"type": "text", "text": f"I've written the implementation plan (version {i})."},
                _tool(f"toolu_x{i}", "ExitPlanMode", {"plan": f"# Plan v{i}\n1. one\n2. two"}),
            ]
        )
        _result(s, f"toolu_x{i}", answer, True)
        edit = {"file_path": _PLAN, "old_string": "1. one", "new_string": f"1. one ({i})"}
        s.assistant(
            [
                {"type": "text", "text": "I'll fold that into the plan."},
                _tool(f"toolu_e{i}", "Edit", edit),
            ]
        )
        _result(s, f"toolu_e{i}", f"The file {_PLAN} has been updated.")
    s.assistant(
        [
            {"type": "text", "text": "The plan now covers every refinement."},
            _tool("toolu_last", "ExitPlanMode", {"plan": "# Plan vN\n1. one\n2. two"}),
        ]
    )
    return s


# -- 1330-1331: a plan rejected with the user's words is a request to change it (W3) ------------


def test_a_plan_rejected_with_the_users_words_is_a_request_to_change_it(tmp_path: Any) -> None:
    """cc-mkplan: three ExitPlanMode calls rejected with praise and refinements were "proposals
    the user turned down (do not act on them)" and calls "not to be redone unasked"; the 4th,
    with no result, was to be checked and "run again if still needed"."""
    text = _summary(_plan_session(tuple(_SAID + x for x in _FEEDBACK)), tmp_path)
    problems = section(text, 5)
    assert "turned down" not in text and "not to be redone unasked" not in text, problems
    assert "rejected by the user" not in text.lower(), text
    for said in _FEEDBACK:
        assert f'the user asked to change the plan: "{said}"' in problems, problems
        assert f"{said} (the user asked to change the plan)" in section(text, 1), text
    assert "the revised plan (#4) awaits the user's approval" in section(text, 7), text
    step = section(text, 9)
    assert "Wait for the user's answer: the revised plan (#4) awaits the user's approval" in step
    assert "run them again" not in step, step
    assert "`ExitPlanMode" not in section(text, 4), text  # feedback on a plan is no error


def test_a_plan_rejected_without_words_stays_a_rejected_call(tmp_path: Any) -> None:
    """A bare rejection (only the CLI's STOP text) stays as fix27a made it: a rejected call."""
    text = _summary(_plan_session((_BARE,)), tmp_path)
    assert "The user rejected: `ExitPlanMode(plan=# Plan v0" in section(text, 5), text
    assert "asked to change the plan" not in text, text
    assert "the plan (#2) awaits the user's approval" in section(text, 7), text


# -- 1332: how the session ended comes from its last records, not an earlier interrupt (W4) -----


def test_an_interrupt_long_before_the_end_is_not_how_the_session_ended(tmp_path: Any) -> None:
    """cc-mkplan: the only interrupts hit explore subagents 80 records before the end; after
    them six question sets were answered and three plans revised, yet sections 8 and 9 said "The
    user interrupted the turn … the request was left unfinished"."""
    text = _summary(_plan_session(tuple(_SAID + x for x in _FEEDBACK)), tmp_path)
    assert "interrupted the turn" not in text, text


def test_an_interrupt_that_ends_the_session_is_still_said(tmp_path: Any) -> None:
    s = CcSession()
    s.user("Refactor the billing module")
    s.assistant([_tool("toolu_1", "Bash", {"command": "pytest -q tests/billing"})])
    _result(s, "toolu_1", "[Request interrupted by user for tool use]", True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    text = _summary(s, tmp_path)
    assert "The user interrupted the turn" in section(text, 8), text


# -- 1333-1334: an earlier summary's task completed since, its files edited since (W2) ----------

_UI = "/srv/panel/src/components"


def _earlier_summary() -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user wants a cleaner dashboard."
        "\n\nSummary:\n## 1. Primary Request and Intent\nRedesign the dashboard UI.\n\n"
        "## 2. Key Technical Concepts\n- design tokens\n\n## 3. Files and Code Sections\n"
        f"- {_UI}/sidebar.tsx (edited)\n\n## 4. Errors and Fixes\nNone.\n\n"
        "## 5. Problem Solving\nA shared token file.\n\n## 6. All User Messages\n\n"
        '1. "make the dashboard look professional"\n\n## 7. Pending Tasks\n\n'
        "- **Task #1**: Redesign dashboard UI for professional appearance (In Progress)\n"
        "- Still need to update remaining components (organization-switcher, "
        "notification-center)\n\n## 8. Current Work\n\nUpdating the sidebar.\n\n"
        "## 9. Optional Next Step\n\nUpdate the remaining components.\n"
    )


def _redesign_session(*, done: bool, closed: bool = True) -> CcSession:
    s = CcSession()
    s.compacted(_earlier_summary())
    s.user("go on with the redesign")
    if done:
        for name in ("organization-switcher", "notification-center"):
            edit = {"file_path": f"{_UI}/{name}.tsx", "old_string": "a", "new_string": "b"}
            s.assistant([_tool(f"toolu_{name}", "Edit", edit)])
            _result(s, f"toolu_{name}", f"The file {_UI}/{name}.tsx has been updated.")
        if closed:
            update = {"taskId": "1", "status": "completed"}
            s.assistant([_tool("toolu_done", "TaskUpdate", update)])
            _result(s, "toolu_done", "Updated task #1 status")
    else:
        edit = {"file_path": f"{_UI}/index.tsx", "old_string": "a", "new_string": "b"}
        s.assistant([_tool("toolu_index", "Edit", edit)])
        _result(s, "toolu_index", f"The file {_UI}/index.tsx has been updated.")
    s.assistant([{"type": "text", "text": "The dashboard components are redesigned."}])
    return s


def test_an_earlier_summarys_task_completed_and_its_files_edited_since_are_said(
    tmp_path: Any,
) -> None:
    """cc-mkauth: the earlier summary's "Task #1 … (In Progress) … still need to update
    organization-switcher, notification-center" was quoted as pending after both were edited
    and ``TaskUpdate {"taskId": "1", "status": "completed"}`` closed the task."""
    pending = section(_summary(_redesign_session(done=True), tmp_path), 7)
    assert "Of those, done by the calls after the earlier summary" in pending, pending
    assert "task #1 marked completed since (`TaskUpdate`)" in pending, pending
    assert (
        "The files it names were edited after it (check them before redoing that work): "
        f"{_UI}/organization-switcher.tsx, {_UI}/notification-center.tsx"
    ) in pending, pending


def test_an_earlier_summarys_task_not_touched_since_is_said_done_by_nothing(
    tmp_path: Any,
) -> None:
    """Only the items the calls since closed or whose files they edited: an unrelated file
    (``index.tsx``, a stem that names nothing) and no task update say nothing is done."""
    pending = section(_summary(_redesign_session(done=False), tmp_path), 7)
    assert "Pending in the earlier summary" in pending, pending
    assert "done by the calls after the earlier summary" not in pending, pending
    assert "were edited after it" not in pending, pending


def test_a_todo_list_completion_of_an_item_the_earlier_summary_names_is_said(
    tmp_path: Any,
) -> None:
    s = _redesign_session(done=False)
    todos = [
        {"content": "Redesign dashboard UI for professional appearance", "status": "completed"},
        {"content": "Write the release notes", "status": "pending"},
    ]
    s.assistant([_tool("toolu_todo", "TodoWrite", {"todos": todos})])
    _result(s, "toolu_todo", "Todos have been modified successfully.")
    pending = section(_summary(s, tmp_path), 7)
    assert (
        '"Redesign dashboard UI for professional appearance" marked completed since (`TodoWrite`)'
        in pending
    ), pending
    assert '"Write the release notes" marked' not in pending, pending


# -- 1335-1336: two commands' templates are two requests; a pick answers its own question (W8) ---

_TEMPLATE_HEAD = (
    "## User Input\n\n```text\n\n```\n\nYou **MUST** consider the user input before proceeding "
    "(if not empty).\n\n## Outline\n\n1. **Setup**: Run `.specify/scripts/bash/"
)


def _template(script: str, steps: str) -> str:
    body = "".join(
        f"{n}. {steps} step {n}: read the inputs, write the outputs.\n" for n in range(2, 60)
    )
    return f"{_TEMPLATE_HEAD}{script} --json` from the repo root and parse its JSON.\n{body}"


_PLAN_CMD = _template("setup-plan.sh", "Plan: research, data model, contracts and quickstart")
_TASKS_CMD = _template("check-prerequisites.sh", "Tasks: a dependency-ordered tasks.md")


_ROLLOUT = ("1a2b3c4d-0000-4000-8000-000000000028", "/w/pa")  # its session_meta: id, cwd


def test_two_commands_whose_templates_share_a_head_are_two_requests(tmp_path: Any) -> None:
    """cx-che: the empty-input templates of ``/speckit.plan`` and ``/speckit.tasks`` share their
    first 130 characters; the plan request vanished and the tasks one was "sent 2 times,
    edited; the last version"."""
    records = [
        codex_user(_PLAN_CMD),
        codex_say("plan.md, research.md and data-model.md are written."),
        codex_user(_TASKS_CMD),
        codex_say("tasks.md is written."),
    ]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "sent 2 times" not in text, text
    assert "setup-plan.sh" in section(text, 6), section(text, 6)
    assert "check-prerequisites.sh" in section(text, 1), section(text, 1)


def test_a_message_sent_again_with_an_edit_in_the_middle_is_still_one(tmp_path: Any) -> None:
    first = _PLAN_CMD.replace("step 30:", "step 30 (skip the quickstart):")
    records = [codex_user(first), codex_user(_PLAN_CMD), codex_say("Planning.")]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "(sent 2 times, edited; the last version)" in text, text


def test_the_same_pick_answering_two_questions_is_two_answers(tmp_path: Any) -> None:
    """cx-che: "A" answered the report-masking question and, later, the reproducibility one;
    they were one "A (sent 2 times)"."""
    records = [
        codex_user("Clarify the spec for the platform planner"),
        codex_say("Question 1: should planner reports mask secrets?\nA) no masking\nB) mask all"),
        codex_user("A"),
        codex_say("Question 2: how many automatic retries?\nA) 2\nB) 3"),
        codex_user("B"),
        codex_say("Question 3: reproducibility of runs?\nA) pin seeds\nB) best effort"),
        codex_user("A"),
        codex_say("Recorded: no masking, 3 retries, pinned seeds."),
    ]
    text = codex_summary(records, tmp_path, *_ROLLOUT)
    assert "sent 2 times" not in text, text
    assert section(text, 6).count("- A\n") == 2, section(text, 6)


def test_an_earlier_summarys_files_edited_since_are_said_without_calling_its_task_done(
    tmp_path: Any,
) -> None:
    """Edits of the files an item names are work on it, not its end: said, to be checked."""
    pending = section(_summary(_redesign_session(done=True, closed=False), tmp_path), 7)
    assert "not pending any more" not in pending, pending
    assert "The files it names were edited after it (check them before redoing" in pending
    assert f"{_UI}/notification-center.tsx" in pending, pending
