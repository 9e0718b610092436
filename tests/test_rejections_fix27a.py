"""One owner for "the user rejected this call" (blind check 26, N1; rows 1180-1181).

The summary's facts (``facts.stops``), its job state (``facts.jobstate``) and reduction
(``reduction.results``) each had their own phrase list: Codex's "exec command rejected by user"
was no rejection to the job state, "User rejected the tool call." none to the summary, "The user
doesn't want to take this action right now" none to the summary's facts. Every phrase below goes
through every caller, so they cannot diverge again.
"""

from __future__ import annotations

import pytest

from compactor.facts import outcome
from compactor.facts.jobstate import rejected
from compactor.facts.stops import STOPPED, rejection, user_stopped
from compactor.facts.text import Call, Result
from compactor.models.local import summarize_transcript
from compactor.reduction.results import carries_user_words, is_rejection
from compactor.rejections import is_rejection as owner

from .planted_session import SessionBuilder
from .test_models_local_session import section

CC_BARE = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
REJECTIONS = (
    CC_BARE,
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\nuse pnpm, not npm",
    "The user doesn't want to proceed with this tool use. The tool use was rejected. The user "
    "provided the following reason for the rejection: keep the old schema",
    "Error: The user doesn't want to take this action right now. STOP what you are doing and "
    "wait for the user to tell you how to proceed.",
    "The tool use was rejected (eg. if it was a file edit, the new_string was NOT written).",
    "exec command rejected by user",
    "patch rejected by user",
    "User rejected the tool call.",
    "  tool call declined by the user",
    "[Rejected by user]",
    "Permission for this call was denied by the user: the command did not run and nothing on "
    "disk changed. Ask the user before trying again; the call's arguments are shown above in "
    "full, so there is no need to repeat them here.",
)
NOT_REJECTIONS = (
    "[Request interrupted by user for tool use]",  # stopped while it ran: interrupted
    "aborted by user after 22.9s",
    "warning: 3 tests skipped\nexec command rejected by user",  # not the result's start
    "exec command rejected by user\n" + "retry log line\n" * 200,  # a log that mentions it
    "the user rejected",  # no object: a sentence of output
    "To github.com:u/app.git\n ! [rejected]        main -> main (fetch first)",
    "mkdir: /srv/app: Permission denied",
    "12 passed in 0.4s",
)


@pytest.mark.parametrize("text", REJECTIONS)
def test_every_caller_takes_every_rejection_for_one(text: str) -> None:
    call = Call("c1", "Bash", '{"command": "rm -rf build"}', 0)
    judged = outcome(Result("c1", "Bash", text), call)
    assert owner(text)
    assert rejection(text).startswith("The user rejected this call")  # the summary's facts
    assert user_stopped(text).startswith("The user rejected this call")
    assert judged.failed and judged.lines[0].startswith("The user rejected this call")
    assert rejected(text)  # the job state: a background call answered so started nothing
    assert is_rejection(text) and carries_user_words(text)  # reduction keeps it whole


@pytest.mark.parametrize("text", NOT_REJECTIONS)
def test_no_caller_takes_other_results_for_a_rejection(text: str) -> None:
    assert not owner(text)
    assert not rejection(text)
    assert not rejected(text)
    assert not is_rejection(text)
    assert not user_stopped(text).startswith("The user rejected")


def test_an_interruption_stays_an_interruption() -> None:
    assert user_stopped("[Request interrupted by user for tool use]").startswith(STOPPED)
    assert user_stopped("aborted by user after 22.9s").startswith(STOPPED)


@pytest.mark.parametrize("text", REJECTIONS)
def test_the_summary_and_its_job_state_say_rejected_for_every_phrase(text: str) -> None:
    """End to end: a background start and a command, both rejected with the same words: no job
    is said to run, and the command is said to be rejected, not run."""
    s = SessionBuilder()
    s.user("start the dev server, then clean the build folder")
    s.call("Bash", {"command": "pnpm dev", "run_in_background": True}, text)
    s.call("Bash", {"command": "rm -rf build"}, text)
    s.user("leave both for now and write the release notes")
    s.call("Write", {"file_path": "/w/NOTES.md", "content": "# Notes\n"}, "File created")
    s.say("The release notes are in NOTES.md.")
    summary = summarize_transcript(s.messages)
    assert "still running" not in section(summary, 7), summary
    assert "The user rejected this call" in section(summary, 4), summary
