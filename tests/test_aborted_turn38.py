"""A message the user interrupted at once is no request (blind check 38 W1, by shape).

The request was answered; the user then sent a mistyped command and interrupted that turn at
once (Codex's ``<turn_aborted>`` notice and ``turn_aborted`` event, or Claude Code's bare
``[Request interrupted by user]``), with no assistant output and no call in between. The
summary made the mistyped text the current request and section 9 said "Answer the latest
request". The answered request stays the current one and section 9 says to wait for the user;
a message whose turn the assistant had started on before the interrupt stays the request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compactor.models.local import summarize_transcript

from .codex_rollout import codex_say, codex_summary, codex_user, rec
from .planted_session import SessionBuilder
from .test_models_local_session import section

ASK = "The usage gauge shows 0% instead of N/A now; make it show the real percentages."
ANSWER = (
    "Fixed the parse order in src/gauge.ts: the gauge now shows 5% and 78%. Build and the 24 "
    "tests pass; reconnect to check it."
)
TYPO = "/stauts/stat"
NOTICE = (
    "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running processes may "
    "still be running in the background; verify current state before retrying.\n</turn_aborted>"
)
EVENT = rec("event_msg", {"type": "turn_aborted", "reason": "interrupted"})


def _shell(call_id: str, command: list[str], output: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "name": "shell", "call_id": call_id}
    call["arguments"] = json.dumps({"command": command})
    done = {"type": "function_call_output", "call_id": call_id, "output": output}
    return [rec("response_item", call), rec("response_item", done)]


def _rollout(*, answered: bool, notice: bool, worked: bool = False) -> list[dict[str, Any]]:
    """The answered (or still running) request, then the mistyped command and its abort."""
    records = [
        rec("turn_context", {"cwd": "/work/gauge"}),
        codex_user(ASK),
        rec("event_msg", {"type": "user_message", "message": ASK}),
        *_shell("c1", ["npm", "test"], "24 passed"),
    ]
    if answered:
        records += [
            codex_say(ANSWER),
            rec("event_msg", {"type": "task_complete", "last_agent_message": ANSWER}),
        ]
    records += [
        rec("event_msg", {"type": "task_started"}),
        codex_user(TYPO),
        rec("event_msg", {"type": "user_message", "message": TYPO}),
        rec("turn_context", {"cwd": "/work/gauge"}),
    ]
    if worked:  # the assistant started on it before the interrupt
        records += _shell("c2", ["ls", "src"], "gauge.ts\nmain.ts")
    return [*records, *([codex_user(NOTICE)] if notice else []), EVENT]


def _check_withdrawn(text: str) -> None:
    intent, users = section(text, 1), section(text, 6)
    current, step = section(text, 8), section(text, 9)
    assert ASK in intent and TYPO not in intent, intent
    assert TYPO in users, users  # still among the user's messages
    assert "not answered yet" not in section(text, 7) + current, text
    assert f'sent "{TYPO}" and interrupted that turn at once' in current, current
    assert "ask the user whether to continue with it" in current, current  # (49 W4)
    assert "\n   Wait for the user: " in step, step
    assert "Answer the latest request" not in step and ASK in step, step
    assert "Do not start it or run anything on your own" in step, step  # (49 W4)


def test_a_codex_message_interrupted_at_once_is_no_request(tmp_path: Path) -> None:
    text = codex_summary(_rollout(answered=True, notice=True), tmp_path, "s-ab", "/work/gauge")
    _check_withdrawn(text)


def test_a_codex_turn_aborted_event_alone_withdraws_it_too(tmp_path: Path) -> None:
    text = codex_summary(_rollout(answered=True, notice=False), tmp_path, "s-ev", "/work/gauge")
    _check_withdrawn(text)


def test_a_claude_code_message_interrupted_at_once_is_no_request() -> None:
    s = SessionBuilder()
    s.user(ASK)
    s.call("Bash", {"command": "npm test"}, "24 passed")
    s.say(ANSWER)
    s.user(TYPO)
    s.user("[Request interrupted by user]")
    _check_withdrawn(summarize_transcript(s.messages))


def test_the_answers_question_is_still_said_in_the_step() -> None:
    s = SessionBuilder()
    s.user(ASK)
    s.say("The gauge reads the weekly field first. Should it show the hourly limit instead?")
    s.user(TYPO)
    s.user("[Request interrupted by user]")
    step = section(summarize_transcript(s.messages), 9)
    assert "\n   Wait for the user: " in step and "Should it show the hourly limit" in step, step


def test_an_interrupt_after_the_assistant_started_keeps_the_request(tmp_path: Path) -> None:
    """Guard: the turn had a call before the interrupt: the message stays the request."""
    records = _rollout(answered=True, notice=True, worked=True)
    text = codex_summary(records, tmp_path, "s-worked", "/work/gauge")
    assert f'Current request: "{TYPO}"' in section(text, 1), section(text, 1)
    assert "interrupted that turn at once" not in text, text
    assert "The user interrupted the turn" in section(text, 8), section(text, 8)


def test_a_claude_code_interrupt_after_an_answer_keeps_the_request() -> None:
    """Guard: the assistant wrote text for the message before the interrupt."""
    s = SessionBuilder()
    s.user(ASK)
    s.say(ANSWER)
    s.user(TYPO)
    s.say("Checking the status command now.")
    s.user("[Request interrupted by user]")
    text = summarize_transcript(s.messages)
    assert TYPO in section(text, 8) and "interrupted that turn at once" not in text, text


def test_interrupted_at_once_during_unfinished_work_continues_the_request(
    tmp_path: Path,
) -> None:
    """The request was still in progress: it stays the current one, left unfinished."""
    text = codex_summary(_rollout(answered=False, notice=True), tmp_path, "s-mid", "/work/gauge")
    current, step = section(text, 8), section(text, 9)
    assert ASK in section(text, 1) and TYPO not in section(text, 1), section(text, 1)
    assert "interrupted that turn at once" in current and "left unfinished" in current, current
    assert "Answer the latest request" not in step and ASK in step, step
