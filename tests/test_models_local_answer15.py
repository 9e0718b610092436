"""Blind check 15's "answered or asking, accepted or declined" (issue 28, rows 620-629): a reply
that ends by asking the user to choose is no completion; a reply agreeing with the answer before
it (or a command template's capitals around it) is no dispute; a reply declining optional extras
accepts none of them, and a sentence asking the user is no decision."""

from __future__ import annotations

import asyncio
import json

import compactor as c
from compactor.counting.config import KeepTail
from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import PreserveSkillsConfig, new_finalizer
from compactor.prompts import PLAN_EARLIER_HEADING, PLAN_HEADING
from compactor.schema import Message, ToolCall, user_text

from .planted_session import SessionBuilder
from .test_models_local_session import section

_REPLY = "<analysis>\nthinking\n</analysis>\n\n<summary>\nS.\n</summary>"

# -- 620: a reply ending by asking the user to choose is not "completed" -------------------------

_ASK = (
    "I can commit in the app repository, but two issues:\n\n"
    "- The notes I updated live at the workspace root, which isn't a git repository.\n"
    "- The app already has unrelated changes I didn't make.\n\n"
    "How do you want to proceed?\n\n"
    "1) Keep the notes at the root (no commit), and I'll go straight to the spec.\n"
    "2) Move the notes into the app so they can be committed there.\n"
    "3) Commit some of the existing changes - tell me exactly which files.\n\n"
    "Also tell me the commit message you want."
)


def test_a_reply_that_asks_the_user_to_choose_is_not_a_completed_request() -> None:
    """kn-commit: "commin portfolio" was answered by three options after one read; section 8
    said "The latest request was completed" while 7 and 9 said it waits for the user."""
    s = SessionBuilder()
    s.user("update the architecture notes")
    s.call("apply_patch", {"input": "*** Begin Patch\n*** Update File: notes/a.md\n"}, "Done!")
    s.say("Updated the architecture notes.")
    s.user("commit the app")
    s.call("shell", {"command": ["bash", "-lc", "sed -n 1,200p app/AGENTS.md"]}, "# Agents\n")
    s.say(_ASK)
    text = summarize_transcript(s.messages)
    current = section(text, 8)
    assert "was completed" not in current, current
    assert "asking the user (section 7); it waits for the answer" in current, current
    assert "awaits an answer" in section(text, 7), text
    assert "Wait for the user's answer" in section(text, 9), text


# -- 621: an agreeing reply, or a template's capitals around it, is no dispute ------------------

_TEMPLATE = (
    "\n## User Input\n\n```text\n{typed}\n```\n\n"
    "You **MUST** consider the user input before proceeding (if not empty).\n\n"
    "## Outline\n\n1. Run the prerequisites script from repo root.\n"
    "2. Check every item: PASS or FAIL; STOP when a gate says FAIL.\n"
    "3. Report NEXT steps. Do NOT skip the checklist.\n"
    + "".join(
        f"{n}. Read the task file for phase {n} and mark the done items.\n" for n in range(4, 30)
    )
)
_DONE = (
    "The migration of the window to the new component framework is complete: the shell, the"
    " overlay and the settings view now render from components, the build passes and the old"
    " DOM code is kept aside. Do you want me to wire the backend calls into the new components"
    " right away? " * 2
)


def test_an_agreeing_reply_inside_a_command_template_is_not_a_dispute() -> None:
    """gd-angular: "да конечно нужно доделать фронтенд …" (yes of course, finish the frontend)
    inside a spec-kit template ("MUST", "PASS", "FAIL", "STOP") was "the user disputed it"."""
    typed_texts = (
        "да конечно нужно доделать фронтенд и окно сделай побольше 800 на 150",
        "yes of course, finish the frontend and make the overlay 800 by 150",
    )
    for typed in typed_texts:
        s = SessionBuilder()
        s.user("migrate the window to components")
        s.call("shell", {"command": ["bash", "-lc", "npm run build"]}, "built in 2.1s")
        s.say(_DONE)
        s.user(_TEMPLATE.format(typed=typed))
        s.call("shell", {"command": ["bash", "-lc", "ls src"]}, "app\nmain.ts")
        text = summarize_transcript(s.messages)
        assert "disputed" not in text, section(text, 8)
    s = SessionBuilder()
    s.user("migrate the window to components")
    s.say(_DONE)
    s.user(_TEMPLATE.format(typed="no, it STILL DOES NOT RENDER the OVERLAY"))
    s.call("shell", {"command": ["bash", "-lc", "ls src"]}, "app\nmain.ts")
    assert "the user disputed it next: 'no, it STILL" in summarize_transcript(s.messages)


# -- 622: declined extras accept nothing; an ask is no decision; unchosen options are not decided


_EXTRAS = (
    "It is enough for the documentation, with a caveat: the counters reset on restart.\n\n"
    "If you want higher certainty before relying on it, I'd do one of these:\n"
    "1) Add a short-lived audit trigger on the two tables, then remove it.\n"
    "2) Check the workflow logs to confirm whether it still writes there.\n"
    "3) Enable statement logging for those tables for a short window.\n\n"
    "Tell me which option you want, or if you want to keep the docs as-is."
)
_BLOCKERS = (
    "I can't commit yet. The workspace root isn't a git repository.\n\n"
    "How should we proceed?\n\n"
    "1) Leave the notes uncommitted at the root and go on with the spec, committing only it.\n"
    "2) Move the notes folder into the app repository so those docs can be committed, then"
    " proceed with the spec.\n"
    "3) Something else you prefer.\n\n"
    "Tell me which option you want."
)


