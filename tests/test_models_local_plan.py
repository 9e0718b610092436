"""The agent's task list from Claude Code's TaskCreate/TaskUpdate: only what succeeded counts,
and a task's id is the one its creation's result returned (blind check 37, W2)."""

from __future__ import annotations

import json

from compactor.facts import entry_of
from compactor.models.local import summarize_transcript
from compactor.models.local_session import Session, build_session
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder

_INVALID = (
    "<tool_use_error>InputValidationError: TaskUpdate failed due to the following issue:\n"
    'The parameter `status` type is expected as `enum` but provided as `"\\"completed\\""`'
    "</tool_use_error>"
)
_SUBJECTS = ("Add Ref to the AST", "Teach the type checker refs", "Parse & and *",
             "Emit refs in the backend", "Test ref and deref")  # fmt: skip


def _state(messages: list[AgenticMessage]) -> Session:
    return build_session([entry_of(i, m) for i, m in enumerate(messages)])


def _section7(messages: list[AgenticMessage]) -> str:
    text = summarize_transcript(messages).split("<summary>", 1)[1]
    start = text.index("\n7. ")
    return text[start : text.index("\n8. ", start)]


def _parallel_creates(s: SessionBuilder, first: int) -> None:
    """Five TaskCreate calls in one message, then their results ("Task #N created")."""
    calls, results = [], []
    for n, subject in enumerate(_SUBJECTS, first):
        cid = f"toolu_c{n}"
        args = json.dumps({"subject": subject, "description": "...", "activeForm": "Working"})
        calls.append(Block("function_tool_call", call_id=cid, name="TaskCreate", arguments=args))
        said = [Block("user_input_text", f"Task #{n} created successfully: {subject}")]
        results.append(Block("function_tool_result", call_id=cid, name="TaskCreate", content=said))
    s.messages.append(AgenticMessage("assistant", calls))
    s.messages.append(AgenticMessage("user", results))


def test_failed_task_updates_change_nothing_and_every_created_task_is_listed() -> None:
    s = SessionBuilder()
    s.user("Add references to the toy language.")
    s.call("TaskCreate", {"subject": "Sketch the design"}, "Task #1 created successfully")
    s.call("TaskCreate", {"subject": "Review the grammar"}, "Task #2 created successfully")
    _parallel_creates(s, 3)
    s.call("TaskUpdate", {"taskId": "3", "status": '"completed"'}, _INVALID, error=True)
    s.call("TaskUpdate", {"taskId": "1", "status": '"deleted"'}, _INVALID, error=True)
    s.call("TaskUpdate", {"taskId": "9", "status": "completed"}, _INVALID, error=True)
    s.say("The status updates failed; carrying on with the parser.")
    state = _state(s.messages)
    assert [(t.key, t.subject, t.status) for t in state.tasks.values()] == [
        ("1", "Sketch the design", "pending"),
        ("2", "Review the grammar", "pending"),
        *((str(n), subject, "pending") for n, subject in enumerate(_SUBJECTS, 3)),
    ]
    listed = _section7(s.messages)
    assert "(TaskCreate; 0 of 7 done)" in listed
    assert all(subject in listed for subject in _SUBJECTS)
    assert '"completed"' not in listed and '"deleted"' not in listed and "task #9" not in listed


def test_a_rejected_update_changes_nothing_and_a_failed_create_creates_nothing() -> None:
    s = SessionBuilder()
    s.user("Clean up the build.")
    s.call("TaskCreate", {"subject": "Drop the old Makefile"}, "Task #4 created successfully")
    s.call("TaskCreate", {"subject": ""}, "InputValidationError: subject is empty", error=True)
    s.call(
        "TaskUpdate",
        {"taskId": "4", "status": "deleted"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        error=True,
    )
    s.call("TaskUpdate", {"taskId": "4", "status": "in_progress"}, "Updated task #4 status")
    state = _state(s.messages)
    assert [(t.key, t.subject, t.status) for t in state.tasks.values()] == [
        ("4", "Drop the old Makefile", "in_progress")
    ]


def test_an_update_without_a_result_yet_is_applied_as_written() -> None:
    s = SessionBuilder()
    s.user("Port the scheduler.")
    s.call("TaskCreate", {"subject": "Port the cron parser"}, "Task #1 created successfully")
    s.call("TaskCreate", {"subject": "Port the runner"}, "Task #2 created successfully")
    s.call("TaskUpdate", {"taskId": "1", "status": "completed"}, None)  # the session ends here
    state = _state(s.messages)
    assert [(t.key, t.status) for t in state.tasks.values()] == [
        ("1", "completed"),
        ("2", "pending"),
    ]
