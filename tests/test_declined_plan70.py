"""A plan whose work the user declined (blind check 70 W3): after "Shall I proceed with the
fixes?" answered "No, not for now", the plan's pending items are declined for now, not open
work (section 7, the plan reminder) and section 9 does not send the agent to them. Sessions
built by shape, invented content."""

from __future__ import annotations

import pytest

from compactor.facts import entry_of
from compactor.facts.declined_plan import asks_to_proceed, declines
from compactor.formats.registry import read_transcript
from compactor.pipeline.plan_block import plan_reminder
from compactor.schema import AgenticMessage

from .cc_session import Session, section

_TODOS = [
    {"id": "1", "content": "Review the parser module", "status": "completed", "priority": "high"},
    {"id": "2", "content": "Fix the enum lookup in cli.py", "status": "pending", "priority": "hi"},
    {"id": "3", "content": "Remove the stray quote in rules.xml", "status": "pending",
     "priority": "low"},
]  # fmt: skip


def _session(reply: str, question: str = "Shall I proceed with the fixes?") -> str:
    s = Session()
    s.user("review my converter project and find the errors")
    s.call("Read", {"file_path": "/home/ana/conv/cli.py"}, "import enum\nMode = enum.Enum")
    s.call("TodoWrite", {"todos": _TODOS}, "Todos have been modified successfully.")
    s.say(
        "I found two problems: the enum lookup in cli.py uses the wrong name, and rules.xml "
        f"has a stray quote on line 5.\n\n{question}"
    )
    s.user(reply)
    s.say("Understood. The errors are documented; tell me when you want me to fix them.")
    s.user("what does the --strict flag of the converter do?")
    s.say("It makes the converter stop at the first invalid rule instead of skipping it.")
    return s.summary()


def test_pending_items_of_a_declined_plan_are_no_open_work() -> None:
    summary = _session("No, not for now")
    pending = section(summary, 7)
    assert "Open items of the agent's task list" not in pending
    assert "declined for now by the user (do not start them unasked)" in pending
    assert "Fix the enum lookup in cli.py (marked pending)" in pending
    assert "Fix the enum lookup" not in section(summary, 9)
    assert "[pending] Fix the enum lookup" not in summary  # nor in the plan reminder


def test_a_plan_the_user_let_go_on_keeps_its_open_items() -> None:
    pending = section(_session("yes, go ahead"), 7)
    assert "declined" not in pending
    assert "[pending] Fix the enum lookup in cli.py" in pending


@pytest.mark.parametrize(
    "reply", ["No, de momento no", "no", "Not now", "nein, noch nicht", "non merci", "不用"]
)
def test_short_refusals(reply: str) -> None:
    assert declines(reply)


@pytest.mark.parametrize(
    "reply", ["No, fix only the enum", "no, use the other file", "yes", "sí", "why not?"]
)
def test_replies_that_are_no_bare_refusal(reply: str) -> None:
    assert not declines(reply)


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Los errores son estos.\n\n¿Procedo con las correcciones?", True),
        ("Do you want me to apply these changes?", True),
        ("Soll ich fortfahren?", True),
        ("要我继续修复吗？", True),
        ("Which of the two layouts do you prefer?", False),
        ("Shall I proceed? I will wait.", False),
    ],
)
def test_questions_whether_to_proceed(text: str, asks: bool) -> None:
    assert asks_to_proceed(text) is asks


def _plan_block(reply: str) -> str:
    s = Session()
    s.user("review my converter project and find the errors")
    s.call("TodoWrite", {"todos": _TODOS}, "Todos have been modified successfully.")
    s.say("The enum lookup in cli.py uses the wrong name.\n\nShall I proceed with the fixes?")
    s.user(reply)
    s.say("Understood.")
    raw = b"\n".join(s.lines()) + b"\n"
    messages = read_transcript("s.jsonl", raw).messages
    entries = [entry_of(i, m) for i, m in enumerate(messages) if isinstance(m, AgenticMessage)]
    block = plan_reminder(entries, list, 4_000)
    assert block is not None
    return block[0]


def test_the_plan_reminder_says_the_user_declined_the_plan() -> None:
    assert "the user declined for now" in _plan_block("No, not for now")
    assert "latest plan" in _plan_block("yes, go ahead")