def test_declined_extras_and_asks_and_unchosen_options_are_no_decisions() -> None:
    """kn-commit: "okay if you think were good then lets move on - commit this" after three
    optional audits was "Accepted by the user: If you want higher certainty …, I'd do one of
    these:" and "Accepted by the user: Tell me which option you want …"; option 2 of the next,
    unanswered question was listed as a decision."""
    s = SessionBuilder()
    s.user("is the usage evidence enough to document the tables as unused?")
    s.call("shell", {"command": ["bash", "-lc", "psql -c 'select 1'"]}, "1")
    s.say(_EXTRAS)
    s.user("okay if you think were good then lets move on - commit this and then the spec")
    s.call("shell", {"command": ["bash", "-lc", "git status -sb"]}, "fatal: not a git repository")
    s.say(_BLOCKERS)
    s.user("commit the app")
    s.say("Which commit message do you want? Should I include the unrelated changes?")
    decisions = section(summarize_transcript(s.messages), 5)
    assert "Accepted by the user" not in decisions, decisions
    assert "Move the notes folder" not in decisions, decisions
    s = SessionBuilder()  # a plain yes to a proposal is still accepted
    s.user("the tests are slow")
    s.say("I'll cache the fixtures in a session-scoped conftest so each test reuses them.")
    s.user("yes go ahead")
    s.call("shell", {"command": ["bash", "-lc", "pytest -q"]}, "3 passed")
    s.say("Done: the fixtures are cached and the suite takes 2 s.")
    assert "Accepted by the user: I'll cache the fixtures" in section(
        summarize_transcript(s.messages), 5
    )


# -- 623: a plan the kept tail replaced is not called "latest" ------------------------------------


def _plan_call(n: int, status: str) -> Message:
    steps = [{"step": "Update the constitution", "status": "completed"}]
    steps.append({"step": "Validate changes and summarize", "status": status})
    call = ToolCall(f"p{n}", "update_plan", json.dumps({"plan": steps}))
    return Message(role="assistant", content="", tool_calls=[call])


def _planned(tail_plan: bool) -> list[Message]:
    msgs = [Message(role="user", content="amend the constitution and validate it")]
    msgs += [_plan_call(1, "in_progress"), Message(role="tool", content="ok", tool_call_id="p1")]
    msgs.append(Message(role="assistant", content="Updated the constitution; validating next."))
    msgs.append(Message(role="user", content="go on"))
    if tail_plan:
        msgs += [_plan_call(2, "completed"), Message(role="tool", content="ok", tool_call_id="p2")]
    else:
        call = ToolCall("r1", "shell", json.dumps({"command": ["bash", "-lc", "ls"]}))
        msgs += [Message(role="assistant", content="", tool_calls=[call])]
        msgs.append(Message(role="tool", content="a.md", tool_call_id="r1"))
    msgs.append(Message(role="assistant", content="Validated: no placeholders are left."))
    return msgs


def test_a_plan_the_kept_tail_replaced_is_not_called_latest() -> None:
    """p2m-const (lower-trigger hybrid): the summary called the summarized part's plan "the
    agent's latest plan … [in_progress] Validate changes" while the tail kept right after it
    held the final plan, every item completed."""
    finalize = new_finalizer().preserve_durable(PreserveSkillsConfig()).build()
    for tail_plan, heading in ((True, PLAN_EARLIER_HEADING), (False, PLAN_HEADING)):
        mw = c.new(c.Config(model=c.ScriptedModel.replying(_REPLY), keep=KeepTail(messages=4),
                            finalize=finalize))  # fmt: skip
        out = asyncio.run(mw.summarize_detailed(c.AgentState(_planned(tail_plan)))).messages
        text = user_text(out[0])
        assert heading.format(tool="update_plan") in text, text
        assert "- [in_progress] Validate changes and summarize" in text, text
        if tail_plan:
            assert "latest plan" not in text, text
            assert "p2" in {t.id for m in out[1:] for t in m.tool_calls or []}, out


# -- 624: labels: a mid-work note is no final deliverable; "REVISED" needs a file changed between


def test_a_long_note_that_announces_the_next_check_is_not_the_final_deliverable() -> None:
    """eq-bgtrain: "The linter has restructured the config … Let me check if the trainer reads
    these correctly:" was titled "Final deliverable"."""
    s = SessionBuilder()
    s.user("train the estimator with the new config")
    note = "The linter has restructured the config significantly:\n" + "".join(
        f"- key_{n}: moved under model.encoder (was model.key_{n})\n" for n in range(12)
    )
    s.say(note + "\nThe structure changed. Let me check if the trainer reads these correctly:")
    s.call("Bash", {"command": "grep -n encoder train.py"}, "12: cfg.model.encoder")
    current = section(summarize_transcript(s.messages), 8)
    assert "Final deliverable" not in current, current
    assert "a note mid-work, no final answer" in current, current


def test_an_earlier_answer_is_revised_only_about_a_file_changed_since() -> None:
    """cg-commit: a later proposal naming the same file as an earlier, unrelated explanation
    marked that explanation "REVISED since by the answer above"."""
    s = SessionBuilder()
    s.user("do the scheduled tasks survive a reboot?")
    s.say(
        "Only durable ones: a task created with durable: true is written to "
        ".claude/scheduled_tasks.json and survives; the others live in the session only. "
        + "Memory files and settings.json persist on disk as well. "
        * 8
    )
    s.user("put our history into git")
    s.call("Bash", {"command": "git init"}, "Initialized empty Git repository")
    s.say(
        "Initialized. I suggest tracking history.jsonl, settings.json and "
        ".claude/scheduled_tasks.json, and ignoring cache/ and telemetry/. Is that okay?"
    )
    s.user("ok")
    s.call("Bash", {"command": "git add -A"}, None)
    current = section(summarize_transcript(s.messages), 8)
    assert "REVISED since" not in current, current
    assert "(the answer above came after it)" in current, current
