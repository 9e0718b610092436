"""Blind check 6's wrong statements in the local summary (issue 28, quality pass 5): a rate
limit the CLI wrote after work is no answer and the sub-agents launched before it are reported
with their outcome; a CLI setting command is no request; a shell ``&`` job is running; a long
user message keeps its constraints; a reaction is no constraint."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED

from .planted_session import SessionBuilder
from .test_models_local_session import section


def _notification(agent: str, description: str, status: str) -> str:
    return (
        f"<task-notification>\n<task-id>{agent}</task-id>\n<status>{status}</status>\n"
        f'<summary>Agent "{description}" {status}: Agent terminated early due to an API error: '
        "You've hit your session limit · resets 2:10am</summary>\n</task-notification>"
    )


def test_a_rate_limit_after_async_agents_is_no_answer_and_their_failures_are_reported() -> None:
    """renew-claude: after ``/effort max`` and a plan, the user asked to fan out agents; three
    async ``Agent`` calls were launched, then the CLI wrote "You've hit your session limit" and
    each agent's ``<task-notification>`` said it failed. The summary called the request completed
    with the limit message as "the answer", said nothing is pending, did not mention the failed
    agents, and took ``/effort max`` as the initial request."""
    s = SessionBuilder()
    s.user("<command-name>/effort</command-name>\n<command-args>max</command-args>")
    s.user("Build the incident board: plan it, then code and test it.")
    s.call("Bash", {"command": "npm test"}, "Tests 41 passed (41)")
    s.say("The board works and the 41 tests pass; the remaining pieces are independent. " * 8)
    s.user("fan out agents to do the remaining tasks in parallel")
    agents = [("a52729c6f82075c0f", "Containerization"), ("a9faf1a482b9fc85e", "CI and docs")]
    for agent, description in agents:
        s.call(
            "Agent",
            {"description": description, "prompt": f"You are adding {description}."},
            "Async agent launched successfully.\n"
            f"agentId: {agent} (internal ID - do not mention to user.)",
        )
    for agent, description in agents:
        s.say("You've hit your session limit · resets 2:10am (Australia/Melbourne)")
        s.user(_notification(agent, description, "failed"))
    s.say("You've hit your session limit · resets 2:10am (Australia/Melbourne)")
    text = summarize_transcript(s.messages)
    work = section(text, 8)
    assert "The latest request is in progress" in work, work
    assert "was completed" not in work and "The answer to it" not in work
    assert "ended with errors the API or the agent CLI wrote (3), not an answer" in work
    for _, description in agents:
        assert f"Started for it: `Agent: {description}`, which failed" in work, work
    assert ANSWERED not in text
    assert "Continue the latest request" in section(text, 9)
    intent = section(text, 1)
    assert 'Initial request: "Build the incident board' in intent, intent
    assert "/effort" not in intent
