"""Blind check 6's wrong statements in the local summary (issue 28, quality pass 5): a rate
limit the CLI wrote after work is no answer and the sub-agents launched before it are reported
with their outcome; a CLI setting command is no request; a shell ``&`` job is running; a long
user message keeps its constraints; a reaction is no constraint."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED

from .planted_session import SessionBuilder
from .test_durable_context import _codex_session, _compact
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
    step = section(text, 9)
    assert "Continue the latest request" in step
    assert "Re-run the work started for it that failed" in step, step
    assert "`Agent: Containerization`, `Agent: CI and docs`" in step
    intent = section(text, 1)
    assert 'Initial request: "Build the incident board' in intent, intent
    assert "/effort" not in intent


def test_a_shell_ampersand_server_is_a_running_job_and_a_failed_attempt_is_not() -> None:
    """kcosr-codex: ``python -m http.server 8000 &`` failed (``python: not found``, exit 0 from
    the shell), ``python3 -m http.server 8000 &`` started the server, never stopped: the summary
    named only the failed attempt and no running job."""
    s = SessionBuilder()
    s.user("Serve the generated HTML so I can look at it.")
    s.call(
        "shell_command",
        {"command": "python -m http.server 8000 &"},
        "Exit code: 0\nWall time: 0 seconds\nOutput:\n/bin/sh: 1: python: not found\n",
    )
    s.call(
        "shell_command",
        {"command": "python3 -m http.server 8000 &"},
        "Exit code: 0\nWall time: 4 seconds\nOutput:\n",
    )
    s.say("A web server is now running on port 8000.")
    s.user("Now fix the usage text in the README.")
    s.call("shell_command", {"command": "sed -i 's/old/new/' README.md"}, "Exit code: 0")
    text = summarize_transcript(s.messages)
    assert "python3 -m http.server 8000 &" in section(text, 7), section(text, 7)
    assert "python -m http.server 8000 &`" not in section(text, 7)
    assert "python3 -m http.server 8000 &" in section(text, 9)
    assert "(id python3" not in text  # the command is its name, not an id


def test_a_stopped_ampersand_server_is_not_running() -> None:
    """The same job stopped later (``pkill -f http.server``) is not running."""
    s = SessionBuilder()
    s.user("Serve the generated HTML, then stop it.")
    s.call("shell_command", {"command": "python3 -m http.server 8000 &"}, "Exit code: 0\n")
    s.call("shell_command", {"command": "pkill -f http.server"}, "Exit code: 0\n")
    s.say("Served and stopped.")
    s.user("Now fix the README.")
    s.call("shell_command", {"command": "sed -i 's/old/new/' README.md"}, "Exit code: 0")
    text = summarize_transcript(s.messages)
    assert "still running" not in text


def test_the_next_step_drops_a_tools_advice_to_force() -> None:
    """kcosr-codex: the last action failed with "Refusing to stop current session … Pass --force
    to override."; the next step quoted the advice beside the closing "without asking the user",
    inviting the agent to force-stop its own session."""
    s = SessionBuilder()
    s.user("Call agents.js stop with your session id.")
    s.call(
        "shell_command",
        {"command": "agents.js stop 49ef2cd4"},
        "Exit code: 1\nOutput:\nRefusing to stop current session (49ef2cd4). Pass --force to "
        "override.\n",
    )
    step = section(summarize_transcript(s.messages), 9)
    assert "Continue the latest request" in step, step
    assert "Refusing to stop current session" in step
    assert "--force" not in step
    assert "not the user's request" in step


def test_a_hold_is_not_lifted_by_a_pasted_plan_and_a_long_keep_sentence_is_a_constraint() -> None:
    """duet-codex: "DO NOT CHANGE ANY CODE YET." was lifted by the word "change" deep inside a
    later pasted plan (another agent's text, not the user asking), and the long sentence "I don't
    think we are going to add a new role …, keep the current owner / admin / user divide, …"
    was dropped: cut at its length limit it ended in "is" and read as a fragment, and its "I
    don't think" was taken for a hold lifted by a later "think"."""
    s = SessionBuilder()
    s.user(
        "Owners should be able to transfer ownership. I don't think we are going to add a new "
        'role such as billing, keep the current "owner" / "admin" / "user" divide, but the need '
        "for admin to maintain billing is real, because usually the owner is someone at the "
        "upper level and the real management is handled by the admin.\n\n"
        "DO NOT CHANGE ANY CODE YET. Step back and reason about the module holistically."
    )
    s.say("Here is my analysis of the roles and the transfer flow. " * 10)
    pasted = "\n".join(f"- Update `src/mod{n}.ts`: rename the helper {n}." for n in range(120))
    s.user(
        "I think about it differently now. Here is the plan I drafted:\n"
        + pasted[:1500]
        + "\n- Update `src/billing/actions.test.ts`: change `vi.mock` to expose the client.\n"
        + pasted
        + "\nReview the plan critically."
    )
    s.say("The plan is sound with two caveats about the hook and the transaction. " * 10)
    intent = section(summarize_transcript(s.messages), 1)
    assert "DO NOT CHANGE ANY CODE YET." in intent, intent
    assert 'keep the current "owner" / "admin" / "user" divide' in intent, intent


def test_a_reaction_is_not_a_constraint() -> None:
    """speakfree-claude: "I don't think that's it." (a reaction to the assistant's attempt) was
    listed as a user constraint; a constraint asks for or forbids something."""
    s = SessionBuilder()
    s.user("The transcription is cut off at the end. Fix it.")
    s.call("Bash", {"command": "swift build"}, "Build complete!")
    s.say("I raised the buffer size; try again. " * 5)
    s.user("I don't think that's it. Don't touch the audio settings, look at the model instead.")
    intent = section(summarize_transcript(s.messages), 1)
    assert "I don't think that's it" not in intent.split("Constraints", 1)[-1], intent
    assert "Don't touch the audio settings" in intent
    s.user("i don't think we need a Dockerfile")  # a preference: it forbids something
    rules = section(summarize_transcript(s.messages), 1).split("Constraints", 1)[-1]
    assert "- i don't think we need a Dockerfile" in rules, rules


def test_a_long_user_message_cut_in_the_middle_keeps_its_orders(tmp_path: Path) -> None:
    """duet-codex: a pasted GitHub issue with the user's "DO NOT CHANGE ANY CODE YET." in its
    middle was kept as its first and last 600 characters: the order was lost. The pasted
    material goes first; the user's orders from the cut middle are kept."""
    issue = "".join(f"Line {i} of the pasted issue about billing seats.\n" for i in range(40))
    first = (
        issue
        + "\n---\n\nDO NOT CHANGE ANY CODE YET. Keep the current owner / admin / user roles.\n"
        + "- Update `src/a.ts`: do not export the helper.\n"
        + "## SECTION 2 — VERIFIED NETWORK DETAILS\n║ FOUNDER PASS ║ NAME ··· ONLY ║\n"
        + issue
    )
    src = _codex_session(tmp_path / "cx.jsonl", [first, "Now review the spec."])
    text = _compact(src, tmp_path / "out.jsonl")
    block = text.split("<all_user_messages>")[1].split("</all_user_messages>")[0]
    assert "characters truncated (the full text is user message 1 of the original" in block
    assert "Line 20 of the pasted issue" not in block
    assert (
        "kept from it: DO NOT CHANGE ANY CODE YET. Keep the current owner / admin / user roles."
        in block
    ), block
    assert "do not export the helper" not in block  # a pasted plan's line, not the user's order
    assert "SECTION 2" not in block and "FOUNDER" not in block  # a heading, box art


def test_files_linked_in_review_findings_are_kept() -> None:
    """duet-codex: a review's findings linked the files they were about
    (``[hook.ts](/repo/src/hook.ts:26)``); the summary kept only identifiers, not the files."""
    s = SessionBuilder()
    s.user("Code-review my changes on the branch.")
    s.call("Bash", {"command": "git diff main --stat"}, " 12 files changed")
    s.say(
        "**Findings**\n\nCritical: [auth-member-role-hook.ts]"
        "(/repo/src/auth-member-role-hook.ts:26)"
        " still permits demoting an owner.\n\nHigh: [cancelTransfer](/repo/src/transfer/"
        "transfer-service.ts:173) races acceptance; see [queries.ts](/repo/src/transfer/queries.ts:"
        "40) and [actions.ts](</repo/src/app/(portal)/actions.ts:36>)."
    )
    s.user("where is the session history file?")
    s.say("It is ~/.codex/sessions/2026/05/25/rollout.jsonl.")
    files = section(summarize_transcript(s.messages), 3)
    for name in ("auth-member-role-hook.ts", "transfer/transfer-service.ts", "transfer/queries.ts"):
        assert name in files, files
