"""Blind check 7's wrong statements in the local summary (issue 28, quality pass 6): a
background server a later command killed (by a pid its output printed, by its program, by its
port) is not "still running, do not start it again"."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_RUNNING = "Background job still running"


def _uvicorn(s: SessionBuilder) -> None:
    s.user("run the API on port 8000 and check the health endpoint")
    s.call(
        "exec_command",
        {"cmd": "uv run uvicorn api.main:app --reload --port 8000", "yield_time_ms": 1000},
        "Chunk ID: 1a\nWall time: 1.0 seconds\nProcess running with session ID 64048\nOutput:\n",
    )
    s.call(
        "write_stdin",
        {"session_id": 64048, "chars": "", "yield_time_ms": 1000},
        "Chunk ID: 1b\nWall time: 5.0 seconds\nProcess running with session ID 64048\nOutput:\n"
        "INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n"
        "INFO:     Started reloader process [23005] using WatchFiles\n"
        "INFO:     Started server process [23031]\n",
    )
    s.call("exec_command", {"cmd": "curl -fsS http://127.0.0.1:8000/health"}, '{"ok": true}')


def _summary_of(kill: str, printed: str = "") -> tuple[str, str]:
    s = SessionBuilder()
    _uvicorn(s)
    s.say("The API answers on port 8000.")
    s.user("stop the server, then update the README")
    s.call("exec_command", {"cmd": kill}, printed)
    s.call("exec_command", {"cmd": "sed -i 's/old/new/' README.md"}, "")
    text = summarize_transcript(s.messages)
    return section(text, 7), section(text, 9)


def test_a_server_killed_by_a_pid_its_output_printed_is_not_still_running() -> None:
    """snapmed: uvicorn started with exec_command (session 64048), its poll printed
    "Started reloader process [23005]", then ``kill 23003 23005`` ended it; the summary said
    "Background job still running … do not start it again" and "check on them"."""
    pending, step = _summary_of("kill 23003 23005")
    assert _RUNNING not in pending and "64048" not in pending, pending
    assert "still running" not in step, step


def test_a_server_killed_by_its_program_is_not_still_running() -> None:
    pending, step = _summary_of("pkill -f uvicorn")
    assert _RUNNING not in pending and "still running" not in step, (pending, step)


def test_a_server_whose_port_a_later_kill_named_may_still_be_running() -> None:
    """snapmed1: ``lsof -ti tcp:8000 | xargs kill`` names only the port the job listens on: the
    summary says the job may still be running (which kill named what), never "still running,
    do not start it again"."""
    pending, step = _summary_of("lsof -ti tcp:8000 | xargs kill")
    assert _RUNNING not in pending, pending
    assert "may still be running (a later kill named its port 8000" in pending, pending
    assert "uvicorn" in pending and "still running" not in step, step


def test_a_kill_of_another_process_leaves_the_server_running() -> None:
    """A kill that names no pid, program or port of the job does not end it."""
    pending = _summary_of("kill 999", "")[0]
    assert _RUNNING in pending and "64048" in pending, pending


def test_an_earlier_answer_is_not_the_final_deliverable_of_a_later_answered_request() -> None:
    """vestig: the first turn's long offer ("Would you like me to update it …") was quoted as
    "Final deliverable, the last substantial assistant answer" right after the short answer that
    completed the current request: it is an earlier request's answer, so titled."""
    s = SessionBuilder()
    s.user("rename the knowledge base to matterbase")
    s.call("Read", {"file_path": "/srv/kb/CLAUDE.md"}, "# ProjectTracker\nThe PMO repository.")
    offer = (
        "I understand - matterbase fits a personal knowledge base better than ProjectTracker. "
        "The CLAUDE.md file still references ProjectTracker throughout. Would you like me to "
        "update it: 1. replace the name, 2. reframe the wording, 3. adjust the guidance? "
    )
    s.say(offer * 3)
    s.user("yes, replace it everywhere")
    s.call(
        "Edit",
        {"file_path": "/srv/kb/CLAUDE.md", "old_string": "ProjectTracker", "new_string": "mb"},
        "The file /srv/kb/CLAUDE.md has been updated.",
    )
    s.say("Done: every ProjectTracker in CLAUDE.md now says matterbase.")
    work = section(summarize_transcript(s.messages), 8)
    assert "Final deliverable" not in work, work
    assert "An earlier request's answer, verbatim (NOT the answer to the current request)" in work


def _asked(s: SessionBuilder, question: str, answer: str, name: str = "AskUserQuestion") -> None:
    s.call(
        name,
        {"questions": [{"question": question, "options": [{"label": "A"}, {"label": "B"}]}]},
        f'User has answered your questions: "{question}"="{answer}". You can now continue with '
        "the user's answers in mind.",
    )


def test_ask_user_question_answers_are_the_users_words_and_decisions() -> None:
    """vlm: the first user message was ``/superpowers:brainstorm``; the real request and every
    choice ("All projects", "vlm-service") came as AskUserQuestion answers, which the summary
    showed only as command output: "Initial request" was the slash command."""
    s = SessionBuilder()
    s.user(
        "<command-message>superpowers:brainstorm</command-message>\n"
        "<command-name>/superpowers:brainstorm</command-name>"
    )
    request = "scan every session log and project, record the pitfalls in auto memory files"
    _asked(s, "What would you like to brainstorm and design today?", request)
    _asked(s, "Which package name do you prefer?", "vlm-service")
    s.say("Noted: the package is vlm-service. " * 6)
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert f'Initial request: "{request}' in intent, intent
    assert 'The user answered "Which package name do you prefer?": vlm-service' in text
    users = text[text.index("<all_user_messages>") :]
    assert '(answered "Which package name do you prefer?") vlm-service' in users, users


def test_an_answer_the_reader_gave_as_a_user_message_is_not_doubled() -> None:
    s = SessionBuilder()
    s.user("rename the service")
    _asked(s, "Which package name do you prefer?", "vlm-service")
    s.user("vlm-service")
    s.say("Renamed to vlm-service. " * 6)
    text = summarize_transcript(s.messages)
    assert "The user answered" not in text and "(answered" not in text, text


def test_answers_in_the_other_wording_count_too() -> None:
    """emberyx: "Your questions have been answered: "Q"="A", "Q2"="B2". You can now continue with
    these answers in mind." (two answers in one result) was shown only as command output."""
    s = SessionBuilder()
    s.user("design the desktop app")
    s.call(
        "ask_user",
        {"questions": [{"question": "Terminal?"}, {"question": "Isolation?"}]},
        'Your questions have been answered: "Terminal?"="xterm.js embedded", "Isolation?"="Not '
        'sure yet". You can now continue with these answers in mind.',
    )
    s.say("Going with xterm.js. " * 8)
    text = summarize_transcript(s.messages)
    assert 'The user answered "Terminal?": xterm.js embedded' in text, text
    assert 'The user answered "Isolation?": Not sure yet' in text
    assert "been answered" not in text, text  # not as what a command printed
