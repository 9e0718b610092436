"""Blind check 13's current request and user turns (issue 28, rows 560-564): the current request
is the latest one by position even when its text was sent before; a short reply ("お願いします。",
"2") says what it continues; plan-mode user turns (a rejection carrying the user's words, a
rejection saying STOP and wait, AskUserQuestion answers) are the user's turns."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_STOP = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). STOP what you are doing and wait "
    "for the user to tell you how to proceed."
)
_SAID = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)


def _answered(question: str, answer: str) -> str:
    return (
        f'User has answered your questions: "{question}"="{answer}". You can now continue with '
        "the user's answers in mind."
    )


def _ask(s: SessionBuilder, question: str, answer: str) -> None:
    options = [{"label": answer, "description": "d"}, {"label": "other", "description": "d"}]
    args: dict[str, object] = {
        "questions": [{"question": question, "header": "H", "options": options}]
    }
    s.call("AskUserQuestion", args, _answered(question, answer))


# -- 560: the current request is the latest one, even when its text was sent before -------------


def test_a_resent_request_sent_last_is_the_current_request() -> None:
    """fl-release: "commit et pousse" sent four times, the last time after "nettoie les valeurs";
    the summary named "nettoie les valeurs" as the current request and listed the repeated one
    before a later request."""
    s = SessionBuilder()
    s.user("prepare the release notes for 2.2")
    s.call("Bash", {"command": "git log --oneline -5"}, "a506b78 feat: x")
    s.user("commit and push")
    s.call("Bash", {"command": "git commit -am notes && git push"}, "[main 1a2b3c4] notes")
    s.user("track .devcontainer/ too")
    s.call("Bash", {"command": "git add .devcontainer"}, "")
    s.user("commit and push")
    s.call("Bash", {"command": "git commit -m dc && git push"}, "[main 2b3c4d5] dc")
    s.user("clean the values in devcontainer.json")
    s.call("Edit", {"file_path": ".devcontainer/devcontainer.json", "old_string": "a",
                    "new_string": "b"}, "The file has been updated.")  # fmt: skip
    s.user("commit and push")
    s.call("Bash", {"command": "git commit -am clean && git push"}, "[main c0dfa2f] clean")
    s.say("Committed and pushed c0dfa2f.")
    intent = section(summarize_transcript(s.messages), 1)
    assert 'Current request: "commit and push" (sent 3 times)' in intent, intent
    later = intent[intent.index("Later requests") : intent.index("Current request")]
    assert "commit and push" not in later, later  # listed once: at its last sending
    assert later.index("track .devcontainer/") < later.index("clean the values"), later


def test_a_request_sent_again_last_after_a_short_one_is_current() -> None:
    """vo-inflight: "お願いします。" (sent 5 times, the last at the end) was listed far up, and
    "2" (sent earlier) was named as the current request."""
    s = SessionBuilder()
    s.user("scaffold the backend and the frontend")
    s.say("Which layout? 1) monorepo 2) two repos")
    s.user("2")
    s.call("Bash", {"command": "mkdir backend frontend"}, "")
    s.user("お願いします。")
    s.call("Bash", {"command": "git init"}, "Initialized empty Git repository")
    s.user("implement the TTS API with Style-Bert-VITS2 (spec first)")
    s.say("Shall I start with /speckit.specify?")
    s.user("お願いします。")
    s.call("Bash", {"command": "git switch main"}, "error: local changes", error=True)
    intent = section(text := summarize_transcript(s.messages), 1)
    current = intent[intent.index("Current request") :]
    # two replies to two questions, not one request sent twice (blind check 27, N4: Decisions)
    assert current.startswith('Current request: "お願いします。" (a short reply'), current
    assert "(sent" not in current, current
    assert "2" not in current.split("(", 1)[0], current
    # 561: the short reply says which request it continues, in section 1 and in the next step
    assert "continues" in current and "implement the TTS API" in current, current
    step = section(text, 9)
    assert "continues the work on the request before it" in step, step
    assert "implement the TTS API" in step, step


def test_a_short_number_reply_continues_the_request_it_answers() -> None:
    s = SessionBuilder()
    s.user("set up the deploy pipeline for the staging cluster")
    s.say("Two ways: 1) GitHub Actions 2) a local script. Which one?")
    s.user("2")
    s.call("Bash", {"command": "touch deploy.sh"}, "")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "continues" in intent and "set up the deploy pipeline" in intent, intent
    assert "set up the deploy pipeline" in section(text, 9), section(text, 9)


# -- 562-564: plan-mode user turns ----------------------------------------------------------------


def _plan_session(stop: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user("Let's design the database for the course projects")
    s.user("give me the pros and cons of option 1 and option 2")
    s.say("### Option 1: full DB\nPros: one source. Cons: migration.\n### Option 2: …")
    _ask(s, "Which option do you lean to?", "Option 1: full DB")
    _ask(s, "SQLAlchemy or Django?", "SQLAlchemy")
    s.call("Write", {"file_path": "/home/u/.claude/plans/p.md", "content": "# Plan\n"},
           "File created successfully")  # fmt: skip
    s.call("ExitPlanMode", {"plan": "# Plan v1"},
           _SAID + "There is redundancy in the project table; make a separate table for general "
           "projects", error=True)  # fmt: skip
    s.say("You are right, there is redundancy.")
    _ask(s, "Which do you prefer?", "Option A: separate tables")
    s.call("Write", {"file_path": "/home/u/.claude/plans/p.md", "content": "# Plan v2\n"},
           "The file has been updated successfully.")  # fmt: skip
    if stop:
        s.call("ExitPlanMode", {"plan": "# Plan v2"}, _STOP, error=True)
        s.user("[Request interrupted by user for tool use]")
    return s


def test_a_rejection_with_the_users_words_is_a_user_turn_and_keeps_the_feedback() -> None:
    """luis-plan record 266: the first plan rejection's feedback drove the redesign and was
    lost. Blind check 21 (cc-skill): the feedback is a correction of the rejected call, kept in
    section 1, never the current request (the last typed message stays current)."""
    text = summarize_transcript(_plan_session(stop=False).messages)
    intent = section(text, 1)
    feedback = "There is redundancy in the project table; make a separate table for general"
    current = intent[intent.index("Current request") :]
    assert feedback in intent, intent
    assert feedback not in current.split("\n", 1)[0], intent
    # the rejection keeps the user's words: a plan's, as a change the user asked for (blind 28)
    assert f'the user asked to change the plan: "{feedback}' in section(text, 5), text
    assert "Set aside on purpose" not in section(text, 4), section(text, 4)
    # 563: the AskUserQuestion answers after it are the user's later turns, named in section 1
    assert "Option A: separate tables" in current, current


def test_a_rejection_saying_stop_and_wait_makes_the_next_step_wait() -> None:
    """luis-plan record 286: the plan rejected with "STOP what you are doing and wait for the
    user", then the interrupt; the summary said "Continue the latest request: 'dame las ventajas
    …'" (answered long before)."""
    text = summarize_transcript(_plan_session(stop=True).messages)
    step = section(text, 9)
    assert "Continue the latest request" not in step, step
    assert step.split("\n", 1)[1].strip().startswith("Wait for the user"), step
    # the CLI's fixed text is named as the CLI's, never quoted as the user's (blind check 32, W1)
    assert "STOP what you are doing" not in step and "not the user's words" in step, step
    assert "ExitPlanMode" in step, step
    for number in (7, 8):
        part = section(text, number)
        assert "in progress" not in part, part
        assert "told the agent to stop and wait" in part, part
    assert "STOP what you are doing" in section(text, 4), section(text, 4)


