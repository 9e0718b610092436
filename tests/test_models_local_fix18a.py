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
        ("NotebookEdit", {"notebook_path": "/home/u/project/analysis.ipynb", "new_source": "x"}),
        ("Write", {"file_path": "/home/u/project/denote.py", "content": "x = 1\n"}),
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


# -- 722: a read that printed an error is no failure; an edit before the success is the fix --------

_CRASH_LOG = (
    "app  | INFO:     Started server process [1]\n"
    'app  | ERROR:    Error loading ASGI app. Could not import module "pkg.runtime.server_v2".\n'
)


def _crash_session(logs: str, failed_start: bool) -> str:
    s = SessionBuilder()
    s.user("the app container keeps crash-looping, fix it")
    if failed_start:
        s.call(
            "Bash", {"command": "docker compose up app 2>&1 | tail -5"},
            f"{_CRASH_LOG}app exited with code 1", error=True,
        )  # fmt: skip
    s.call("Bash", {"command": logs}, _CRASH_LOG)
    s.call("Read", {"file_path": "/srv/app/docker-compose.yml"}, "command: uvicorn x:app\n")
    s.call(
        "Edit",
        {"file_path": "/srv/app/docker-compose.yml", "old_string": "server_v2:app",
         "new_string": "server:app"},
        "The file /srv/app/docker-compose.yml has been updated.",
    )  # fmt: skip
    s.call("Bash", {"command": "docker compose up -d app 2>&1"}, "Container app  Started")
    s.call("Bash", {"command": "curl -s http://127.0.0.1:8000/health"}, '{"status":"ok"}')
    s.say("The container is up and the health endpoint answers.")
    return summarize_transcript(s.messages)


def test_a_compose_log_read_that_printed_an_error_is_no_failure() -> None:
    """forge-cc: `docker compose logs app --tail=30 2>&1` (is_error false) printed the crashing
    app's "ERROR: Error loading ASGI app"; section 4 listed the read as a failed call."""
    for logs in (
        "docker compose logs app --tail=30 2>&1",
        "cd /srv/app && docker-compose logs --tail 30 app | tail -20",
        "curl -s http://127.0.0.1:8000/logs",
    ):
        errors = section(_crash_session(logs, failed_start=False), 4)
        assert "No call failed" in errors, (logs, errors)
        assert "did not fail, but printed" in errors, (logs, errors)


def test_the_edit_before_the_success_is_credited_with_the_fix() -> None:
    """forge-cc: the start failed, the logs were read, docker-compose.yml was edited, then the
    start succeeded; section 4 credited the next call ("Worked around by …"), not the edit."""
    errors = section(_crash_session("docker compose logs app --tail=30", failed_start=True), 4)
    assert "docker compose up app 2>&1 | tail -5` failed" in errors, errors
    assert "Fixed by editing /srv/app/docker-compose.yml" in errors, errors
    assert "docker compose up -d app 2>&1` succeeded" in errors, errors
    assert "Worked around by `Bash: docker compose logs" not in errors, errors
    read = "docker compose logs app --tail=30 did not fail, but printed: app | ERROR"
    assert read in errors, errors  # what the log held stays, as a fact


def test_an_edit_is_not_credited_for_getting_past_a_missing_program() -> None:
    """vo-inflight (seen set 13): `uv run ruff check .` failed to spawn ruff, a test file was
    edited, then `uv run --with ruff ruff check .` passed: the changed command got past it."""
    s = SessionBuilder()
    s.user("fix the form field and run the linter")
    s.call(
        "Bash", {"command": "uv run ruff check ."},
        "error: Failed to spawn: `ruff`\n  Caused by: No such file or directory (os error 2)",
        error=True,
    )  # fmt: skip
    s.call(
        "Edit",
        {"file_path": "/w/backend/tests/test_stream.py", "old_string": "a", "new_string": "b"},
        "The file /w/backend/tests/test_stream.py has been updated.",
    )
    s.call("Bash", {"command": "uv run --with ruff ruff check ."}, "All checks passed!")
    s.say("Fixed and the linter passes.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed by editing" not in errors, errors
    assert "Worked around by `Bash: uv run --with ruff ruff check .`" in errors, errors


# -- 723: a failure whose program later ran in another form is worked around, not unfixed --------


def _install_session() -> str:
    s = SessionBuilder()
    s.user("implement the list layout and run the tests")
    s.call(
        "Bash", {"command": "yes | pnpm install --offline"},
        "ERR_PNPM_NO_OFFLINE_TARBALL  A package is missing from the store", error=True,
    )  # fmt: skip
    s.call(
        "Bash", {"command": 'pnpm test --filter "list"'},
        "> vitest run --filter list\n\nsh: vitest: command not found", error=True,
    )  # fmt: skip
    for n in range(14):  # later failures, each of its own kind, each fixed by its re-run
        check: dict[str, object] = {"command": f"./scripts/check_{n}.sh"}
        s.call("Bash", check, f"check_{n}: error: lint {n} failed", error=True)
        s.call("Bash", check, f"check_{n}: ok")
    s.call("Bash", {"command": "pnpm install"}, "Packages: +312\nDone in 4.1s")
    s.call("Bash", {"command": "pnpm exec vitest run app/list.test.tsx"}, "Tests  5 passed (5)")
    s.say("Installed the dependencies; the list tests pass.")
    return section(summarize_transcript(s.messages), 4)


def test_a_failure_whose_program_later_ran_in_another_form_is_worked_around() -> None:
    """madinah-codex: `yes | pnpm install --offline` failed and `pnpm install` later succeeded;
    `pnpm test --filter "list"` failed with "vitest: command not found" and vitest later ran;
    section 4 headed both "the unfixed ones first"."""
    errors = _install_session()
    assert "(the unfixed ones first, then the latest)" in errors, errors
    assert "pnpm install --offline" not in errors and "vitest" not in errors, errors
    assert "check_13.sh" in errors, errors


def test_the_other_forms_say_how_they_got_past() -> None:
    """With room for every failure, each says what got past it."""
    s = SessionBuilder()
    s.user("install and test")
    s.call(
        "Bash", {"command": "yes | pnpm install --offline 2>&1"},
        "ERR_PNPM_NO_OFFLINE_TARBALL  A package is missing from the store", error=True,
    )  # fmt: skip
    s.call(
        "Bash", {"command": 'pnpm test --filter "list"'}, "sh: vitest: command not found",
        error=True,
    )  # fmt: skip
    s.call("Bash", {"command": "pnpm install"}, "Packages: +312\nDone in 4.1s")
    s.call("Bash", {"command": "pnpm exec vitest run app/list.test.tsx"}, "Tests  5 passed (5)")
    s.say("Installed the dependencies; the list tests pass.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Worked around by `Bash: pnpm install` (succeeded)" in errors, errors
    assert "`vitest` is there now and ran without failing" in errors, errors


def test_a_later_run_with_other_arguments_does_not_fix_a_failure() -> None:
    """`pnpm install left-pad` failing is not got past by a bare `pnpm install`: the package
    the failed form named is still missing."""
    s = SessionBuilder()
    s.user("run the tests")
    s.call("Bash", {"command": "pnpm install left-pad"}, "ERR_PNPM_FETCH_404 left-pad", error=True)
    s.call("Bash", {"command": "pnpm install"}, "Done in 1.0s")
    s.say("The other packages are installed; left-pad is not on the registry.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "pnpm install left-pad` failed" in errors, errors
    assert "Worked around" not in errors and "Fixed" not in errors, errors
