"""Blind check 10's wrong statements of where work stands (issue 28, helper state9), each on a
session built here by shape: a quoted earlier answer's stale "next", a cause a later result
overtook, an answered session that ends with a late orphan result, a short new question that is
not a continuation, a slash command the CLI refused, and questions, fragments and conditional
plans that are not decisions."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder
from .test_models_local_session import section

_LIST = (
    "Done! Changes made:\n\n1. Removed the old opt-out wording\n2. Added a note on setup\n\n"
    "**Final session list:**\n```\n1-2. [x] Done\n3. [ ] Output Testing ← NEXT\n"
    "4. [ ] Ideas Discussion\n5. [ ] Naming Review\n6. [ ] First-Time Setup\n```\n\n"
    "Session 2 complete! The plan file lists every remaining session with its goals, the "
    "questions each must answer, the files it is expected to touch and the checks that tell "
    "when it is done; the decisions log keeps the reasons for every choice made so far, and "
    "the README links the plan file from its contributing section."
)


# -- 2. a quoted earlier answer's "next" that later messages moved on from -------------------------


def test_a_quoted_earlier_answers_next_mark_is_labelled_superseded() -> None:
    s = SessionBuilder()
    s.user("Update the plan file and list the remaining sessions.")
    s.call("Edit", {"file_path": "/p/PLAN.md", "old_string": "a", "new_string": "b"}, "ok")
    s.say(_LIST)
    s.user("Almost: make Naming Review the immediate next session instead.")
    edit: dict[str, object] = {
        "file_path": "/p/PLAN.md",
        "old_string": "3: Output",
        "new_string": "3: Naming",
    }
    s.call("Edit", edit, "ok")
    s.say("Done. Naming Review is now session 3.")
    s.user("Great! Please commit")
    s.call("Bash", {"command": "git commit -am 'plan'"}, "[main 37f0f1c] plan")
    s.say("Committed: 37f0f1c. Ready for Session 3: Naming Review when you are!")
    current = section(summarize_transcript(s.messages), 8)
    assert "← NEXT" in current, current  # the earlier answer is still quoted …
    title = current[current.index("An earlier request's answer") : current.index("← NEXT")]
    assert "superseded: its 'next' marks are not current" in " ".join(title.split()), current
    assert "make Naming Review the immediate next" in " ".join(title.split()), current
    assert "Ready for Session 3: Naming Review" in " ".join(title.split()), current


def test_an_earlier_answer_without_a_next_mark_is_not_labelled() -> None:
    s = SessionBuilder()
    s.user("Update the plan file and list the remaining sessions.")
    s.say(_LIST.replace("← NEXT", "").replace("[ ]", "[x]"))
    s.user("Great! Please commit")
    s.call("Bash", {"command": "git commit -am 'plan'"}, "[main 37f0f1c] plan")
    s.say("Committed: 37f0f1c.")
    current = section(summarize_transcript(s.messages), 8)
    assert "An earlier request's answer" in current and "superseded" not in current, current


# -- 4. a cause the assistant stated that a later result overtook ----------------------------------


def test_an_instead_of_cause_that_a_later_sentence_shows_holding_is_superseded() -> None:
    s = SessionBuilder()
    s.user("Make the retrieval agent run on the small model.")
    s.call("Bash", {"command": "grep model agent.log"}, '"model":"big-model-9"')
    s.say(
        "So the agent inherited the big model from the main session instead of using tinymodel "
        "as specified. For now, the agent works - it just runs on the parent model instead of "
        "tinymodel."
    )
    s.user("Fix the description so that the setting is read.")
    s.call("Edit", {"file_path": "/p/agent.md", "old_string": "a", "new_string": "b"}, "ok")
    s.say("The model should now correctly show tinymodel.")  # a prediction: not a result
    s.call("Bash", {"command": "grep model agent.log"}, '"model":"tinymodel-4-5"')
    s.say("**Model: tinymodel** ✅ (see `model=tinymodel-4-5`). The description fix worked.")
    decisions = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Superseded: So the agent inherited the big model" in decisions, decisions
    assert "Superseded: For now, the agent works - it just runs" in decisions, decisions
    assert "(later: '**Model: tinymodel** ✅" in decisions, decisions
    assert "should now correctly" not in decisions, decisions


def test_an_instead_of_cause_never_contradicted_stays_as_stated() -> None:
    s = SessionBuilder()
    s.user("Make the retrieval agent run on the small model.")
    s.say("The agent runs on the parent model instead of tinymodel. It does not work yet.")
    s.user("Leave it for now.")
    s.say("Tinymodel is not used yet; I left it as it is.")
    decisions = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "runs on the parent model instead of tinymodel" in decisions, decisions
    assert "Superseded" not in decisions, decisions


# -- 5. an answered session ending with a late orphan result ------------------------------------


def _orphan_result(call_id: str) -> AgenticMessage:
    content = [Block("user_input_text", "Tool permission request failed: stream closed")]
    block = Block(
        "function_tool_result", call_id=call_id, name="Bash", content=content, is_error=True
    )
    return AgenticMessage("user", [block])


def test_an_answer_followed_by_a_late_orphan_result_is_answered() -> None:
    s = SessionBuilder()
    s.user("Fix the reports folder layout.")
    s.call("Bash", {"command": "mkdir -p reports/kp && mv r*.md reports/kp/"}, "")
    s.say("Moved the reports into reports/kp/.")
    s.user("How does the CLI know how much context is left")
    s.call("Agent", {"prompt": "How does the CLI know the context left?"}, "tool_uses: 0")
    s.say(
        "The CLI has no command that shows the context left. It compacts automatically near "
        "the limit; /cost shows the tokens used so far."
    )
    s.messages.append(_orphan_result("call_e943_before_the_boundary"))
    text = summarize_transcript(s.messages)
    pending, current = section(text, 7), section(text, 8)
    assert "the last request was answered; nothing is pending" in pending, pending
    assert "no answer yet" not in current and "still in progress" not in pending, current
    assert "The latest request was completed" in current, current


def test_an_answer_followed_by_the_late_result_of_an_earlier_call_is_answered() -> None:
    s = SessionBuilder()
    s.user("How does the CLI know how much context is left")
    late = s.call("Bash", {"command": "claude --context"}, None)
    s.say(
        "The CLI has no command that shows the context left. It compacts automatically near "
        "the limit; /cost shows the tokens used so far."
    )
    s.messages.append(_orphan_result(late))
    text = summarize_transcript(s.messages)
    assert "the last request was answered; nothing is pending" in section(text, 7), text
    assert "no answer yet" not in section(text, 8), section(text, 8)


def test_a_result_for_a_call_in_the_history_still_ends_mid_work() -> None:
    s = SessionBuilder()
    s.user("Run the migration.")
    s.say("Running it now.")
    s.call("Bash", {"command": "./migrate.sh"}, "migrated 3 tables", error=False)
    text = summarize_transcript(s.messages)
    assert "nothing is pending" not in section(text, 7), section(text, 7)


# -- 6. a short new question is not a continuation; a refused slash command ----------------------


def test_a_short_new_question_is_not_a_continuation_of_the_request_before() -> None:
    s = SessionBuilder()
    s.user("Reorganise the reports folder and write the changelog as AGENTS.md says.")
    s.call("Bash", {"command": "mkdir -p reports/kp"}, "")
    s.say("Done: reports moved, changelog written.")
    s.user("Claude code如何知道目前上下文还剩多少")
    s.call("Agent", {"prompt": "context left?"}, None)
    nxt = section(summarize_transcript(s.messages), 9)
    assert "is a short reply" not in nxt and "Reorganise the reports" not in nxt, nxt
    s = SessionBuilder()
    s.user("Reorganise the reports folder and write the changelog as AGENTS.md says.")
    s.call("Bash", {"command": "mkdir -p reports/kp"}, "mkdir: Permission denied", error=True)
    s.say("It failed; I'll try with the right permissions.")
    s.user("retry")
    s.call("Bash", {"command": "sudo mkdir -p reports/kp"}, None)
    nxt = section(summarize_transcript(s.messages), 9)
    assert "is a short reply: it continues" in nxt and "Reorganise the reports" in nxt, nxt


def test_a_slash_command_the_cli_refused_is_the_last_request_not_done() -> None:
    s = SessionBuilder()
    s.user("How does the CLI know how much context is left?")
    s.say("It does not show it directly; /cost shows the tokens used so far in the session.")
    s.user(
        "<command-name>/hookify</command-name>\n<command-message>hookify</command-message>\n"
        "<command-args>turn the project rules into hooks; confirm each with me</command-args>"
    )
    s.user("<local-command-stdout>Unknown command: /hookify</local-command-stdout>")
    text = summarize_transcript(s.messages)
    current = " ".join(section(text, 8).split())
    first = " ".join(section(text, 1).split())
    # section 8 quotes a short request, else names it (section 1 quotes it once): either way the
    # refusal is said where the agent reads where the work stands
    assert "/hookify turn the project rules into hooks" in current + first, current
    assert "/hookify turn the project rules into hooks" in first or "section 1" not in current
    assert "the CLI did not know the command; the request is not done" in current, current
    assert "nothing is pending" not in section(text, 7), section(text, 7)


def test_a_slash_command_only_the_clis_notices_record_is_the_last_request() -> None:
    s = SessionBuilder()
    s.user("How does the CLI know how much context is left?")
    s.say("It does not show it directly; /cost shows the tokens used so far in the session.")
    s.user("Unknown command: /hookify", injected=True)
    s.user("Args from unknown skill: turn the project rules into hooks", injected=True)
    text = summarize_transcript(s.messages)
    current = " ".join(section(text, 8).split())
    first = " ".join(section(text, 1).split())
    assert "/hookify turn the project rules into hooks — the CLI did not know" in current + first
    assert "the CLI did not know the command; the request is not done" in current, current
    assert "nothing is pending" not in section(text, 7), section(text, 7)
    s = SessionBuilder()  # no such notice: the answered session stays answered
    s.user("How does the CLI know how much context is left?")
    s.say("It does not show it directly; /cost shows the tokens used so far in the session.")
    s.user("Stop hook failed with a non-blocking status code", injected=True)
    assert "nothing is pending" in section(summarize_transcript(s.messages), 7)


# -- noise: questions, fragments and conditional plans are not decisions -------------------------


def test_questions_and_fragments_are_not_accepted_and_conditionals_not_turned_down() -> None:
    s = SessionBuilder()
    s.user("Design the submission flow.")
    s.say(
        "This is a critical design decision. We should default to submit with an opt-out "
        "window. Should I update the main plan document now with all these refinements?"
    )
    s.user("yes")
    s.call("Bash", {"command": "npm test"}, "1 failing", error=True)
    s.say(
        "If node dragging still fails after refresh, I'll move to the next layer and fix the "
        "selection state."
    )
    s.user("no, it still fails: drag does nothing")
    s.say("Looking at the node wrapper now.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Accepted by the user: We should default to submit" in problem, problem
    assert "Should I update the main plan document" not in problem, problem
    assert "This is a critical design decision" not in problem, problem
    assert "turned down" not in problem and "If node dragging" not in problem, problem


def test_ok_but_is_an_objection_not_an_acceptance() -> None:
    s = SessionBuilder()
    s.user("Restrict the agent's tools.")
    s.say("Changed the tools to a JSON array. We should restart and test the agent again now.")
    s.user("Ok but this is redundant: it has no access to those tools anyway")
    s.say("You're right: the risk is allowed tools reading disallowed paths.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Accepted by the user" not in problem, problem
    s = SessionBuilder()
    s.user("Restrict the agent's tools.")
    s.say("Changed the tools to a JSON array. We should restart and test the agent again now.")
    s.user("ok, go ahead")
    s.say("Restarted; the agent runs with the JSON array now.")
    problem = " ".join(section(summarize_transcript(s.messages), 5).split())
    assert "Accepted by the user: We should restart and test" in problem, problem
