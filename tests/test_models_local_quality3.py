"""Blind check 4's wrong statements of where work stands (issue 28), each judged by shape:
harness notices are not requests, an earlier turn's answer is not the current request's
deliverable, calls that ended only as events are not in flight, failures that were worked
around, that established a fact or that were meant to fail are not unresolved, and an earlier
summary's facts are kept whole."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

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
    assert "The latest request is in progress (no answer yet): " in work
    assert "Now write the api Dockerfile." in work


def test_the_deliverable_of_an_answered_request_is_still_shown() -> None:
    s = SessionBuilder()
    s.user("Review the Dockerfiles.")
    s.call("Bash", {"command": "ls api/"}, "Dockerfile main.py")
    s.say("Findings: the api Dockerfile has no HEALTHCHECK and runs as root. " * 12)
    text = summarize_transcript(s.messages)
    assert "Final deliverable" in section(text, 8)
