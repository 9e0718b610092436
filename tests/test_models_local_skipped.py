"""Failures a resuming agent must not go and fix (issue 28): one the assistant or the user set
aside ("skip it", "not needed", "continue without it") and a read that found nothing after which
the work went on are not "Unresolved failure"s; a failure nobody set aside still is. The same
state model lets ``compact eval`` flag a summary that calls such a failure unresolved."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.runs.claims import contradictions

from .planted_session import SessionBuilder
from .test_models_local_session import section


def _lint_skipped_by_the_assistant() -> SessionBuilder:
    s = SessionBuilder()
    s.user("Add the --dry-run flag to the deploy script and run its tests.")
    s.call("Edit", {"file_path": "scripts/deploy.py", "old_string": "a", "new_string": "b"}, "ok")
    s.call(
        "Bash",
        {"command": "npm run lint:docs"},
        "Error: Cannot load plugin remark-lint-frontmatter\nexit code 1",
        error=True,
    )
    s.say("The docs lint is not needed for a script change; skipping it and running the tests.")
    s.call("Bash", {"command": "pytest -q tests/test_deploy.py"}, None)
    return s


def test_a_failure_the_assistant_set_aside_is_not_unresolved() -> None:
    text = summarize_transcript(_lint_skipped_by_the_assistant().messages)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    errors = section(text, 4)
    assert "npm run lint:docs" in errors and "Cannot load plugin" in errors
    assert "Set aside on purpose, not to be fixed" in errors
    assert "skipping it" in errors


def test_a_failure_the_user_set_aside_is_not_unresolved() -> None:
    s = SessionBuilder()
    s.user("Bump requests to 2.32.3 and rebuild the wheel.")
    s.call("Bash", {"command": "make docs"}, "sphinx-build: command not found", error=True)
    s.user("Skip the docs build, it's not needed. Just rebuild the wheel.")
    s.call("Bash", {"command": "python -m build --wheel"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in text
    assert "Set aside on purpose" in section(text, 4)


def test_a_call_the_user_refused_to_let_run_is_not_unresolved() -> None:
    s = SessionBuilder()
    s.user("Compare our fees with the competitors' pricing pages.")
    s.call(
        "WebFetch",
        {"url": "https://example.com/pricing"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        error=True,
    )
    s.say("Understood. Without it, I'll compare from the numbers in the README.")
    s.call("Read", {"file_path": "README.md"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7)
    assert "Not a failure to fix: the user rejected it; nothing of it ran." in section(text, 4)


def test_a_read_that_found_nothing_before_the_work_went_on_is_a_finding() -> None:
    s = SessionBuilder()
    s.user("Export this session with the skill's script.")
    s.call(
        "Bash",
        {"command": "ls -l ~/.claude/skills/grant/export.sh"},
        "ls: /home/u/.claude/skills/grant/export.sh: No such file or directory\nexit code 1",
        error=True,
    )
    s.call("Bash", {"command": "ls -l ~/.codex/skills/grant"}, "-rwxr-xr-x 1 u u 2956 export.sh")
    s.call("Bash", {"command": "bash ~/.codex/skills/grant/export.sh ."}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7)
    errors = section(text, 4)
    assert "No such file or directory" in errors  # what does not exist stays a fact
    assert "A fact it established (not a failure to fix): " in errors


def test_a_failure_nobody_set_aside_is_still_unresolved() -> None:
    s = SessionBuilder()
    s.user("Make the integration tests pass.")
    s.call(
        "Bash",
        {"command": "pytest -q tests/integration"},
        "FAILED tests/integration/test_api.py::test_login - AssertionError\n1 failed, 40 passed",
        error=True,
    )
    s.say("The login test fails on the token check. Let me look at the fixture.")
    s.call("Read", {"file_path": "tests/integration/conftest.py"}, None)
    text = summarize_transcript(s.messages)
    # blind check 21: a check that failed before any change is named as what is still to fix
    still = "Still to fix, as this check reported before any change (run it again when done): "
    assert still + "`Bash: pytest -q tests/integration`" in section(text, 7)


def test_eval_flags_a_summary_that_calls_a_skipped_failure_unresolved() -> None:
    session = _lint_skipped_by_the_assistant().messages
    wrong = "7. Pending Tasks:\n   - Unresolved failure: `Bash: npm run lint:docs`\n"
    found = contradictions(session, wrong)
    assert [(c.kind, c.original[:33]) for c in found] == [
        ("unresolved failure", 'it was set aside on purpose: "The')
    ], found
    assert contradictions(session, summarize_transcript(session)) == []


def test_a_failure_done_another_way_is_worked_around_and_the_reason_is_the_relevant_one() -> None:
    s = SessionBuilder()
    s.user("Export the session and draft the grant application.")
    s.call("Bash", {"command": "rg --files -g README.md"}, "rg: Access is denied", error=True)
    s.call(
        "Bash",
        {"command": "bash ~/.claude/skills/grant/export-session.sh ."},
        "bash : The term 'bash' is not recognized as the name of a cmdlet",
        error=True,
    )
    s.say(
        "I've got enough repo evidence for the draft. The bash export helper is not available on "
        "Windows, so I'm recreating that export in PowerShell."
    )
    s.call("Bash", {"command": "Copy-Item $latest codex-session.jsonl"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    errors = section(text, 4)
    assert errors.count("Done without it, not to be fixed") == 2, errors
    export = errors[errors.index("export-session.sh") :]
    assert "recreating that export in PowerShell" in export.split("\n   - ")[0]


def test_instead_of_in_a_sentence_about_something_else_is_no_work_around() -> None:
    s = SessionBuilder()
    s.user("Run the migrations.")
    s.call("Bash", {"command": "alembic upgrade head"}, "ERROR: relation exists", error=True)
    s.say("The README reads like a product story instead of a commit dump.")
    s.call("Read", {"file_path": "README.md"}, None)
    text = summarize_transcript(s.messages)
    assert "Unresolved failure: `Bash: alembic upgrade head`" in section(text, 7)
