"""Blind check 21 (issue 28, rows 930-949): the user's words inside a rejected call's result
("… To tell you how to proceed, the user said: …") are a correction attached to that call, never
a user request nor the current request; pending only while no later call acted on it."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_SAID = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)
_REQUEST = "Create a skill that documents the billing service for other agents"
_WORDS = "the big-number type comes from lib/numbers, use the right syntax"


def _corrected_session(*, acted: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user(_REQUEST)
    todos = [
        {"content": "write the reference docs", "status": "in_progress", "activeForm": "w"},
        {"content": "package the skill", "status": "pending", "activeForm": "p"},
    ]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    draft: dict[str, object] = {
        "file_path": "skill/references/architecture.md",
        "content": "# Arch\nBN from bn.js\n",
    }
    s.call("Write", draft, _SAID + _WORDS, error=True)
    if acted:
        s.call("Grep", {"pattern": "import.*BigNum"}, "lib/numbers.ts:1:export class BigNum")
        s.call("Read", {"file_path": "lib/numbers.ts"}, "1\texport class BigNum {}")
        fixed: dict[str, object] = {
            "file_path": "skill/references/architecture.md",
            "content": "# Arch\nBigNum\n",
        }
        s.call("Write", fixed, "File created successfully at: skill/references/architecture.md")
        todos[0]["status"], todos[1]["status"] = "completed", "in_progress"
        s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
        s.call("Bash", {"command": "rm -rf skill/assets"}, None)  # in flight
    return s


def test_rejection_words_acted_on_are_no_request_and_not_the_current_request() -> None:
    """cc-skill: the words of the last rejected Write became "Current request", "5 requests from
    the user" and §9 "continue the latest request: …" though the agent redid the Write."""
    text = summarize_transcript(_corrected_session(acted=True).messages)
    intent = section(text, 1)
    current = intent[intent.index("Current request") :] if "Current request" in intent else intent
    assert _WORDS not in current.split("\n", 1)[0], intent
    assert _REQUEST in intent, intent
    assert _WORDS in intent, intent  # kept as a correction / constraint
    assert "1 request from the user" in text, text
    assert _WORDS not in section(text, 6), section(text, 6)  # not a user message
    for number in (7, 8, 9):
        part = section(text, number)
        assert f"latest request: {_WORDS[:20]}" not in part, part
        assert f'"{_WORDS}' not in part, part
    assert _WORDS in section(text, 4), section(text, 4)


def test_rejection_words_no_call_acted_on_are_a_pending_correction_not_the_request() -> None:
    text = summarize_transcript(_corrected_session(acted=False).messages)
    intent = section(text, 1)
    assert f'request: "{_REQUEST}" (the current request)' in intent, intent
    assert "1 request from the user" in text, text
    assert "Not acted on yet" in intent and _WORDS in intent, intent
    for number in (7, 9):
        part = section(text, number)
        assert _WORDS in part and "ot acted on yet" in part, part
    assert "act on the user's correction" in section(text, 9), section(text, 9)


# -- 931: failures a pipe hides (exit 0, no error flag, the output says it failed) --------------

_NO_TESTS = (
    "> shop@1.2.0 test /repo/core\n> node scripts/jest.js --testPathPattern=libs/coupon\n\n"
    "No tests found, exiting with code 1\nRun with `--passWithNoTests` to exit with code 0\n"
    "In /repo/core\n  412 files checked.\n  testMatch: **/tests/**/*.spec.ts - 61 matches\n"
    "Pattern: libs/coupon - 0 matches\n"
)


def _masked_session(*, read_log: bool = False) -> SessionBuilder:
    s = SessionBuilder()
    s.user("Fix the coupon rounding and run its tests")
    edit: dict[str, object] = {"file_path": "core/libs/coupon.ts", "old_string": "a"}
    edit["new_string"] = "b"
    s.call("Edit", edit, "The file core/libs/coupon.ts has been updated successfully.")
    s.call(
        "Bash",
        {"command": "pnpm run --filter @shop/core test -- coupon 2>&1 | tail -50"},
        'No projects matched the filters in "/repo"',
    )
    s.call(
        "Bash",
        {"command": 'pnpm run test -- --testPathPattern="libs/coupon" 2>&1 | tail -100'},
        _NO_TESTS,
    )
    if read_log:
        s.call("Bash", {"command": "tail -50 /tmp/app.log"}, "Error: connection refused\n")
    s.say("The tests could not be selected; I will look for the spec file next.")
    return s


def test_a_failure_masked_by_a_pipe_is_named_not_no_call_failed() -> None:
    """cc-pk28: `… 2>&1 | tail -100` printed "No tests found, exiting with code 1" with exit 0;
    §4 said "No call failed (none was flagged …)" and §5 showed the output's first line."""
    text = summarize_transcript(_masked_session().messages)
    errors = section(text, 4)
    assert "none was flagged as an error or exited non-zero), but these printed" not in errors
    assert "No tests found, exiting with code 1" in errors, errors
    assert "No projects matched the filters" in errors, errors
    assert "hides" in errors, errors
    solving = section(text, 5)
    printed = solving[solving.index("What commands printed") :]
    line = next(x for x in printed.splitlines() if "libs/coupon" in x)
    assert "No tests found, exiting with code 1" in line, printed  # the key line is shown


def test_a_log_read_that_prints_errors_is_no_masked_failure() -> None:
    text = summarize_transcript(_masked_session(read_log=True).messages)
    errors = section(text, 4)
    masked = errors[errors.index("hides") :].split("\n   - ", 1)[0]
    assert "No tests found" in masked and "tail -50 /tmp/app.log" not in masked, errors


def test_the_same_failing_command_read_through_another_filter_is_no_failed_fix() -> None:
    """cc-lint: `pnpm lint 2>&1 | head -100` then `… | tail -100` (the rest of the same output)
    read as "Not fixed: a later … failed too" and listed twice as "Unresolved failure"."""
    s = SessionBuilder()
    s.user("Fix the lint errors in the working tree")
    lint = "src/a.tsx(12,3): error TS6133: 'x' is declared but never read.\nFailed tasks: lint"
    s.call("Bash", {"command": "cd /repo && pnpm lint 2>&1 | head -100"}, lint, error=True)
    s.call("Bash", {"command": "cd /repo && pnpm lint 2>&1 | tail -100"}, lint, error=True)
    s.call("Read", {"file_path": "/repo/src/a.tsx"}, "1\tconst x = 1")
    fix: dict[str, object] = {"file_path": "/repo/src/a.tsx", "old_string": "x", "new_string": "_"}
    s.call("Edit", fix, None, text="Now I understand the issues. Let me fix them.")  # in flight
    text = summarize_transcript(s.messages)
    assert "Not fixed: a later" not in section(text, 4), section(text, 4)
    assert section(text, 7).count("Unresolved failure") == 1, section(text, 7)