def test_a_stop_rejection_the_agent_went_on_from_is_not_the_state() -> None:
    """A plain rejection mid-work, after which the user typed the next request: the state is
    that request's, not "wait"."""
    s = SessionBuilder()
    s.user("rename the config loader")
    s.call("Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"}, _STOP, error=True)
    s.user("instead add a docstring to load_config")
    doc: dict[str, object] = {"file_path": "a.py", "old_string": "def load_config"}
    doc["new_string"] = "def load_config  # doc"
    s.call("Edit", doc, "The file has been updated.")
    text = summarize_transcript(s.messages)
    assert "Continue the latest request" in section(text, 9), section(text, 9)
    assert "stop and wait" not in section(text, 9) + section(text, 8), text


def test_the_clis_stop_text_is_no_constraint_of_the_users() -> None:
    """The STOP-and-wait sentence is the CLI's words for a bare rejection: listing it among the
    user's standing constraints would stop every later turn."""
    text = summarize_transcript(_plan_session(stop=True).messages)
    intent = section(text, 1)
    rules = intent[intent.index("Constraints") :] if "Constraints" in intent else ""
    assert "STOP what you are doing" not in rules, intent


def test_words_typed_after_the_interrupt_notice_are_the_current_request() -> None:
    """Claude Code's "[Request interrupted by user for tool use]" followed, in the same message,
    by what the user typed: those words are the latest request."""
    s = SessionBuilder()
    s.user("migrate the settings page to the new form library")
    s.call("Edit", {"file_path": "s.tsx", "old_string": "a", "new_string": "b"}, _STOP, error=True)
    s.user("[Request interrupted by user for tool use]\nkeep the old validation rules, only swap "
           "the inputs")  # fmt: skip
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert 'Current request: "keep the old validation rules, only swap the inputs"' in intent, text
    assert "Wait for the user" not in section(text, 9), section(text, 9)
    assert "interrupted the turn" not in section(text, 8), section(text, 8)


