"""Blind check 18's answered turns and options (issue 28, rows 720-739): a reply that hands the
next step to the user, followed only by a note-saving call in flight, is answered and awaits the
user; an option of the assistant's menu is decided only by the user's reply; a reading command
that printed an error is no failure, and an edit before the success is the fix; a failure whose
program later ran in another form is worked around, not unfixed."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 720: a reply handing the next step to the user, then only a note call in flight --------------

_HANDED = (
    "No problem at all. Take your time.\n\nWhen you have admin rights working, run:\n```\n"
    'sudo apt install -y python3.12-venv\n```\n\nThen come back and say "done" and I will '
    "finish the rest.\n\n(I will save a note so we remember where we left off.)"
)


def _handed_over(last_call: tuple[str, dict[str, object]]) -> SessionBuilder:
    s = SessionBuilder()
    s.user("install the linter tool for me")
    s.call(
        "Bash", {"command": "python3 -m venv ~/.venv && ~/.venv/bin/pip install linter"},
        "Error: ensurepip is not available. apt install python3.12-venv", error=True,
    )  # fmt: skip
    s.say("The venv module is missing; installing it needs sudo. Shall I run it?")
    s.user("yes, run sudo")
    s.call(
        "Bash", {"command": "sudo apt install -y python3.12-venv"},
        "sudo: a terminal is required to read the password", error=True,
    )  # fmt: skip
    s.say("I cannot type your password for you. You can run it yourself in a terminal.")
    s.user("need to update the settings app to allow sudo on this machine")
    s.say(_HANDED)
    s.call(*last_call, None)
    return s


def test_a_reply_handing_over_then_a_note_call_in_flight_is_answered() -> None:
    """goat-semgrep: "When you have sudo working, run … Then come back and say 'done'", then a
    note-saving call without result; sections 7-9 said the request was in progress and told
    the agent to continue it."""
    note = (
        'node query-db.mjs run "INSERT INTO insights (category, content) VALUES '
        "('pending_task', 'Install linter - waiting for user to enable sudo')\""
    )
    text = summarize_transcript(_handed_over(("Bash", {"command": note})).messages)
    pending, current, step = section(text, 7), section(text, 8), section(text, 9)
    assert "in progress" not in pending + current, pending + current
    assert "The latest request was answered, awaiting the user's action" in current, current
    assert "come back and say" in current, current
    assert "in flight" in pending and "INSERT INTO insights" in pending, pending
    assert "Wait for the user" in step and "sudo apt install" in step, step
    assert "continue the latest request" not in step, step


def test_a_handed_over_reply_then_a_notes_file_write_is_answered() -> None:
    """The same with the note written to a notes file (no announcement needed)."""
    write: dict[str, object] = {
        "file_path": "/home/u/project/NOTES.md",
        "content": "- waiting for sudo",
    }
    s = _handed_over(("Write", write))
    s.messages[-2].blocks[0].text = _HANDED.replace("(I will save a note so we remember", "(So")
    text = summarize_transcript(s.messages)
    assert "awaiting the user's action" in section(text, 8), section(text, 8)
    assert "Wait for the user" in section(text, 9), section(text, 9)


def test_a_reply_handing_over_then_real_work_in_flight_stays_in_progress() -> None:
    """A test run (or an edit) after the text is real work: the request stays in progress."""
    calls: tuple[tuple[str, dict[str, object]], ...] = (
        ("Bash", {"command": "python -m pytest tests/ -q"}),
        ("Edit", {"file_path": "/home/u/project/app.py", "old_string": "a", "new_string": "b"}),
    )
    for call in calls:
        text = summarize_transcript(_handed_over(call).messages)
        current = section(text, 8)
        assert "is in progress (no answer yet)" in current, current
        assert "awaiting the user's action" not in current, current
        assert "Wait for the user" not in section(text, 9), section(text, 9)


# -- 721: an option of the assistant's menu is decided only by the user's reply -----------------

_MENU = (
    "Here is where we are. Your system needs a small package, but that needs admin access.\n\n"
    "**Your options:**\n\n"
    "option,what_to_do,effort,notes\n"
    "A,Run: sudo apt install python3.12-venv,1 min,Needs your password. Then I can install it.\n"
    "B,Skip the linter for now,0 min,We can add it later when convenient.\n"
    "C,Use a different tool,varies,I can find one that needs no Python.\n\n"
    "Which feels right for you?"
)


def _menu_session(reply: str) -> str:
    s = SessionBuilder()
    s.user("install the linter tool for me")
    s.call(
        "Bash", {"command": "python3 -m venv ~/.venv && ~/.venv/bin/pip install linter"},
        "Error: ensurepip is not available. Failing command: ~/.venv/bin/python3", error=True,
    )  # fmt: skip
    s.say(_MENU)
    s.user(reply)
    s.call("Bash", {"command": "sudo -n true && echo ok"}, "ok")
    s.say("Admin access works; installing now.")
    return summarize_transcript(s.messages)


def test_an_option_the_user_did_not_choose_is_not_set_aside() -> None:
    """goat-semgrep: the user answered "A - let's run sudo" to the A/B/C menu; section 4 said
    the venv failure was "Set aside on purpose, not to be fixed: 'B,Skip semgrep for now…'"."""
    errors = section(_menu_session("A - let's run sudo"), 4)
    assert "Set aside" not in errors, errors
    assert "Skip the linter" not in errors.split("Next the assistant said")[0], errors


def test_the_option_the_user_chose_is_the_decision() -> None:
    """The same menu answered "B" sets the failure aside with option B's words."""
    errors = section(_menu_session("B please, later is fine"), 4)
    assert 'Set aside on purpose, not to be fixed: "B,Skip the linter for now' in errors, errors
