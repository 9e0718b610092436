"""The local summarizer's model of a session: what it says is open, failed, changed and done."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.facts import entry_of
from compactor.models.local import MAX_DELIVERABLE, summarize_transcript
from compactor.models.local_session import Session, build_session
from compactor.schema import AgenticMessage, Message, ToolCall

from .planted_session import FACTS, SessionBuilder, planted_session


def session_of(messages: Sequence[Message | AgenticMessage]) -> Session:
    return build_session([entry_of(i, m) for i, m in enumerate(messages)])


def section(text: str, number: int) -> str:
    text = text.split("<summary>", 1)[1]
    start = text.index(f"\n{number}. ") + 1
    end = text.find(f"\n{number + 1}. ", start) if number < 9 else text.index("</summary>")
    return text[start:end]


# -- task state ------------------------------------------------------------------------------------


def test_todowrite_keeps_the_latest_list_and_only_open_items_are_pending() -> None:
    s = SessionBuilder()
    s.user("Ship the release.")
    todos = [
        {"content": "Bump the version", "status": "completed"},
        {"content": "Write the changelog", "status": "in_progress"},
        {"content": "Tag the release", "status": "pending"},
    ]
    s.call("TodoWrite", {"todos": todos}, "ok")
    s.say("Working on the changelog.")
    text = summarize_transcript(s.messages)
    pending = section(text, 7)
    assert "[in_progress] Write the changelog" in pending
    assert "[pending] Tag the release" in pending
    assert "Bump the version" not in pending  # done: never named as pending
    assert "(TodoWrite; 1 of 3 done)" in pending
    assert "In progress on the task list: Write the changelog" in section(text, 8)


def test_task_create_and_update_ids_come_from_the_results() -> None:
    s = SessionBuilder()
    s.user("Migrate the jobs.")
    for subject in ("Port the cron job", "Port the mailer", "Delete the old runner"):
        n = len([m for m in s.messages if m.role == "assistant"]) + 1
        s.call("TaskCreate", {"subject": subject, "description": "..."}, f"Task #{n} created")
    s.call("TaskUpdate", {"taskId": "1", "status": "completed"}, "Updated task #1 status")
    s.call("TaskUpdate", {"taskId": "3", "status": "deleted"}, "Updated task #3")
    s.call("TaskUpdate", {"taskId": "2", "status": "in_progress"}, "Updated task #2 status")
    state = session_of(s.messages)
    assert [(t.key, t.subject, t.status) for t in state.tasks.values()] == [
        ("1", "Port the cron job", "completed"),
        ("2", "Port the mailer", "in_progress"),
    ]
    pending = section(summarize_transcript(s.messages), 7)
    assert "[in_progress] Port the mailer" in pending
    assert "cron job" not in pending and "old runner" not in pending


def test_codex_update_plan() -> None:
    plan = {
        "explanation": "x",
        "plan": [
            {"step": "Read the code", "status": "completed"},
            {"step": "Write the review", "status": "in_progress"},
        ],
    }
    msgs = [
        Message("user", "Review the PR."),
        Message("assistant", "", tool_calls=[ToolCall("p", "update_plan", json.dumps(plan))]),
        Message("tool", "Plan updated", tool_call_id="p"),
        Message("assistant", "Reviewing."),
    ]
    pending = section(summarize_transcript(msgs), 7)
    assert "[in_progress] Write the review" in pending and "Read the code" not in pending


def test_task_list_in_an_injected_reminder() -> None:
    s = SessionBuilder()
    s.user("Continue.")
    s.user(
        "<system-reminder>Here are the existing tasks:\n#1. [completed] Parse input\n"
        "#2. [pending] Emit the report\n</system-reminder>",
        injected=True,
    )
    s.say("Continuing with the report.")
    pending = section(summarize_transcript(s.messages), 7)
    assert "[pending] Emit the report" in pending and "Parse input" not in pending


def test_background_processes_seen_finishing_are_not_pending() -> None:
    s = SessionBuilder()
    s.user("Run the servers.")
    s.call(
        "Bash",
        {"command": "npm run dev", "run_in_background": True},
        "Command running in background with ID: b1",
    )
    s.call(
        "Bash",
        {"command": "pytest -x tests/slow", "run_in_background": True},
        "Command running in background with ID: b2. Output is being written to: /tmp/b2.output",
    )
    s.call(
        "Bash",
        {"command": "python fetch.py", "run_in_background": True},
        "Command running in background with ID: b3",
    )
    s.call("BashOutput", {"bash_id": "b2"}, "<status>completed</status>\n<exit_code>0</exit_code>")
    s.call("KillShell", {"shell_id": "b3"}, "Shell b3 killed")
    s.say("The dev server is up.")
    state = session_of(s.messages)
    assert {b.key: b.finished for b in state.background.values()} == {
        "b1": "",
        "b2": "completed (exit 0)",
        "b3": "killed",
    }
    pending = section(summarize_transcript(s.messages), 7)
    assert "`npm run dev` (id b1)" in pending
    assert "pytest -x" not in pending and "fetch.py" not in pending


def test_task_notification_finishes_a_background_command() -> None:
    s = SessionBuilder()
    s.user("Build it.")
    s.call(
        "Bash",
        {"command": "make all", "run_in_background": True},
        "Command running in background with ID: bcc53f3",
    )
    s.user(
        "<task-notification>\n<task-id>bcc53f3</task-id>\n<status>completed</status>\n"
        '<summary>Background command "make all" completed (exit code 0)</summary>\n'
        "</task-notification>",
        injected=True,
    )
    s.say("The build finished.")
    assert session_of(s.messages).running == []


# -- requests and injected context -----------------------------------------------------------------


def test_codex_injected_context_is_not_a_request() -> None:
    msgs = [
        Message("user", "# AGENTS.md instructions for /repo\n\nYou must never use tabs.", extra={}),
        Message(
            "user",
            "<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n"
            "</environment_context>",
        ),
        Message("user", "Review the parser changes."),
        Message("assistant", "The parser looks fine."),
    ]
    text = summarize_transcript(msgs)
    intent = section(text, 1)
    assert 'Initial request: "Review the parser changes."' in intent
    assert "AGENTS.md instructions for /repo were injected" in intent
    assert "Environment (injected by the CLI): cwd /repo, shell bash" in intent
    assert "never use tabs" not in intent  # AGENTS.md rules are not user constraints
    users = section(text, 6)
    assert "AGENTS.md" not in users and "environment_context" not in users


def test_claude_code_meta_records_and_local_commands() -> None:
    s = SessionBuilder()
    s.user("Fix the flaky test.")
    s.user("Base directory for this skill: /skills/debug\n\nAlways bisect.", injected=True)
    s.say("Fixed: the fixture leaked a temp dir.")
    s.user("<command-name>/compact</command-name>\n<command-message>compact</command-message>")
    s.user("<local-command-stdout>Compacted</local-command-stdout>", injected=True)
    text = summarize_transcript(s.messages)
    assert "Skill `debug` instructions were loaded" in section(text, 1)
    assert "Always bisect" not in section(text, 1)
    assert "    - /compact\n" in section(text, 6)
    # /compact is handled by the CLI: the fix request stays the latest one, and it is done
    pending = section(text, 7)
    assert "None: the last request was answered; nothing is pending; wait for the user's" in pending
    assert 'The latest request ("Fix the flaky test.") was completed' in pending


def test_a_question_at_the_end_means_waiting_for_the_user() -> None:
    msgs = [
        Message("user", "Clean up the branch."),
        Message("assistant", "I removed the stale files. Should I also squash the commits?"),
    ]
    text = summarize_transcript(msgs)
    assert 'Wait for the user\'s answer to: "Should I also squash the commits?"' in text


# -- errors ----------------------------------------------------------------------------------------


def test_errors_have_their_command_and_their_fix() -> None:
    s = SessionBuilder()
    s.user("Run the script.")
    s.call(
        "Bash",
        {"command": "python tools/gen.py"},
        "Exit code 127\n/bin/bash: line 1: python: command not found",
        error=True,
    )
    s.call("Bash", {"command": "python3 tools/gen.py"}, "wrote 12 files")
    s.call(
        "Bash",
        {"command": "make lint"},
        "ruff check .\nsrc/a.py:3:1: F401 unused import\nmake: *** [lint] Error 1",
        error=True,
    )
    s.say("Lint fails on an unused import; leaving it for the user.")
    errors = section(summarize_transcript(s.messages), 4)
    assert (
        "`Bash: python tools/gen.py` failed (exit code 127): /bin/bash: line 1: python: "
        "command not found"
    ) in errors
    assert "Fixed: a later `Bash: python3 tools/gen.py` succeeded." in errors
    assert "`Bash: make lint` failed" in errors and "Not retried afterwards." in errors
    assert "No error" not in errors and "None in this part" not in errors


def test_source_lines_from_a_search_are_not_errors() -> None:
    s = SessionBuilder()
    s.user("Where do we raise ValueError?")
    s.call(
        "Bash",
        {"command": "rg -n 'raise ValueError' src"},
        "\n".join(f"src/m{i}.py:{i}:    raise ValueError('bad {i}')" for i in range(13)),
    )
    s.say("In 13 places, all input validation.")
    text = summarize_transcript(s.messages)
    assert "raise ValueError('bad" not in section(text, 4)
    assert "None in this part" in section(text, 4)


_RESULTS = st.sampled_from(
    [
        ("ok", False),
        ("Exit code 1\nboom", False),
        ("Process exited with code 2\nOutput:\n", False),
        ("anything at all", True),
        ("Traceback (most recent call last):\nKeyError: 'k'", False),
        ("FAILED tests/t.py::x - AssertionError", False),
        ("listing: raise ValueError", False),
    ]
)


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from(["make", "pytest", "./run.sh"]), _RESULTS), max_size=6))
def test_property_no_errors_claim_only_without_failures(
    runs: list[tuple[str, tuple[str, bool]]],
) -> None:
    """Section 4 says there were none only when no call failed; every failed call is listed."""
    s = SessionBuilder()
    s.user("Build and test.")
    for command, (output, flag) in runs:
        s.call("Bash", {"command": command}, output, error=flag)
    s.say("Done.")
    state = session_of(s.messages)
    errors = section(summarize_transcript(s.messages), 4)
    if state.errors:
        assert "None in this part" not in errors and "No error" not in errors
        for err in state.errors:
            assert err.call in errors
    else:
        assert "None in this part" in errors


# -- files, decisions, outputs, deliverable --------------------------------------------------------


def test_changed_files_with_their_latest_lines_and_not_listed_files() -> None:
    s = SessionBuilder()
    s.user("Add a config loader.")
    s.call("Bash", {"command": "ls src"}, "app.py\nutil.py\nlegacy.py")
    s.call("Write", {"file_path": "src/config.py", "content": "def load():\n    return {}\n"}, "ok")
    s.call(
        "Edit",
        {"file_path": "src/config.py", "old_string": "return {}", "new_string": "return read()"},
        "ok",
    )
    s.call("Bash", {"command": "cat > conf/app.toml <<'EOF'\nport = 8080\nEOF"}, "")
    s.say("Done.")
    files = section(summarize_transcript(s.messages), 3)
    assert "src/config.py (created, then edited by Edit, 2 changes)" in files
    assert "+ return read()" in files and "- return {}" in files
    assert "conf/app.toml (created by Bash)" in files and "port = 8080" in files
    assert "legacy.py" not in files and "util.py" not in files


def test_a_failed_edit_changes_no_file() -> None:
    s = SessionBuilder()
    s.user("Edit it.")
    s.call(
        "Edit",
        {"file_path": "a.py", "old_string": "x", "new_string": "y"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        error=True,
    )
    s.say("The string was not there.")
    state = session_of(s.messages)
    assert state.files == {} and len(state.errors) == 1


def test_decisions_and_what_commands_printed() -> None:
    s = SessionBuilder()
    s.user("Speed up the import.")
    s.say("Let me profile it first.")
    s.call("Bash", {"command": "python bench.py"}, "rows: 100000\nelapsed: 4.2s")
    s.say(
        "The cause is a per-row commit. Decision: batch the inserts in groups of 500 instead "
        "of committing each row. I changed BATCH_SIZE from 1 to 500."
    )
    s.call("Bash", {"command": "python bench.py"}, "rows: 100000\nelapsed: 0.9s")
    solving = section(summarize_transcript(s.messages), 5)
    assert "Decision: batch the inserts in groups of 500 instead of committing each row." in solving
    assert "I changed BATCH_SIZE from 1 to 500." in solving
    assert "Let me profile it first." not in solving  # a plan, not a decision
    assert "elapsed: 0.9s" in solving and "elapsed: 4.2s" in solving


def test_the_final_deliverable_is_kept_verbatim_up_to_its_budget() -> None:
    findings = "\n".join(
        f"{i}. Finding {i}: `parser.py` line {i * 10} drops a token." for i in range(40)
    )
    msgs = [
        Message("user", "Review the parser."),
        Message("assistant", "Review:\n" + findings),
    ]
    current = section(summarize_transcript(msgs), 8)
    assert "Final deliverable, the last substantial assistant answer, verbatim:" in current
    for line in findings.splitlines():
        assert line in current
    huge = [Message("user", "Review."), Message("assistant", "x " * 20_000)]
    current = section(summarize_transcript(huge), 8)
    found = re.search(r"\(first (\d+) and last (\d+) of 39999 characters\)", current)
    assert found is not None, current
    assert int(found.group(1)) + int(found.group(2)) == MAX_DELIVERABLE
    # both ends of a long answer: its end holds what comes next
    ending = "Want me to (a) ship it or (b) hold it?"
    long = [Message("user", "Review."), Message("assistant", "x " * 20_000 + "\n" + ending)]
    current = section(summarize_transcript(long), 8)
    assert ending in current and "characters omitted" in current


def test_the_deliverable_takes_the_room_the_other_sections_leave(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from compactor.counting.tokens import estimate_text
    from compactor.models import local

    monkeypatch.setattr(local, "MAX_SUMMARY_TOKENS", 2_000)
    huge = [Message("user", "Review."), Message("assistant", "x " * 20_000)]
    text = summarize_transcript(huge)
    assert estimate_text(text) <= 2_000
    found = re.search(r"verbatim \(first (\d+) and last (\d+) of 39999 characters\)", text)
    assert found is not None, text
    kept = int(found.group(1)) + int(found.group(2))
    assert local.MIN_VERBATIM < kept < MAX_DELIVERABLE


def test_only_the_grown_sections_read_the_deliverable_limit() -> None:
    """A deliverable grown into the room left renders sections 5 (which skips the sentences of
    an answer quoted whole) and 8 (which quotes it) again; the others come from the render
    before: every other part reads the same at any ``deliverable`` limit."""
    from dataclasses import replace

    from compactor.models import local
    from compactor.models.local_tail import modelled_pair

    answer = " ".join(
        f"I changed the parser in src/m{i}.py because the old tokenizer dropped case {i}, so "
        "the tests pass now."
        for i in range(40)
    )  # its decisions are listed in section 5 unless section 8 quotes it whole
    msgs = [Message("user", "Review the parser."), Message("assistant", answer)]
    session, state = modelled_pair(msgs, ())
    small, large = local.Limits(), replace(local.Limits(), deliverable=MAX_DELIVERABLE)
    for n, part in enumerate(local._SECTIONS, 1):
        same = part(session, small) == part(session, large)
        assert same is (n not in local._GROWN), n
    assert local._analysis(session, small) == local._analysis(session, large)
    fresh = local.render(session, large, state)
    memo: dict[tuple[int, local.Limits], str] = {}
    local.render(session, small, state, memo)
    assert local.render(session, large, state, memo) == fresh != local.render(session, small, state)


# -- the planted facts -----------------------------------------------------------------------------


def test_planted_facts_are_kept() -> None:
    """A ~80k-token session with 20 planted facts: at least 19 must survive."""
    from compactor.counting.tokens import estimate_message, estimate_text

    messages = planted_session()
    tokens = sum(estimate_message(m) for m in messages)
    assert 75_000 <= tokens <= 90_000
    text = summarize_transcript(messages)
    assert estimate_text(text) <= 6_000
    kept = [f.name for f in FACTS if all(n in text for n in f.needles)]
    missing = [f.name for f in FACTS if f.name not in kept]
    assert len(kept) >= 19, missing
    # and they sit where a resuming agent looks for them
    assert "Write the invoices backfill script" in section(text, 7)
    assert "npm run dev -- --port 5173" in section(text, 7)
    assert "rate-limit headers" in section(text, 9)
    assert "psycopg2.OperationalError" in section(text, 4)


def test_the_same_command_again_is_a_retry_even_for_a_search() -> None:
    s = SessionBuilder()
    s.user("Show the history.")
    for command in ("git log --oneline -5", "rg --files"):
        s.call(
            "Bash", {"command": command}, "Exit code 1\nbwrap: Operation not permitted", error=True
        )
    s.call("Bash", {"command": "git log --oneline -5"}, "abc123 first")
    s.call("Bash", {"command": "rg --files"}, None)  # still running
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later `Bash: git log --oneline -5` succeeded." in errors
    assert "Retried with `Bash: rg --files`; its result is not in the transcript yet." in errors


def test_a_log_shows_its_latest_distinct_error_lines_the_repeated_one_included() -> None:
    # The log's last error repeats its first: it is what went wrong last, so it is shown
    # (it used to be dropped for the three errors between, deduplicated at first sight).
    s = SessionBuilder()
    s.user("Why does the worker crash?")
    log = "\n".join(
        [
            "RuntimeError: connection reset by peer",
            "INFO started",
            "KeyError: 'user_id'",
            "ValueError: bad port",
            "TimeoutError: upstream timed out",
            "INFO retrying",
            "RuntimeError: connection reset by peer",
            "INFO done",
        ]
    )
    s.call("Bash", {"command": "tail -n 50 /var/log/worker.log"}, log)
    s.say("The worker loses its database connection.")
    solving = section(summarize_transcript(s.messages), 5)
    assert (
        "ValueError: bad port | TimeoutError: upstream timed out | "
        "RuntimeError: connection reset by peer"
    ) in solving
    assert "KeyError" not in solving
