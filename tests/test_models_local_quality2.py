"""Blind check 3's wrong statements in the local summary (issue 28, quality pass 2): an error
the API wrote is not an answer, an old call without a result is not in flight, earlier
summaries inside user messages are shown once and bounded, a re-run that succeeded resolves a
failure, and the next step names every open question."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED, IN_FLIGHT

from .planted_session import SessionBuilder
from .test_models_local_session import section


def test_an_api_error_after_the_request_is_no_answer_and_the_request_is_unanswered() -> None:
    """solsmile-claude: the user's last two requests were each followed only by the CLI's
    ``API Error: 400 …`` message; the summary called the request completed and quoted the
    error as "the answer"."""
    s = SessionBuilder()
    s.user("Build the contracts.")
    s.call("Bash", {"command": "npx hardhat compile"}, "Compiled 3 Solidity files successfully")
    s.say("Everything is built: the contracts compile and 69 tests pass. " * 3)
    s.user("Deploy the contract to the testnet now.")
    s.say('API Error: 400 {"type":"error","error":{"type":"invalid_request_error"}}')
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "The latest request is not answered yet" in pending
    assert "errors the API or the agent CLI wrote (1), not answers" in pending
    work = section(text, 8)
    assert "was completed" not in work
    assert "The answer to it" not in work
    assert ANSWERED not in text
    assert "Answer the latest request" in section(text, 9)
    assert "Deploy the contract to the testnet now." in section(text, 9)


def test_a_call_without_result_followed_by_later_rounds_is_not_in_flight() -> None:
    """solsmile-claude: a build call left without a result ~100 messages before the end (the
    same build ran again three times later and succeeded) was "in flight when the session was
    saved" and the next step said to re-run it first."""
    s = SessionBuilder()
    s.user("Build the frontend and commit.")
    s.call("Bash", {"command": "npx next build"}, None)  # never answered: abandoned
    s.say("The build is taking long; running it again with output.")
    s.call("Bash", {"command": "npx next build 2>&1"}, "Compiled successfully")
    s.call("Bash", {"command": "git commit -am 'frontend'"}, "[master 1a2b3c4] frontend")
    s.say("The frontend builds and is committed.")
    text = summarize_transcript(s.messages)
    assert IN_FLIGHT not in text
    assert "run them again" not in section(text, 9)
    assert f"None: {ANSWERED}." in section(text, 9)


def test_the_last_rounds_call_without_result_is_still_in_flight() -> None:
    """The rule's other side: parallel calls of the final round, one answered and one not, and
    no later round: the unanswered one is in flight."""
    s = SessionBuilder()
    s.user("Export the session and read the package file.")
    s.call("shell_command", {"command": "bash export-session.sh ."}, None)
    s.call("shell_command", {"command": "cat package.json"}, '{"name": "app"}')
    text = summarize_transcript(s.messages)
    assert f"{IN_FLIGHT} (1;" in section(text, 7)
    assert "bash export-session.sh ." in section(text, 9)
