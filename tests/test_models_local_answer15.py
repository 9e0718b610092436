"""Blind check 15's "answered or asking, accepted or declined" (issue 28, rows 620-629): a reply
that ends by asking the user to choose is no completion; a reply agreeing with the answer before
it (or a command template's capitals around it) is no dispute; a reply declining optional extras
accepts none of them, and a sentence asking the user is no decision."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

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
    + "".join(f"{n}. Read the task file for phase {n} and mark the done items.\n" for n in range(4, 30))
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
    for typed in ("да конечно нужно доделать фронтенд и окно сделай побольше 800 на 150",
                  "yes of course, finish the frontend and make the overlay 800 by 150"):  # fmt: skip
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