def test_the_clis_clarify_text_is_one_short_line_not_a_user_turn() -> None:
    """AskUserQuestion's "Chat about this": the CLI writes "the user said: The user wants to
    clarify these questions. This means they may have additional information …" (its words,
    four lines of them): one short line in section 4, no request, no constraint."""
    s = SessionBuilder()
    s.user("plan the storage layer")
    template = (
        "The user wants to clarify these questions.\n    This means they may have additional "
        "information, context or questions for you.\n    Take their response into account."
    )
    args: dict[str, object] = {"questions": [{"question": "Which DB?", "options": []}]}
    s.call("AskUserQuestion", args, _SAID + template, error=True)
    s.say("What would you like to clarify?")
    text = summarize_transcript(s.messages)
    assert "This means they may have" not in text, text
    assert "the user chose to clarify these questions first" in section(text, 4), text
    assert '"plan the storage layer" (the current request)' in section(text, 1), section(text, 1)


def test_the_first_request_sent_again_last_still_opens_the_list() -> None:
    """Listing a message at its last sending must not make the second request the initial one."""
    s = SessionBuilder()
    s.user("deploy the staging stack")
    s.call("Bash", {"command": "make deploy-staging"}, "error: quota", error=True)
    s.user("raise the quota in terraform")
    s.call("Bash", {"command": "terraform apply -auto-approve"}, "Apply complete!")
    s.user("deploy the staging stack")
    s.call("Bash", {"command": "make deploy-staging"}, "deployed")
    intent = section(summarize_transcript(s.messages), 1)
    assert 'Initial request: "deploy the staging stack" (sent again later)' in intent, intent
    assert "Later requests" in intent and "raise the quota in terraform" in intent, intent
    assert 'Current request: "deploy the staging stack" (sent 2 times)' in intent, intent


def test_an_edited_first_request_sent_right_again_is_not_doubled() -> None:
    s = SessionBuilder()
    head = (
        "Refactor the billing module so that every invoice total is computed in one place, with "
        "rounding done once at the end and the currency taken from the account settings "
    )
    s.user(head)
    s.user(head + "and keep the public API unchanged")
    s.call("Bash", {"command": "rg total billing/"}, "billing/a.py:3: total = 1")
    s.user("now add tests")
    intent = section(summarize_transcript(s.messages), 1)
    assert "sent again later" not in intent, intent
    assert intent.count("Refactor the billing module") == 1, intent


def test_a_rejection_whose_words_say_not_to_proceed_is_a_request_not_a_hold() -> None:
    """The user's own words ("don't proceed with X, instead …") are an instruction to act on,
    not the CLI's bare STOP: the next step is to act on them, never "wait" (blind check 21: a
    correction of the current request, not a request of its own)."""
    s = SessionBuilder()
    s.user("migrate the users table")
    s.call("Bash", {"command": "alembic upgrade head"},
           _SAID + "Don't proceed with the migration. Instead write a backup script first.",
           error=True)  # fmt: skip
    text = summarize_transcript(s.messages)
    intent, step = section(text, 1), section(text, 9)
    assert '"migrate the users table" (the current request)' in intent, intent
    assert "Not acted on yet" in intent and "Don't proceed with the migration." in intent, intent
    assert "Wait for the user" not in step and "Instead write a backup script" in step, step
