"""Blind check 21 (issue 28, rows 930-949): the user's words inside a rejected call's result
("… To tell you how to proceed, the user said: …") are a correction attached to that call, never
a user request nor the current request; pending only while no later call acted on it."""

from __future__ import annotations

from compactor.counting.tokens import estimate_message
from compactor.models.local import _summary, summarize_transcript
from compactor.schema import CONTENT_TYPE_KEY

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


def test_a_masked_failure_names_the_later_run_whose_tests_passed() -> None:
    s = _masked_session()
    run = 'pnpm run test 2>&1 | grep -E "(PASS|FAIL|Tests:)" | head -30'
    s.call("Bash", {"command": run}, "PASS tests/libs/coupon.spec.ts\nTests: 31 passed, 31 total")
    errors = section(summarize_transcript(s.messages), 4)
    item = next(x for x in errors.splitlines() if "libs/coupon" in x and "→" in x)
    assert "No tests found" in item and "printed: Tests: 31 passed, 31 total" in item, errors


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
    assert section(text, 7).count("pnpm lint") == 1, section(text, 7)  # one run, once


# -- 933: a command's output log is no deliverable ------------------------------------------------


def test_a_tee_or_redirect_log_of_a_commands_output_is_no_changed_file() -> None:
    """cc-pk28 N1: `pnpm run coverage 2>&1 | tee /tmp/coverage-output.txt | tail -50` listed the
    log under "Files and Code Sections" and as a "File changed for it"."""
    s = SessionBuilder()
    s.user("Fix the rounding of coupon totals and run the coverage")
    edit: dict[str, object] = {"file_path": "core/libs/coupon.ts", "old_string": "a"}
    edit["new_string"] = "b"
    s.call("Edit", edit, "The file core/libs/coupon.ts has been updated successfully.")
    cov = "pnpm run coverage 2>&1 | tee /tmp/coverage-output.txt | tail -50"
    s.call("Bash", {"command": cov}, "Tests: 223 passed, 223 total")
    s.call("Bash", {"command": "cd core && npm test > /tmp/test-run.log 2>&1"}, "")
    s.call("Bash", {"command": "echo 'LEVEL=debug' | tee config/app.env"}, "LEVEL=debug")
    s.call("Bash", {"command": "tail -5 /tmp/test-run.log"}, "Tests: 223 passed")
    text = summarize_transcript(s.messages)
    files, work = section(text, 3), section(text, 8)
    changed = next(x for x in work.splitlines() if "Files changed for it" in x)
    for log in ("/tmp/coverage-output.txt", "/tmp/test-run.log"):
        assert f"{log} (created" not in files, files
        assert log not in changed, work
    assert "config/app.env" in files and "core/libs/coupon.ts" in files, files


# -- 934: no request in this part: where the request is; 935: section 3 with a kept tail ---------


def test_a_part_without_a_request_says_the_request_is_in_the_earlier_summary() -> None:
    """cc-pk28 N2: "The conversation has 80 messages: 0 requests from the user"."""
    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n   Fix the trial discount display.\n"
        "8. Current Work:\n   Editing the discount calculation.\n"
    )
    s = SessionBuilder()
    s.user(earlier, **{CONTENT_TYPE_KEY: "summary"})
    s.call("Bash", {"command": "pnpm test 2>&1 | tail -3"}, "Tests: 12 passed, 12 total")
    s.say("All tests pass.")
    text = summarize_transcript(s.messages)
    analysis = text[: text.index("</analysis>")]
    assert "0 requests" not in analysis, analysis
    assert "no new request from the user (the request is in the earlier summary)" in analysis


def test_section_3_with_a_kept_tail_that_writes_does_not_say_no_file_changed() -> None:
    """cc-aikit hybrid N4: §3 "No file was created, edited or deleted." while the kept tail (and
    §8) held the Write of REVIEW.md."""
    s = SessionBuilder()
    s.user("Review the skill and write your findings to REVIEW.md")
    s.call("Read", {"file_path": "skill/SKILL.md"}, "1\t# Skill")
    s.call("Grep", {"pattern": "TODO"}, "skill/SKILL.md:3: TODO")
    cut = len(s.messages)
    s.call(
        "Write", {"file_path": "REVIEW.md", "content": "# Review\n"}, "File created successfully"
    )
    s.say("Wrote REVIEW.md with five issues.")
    head, tail = s.messages[:cut], s.messages[cut:]
    text = _summary(head, sum(map(estimate_message, head)), "", tail)
    files = section(text, 3)
    assert "No file was created, edited or deleted." not in files, files
    assert "REVIEW.md" in files and "kept after this summary" in files, files


def test_a_check_that_failed_before_any_change_is_the_tasks_input_not_a_failure() -> None:
    """cc-lint: the lint run that listed the errors to fix, before any edit, was §7's
    "Unresolved failure" (the lint errors are the task itself)."""
    s = SessionBuilder()
    s.user("Fix the lint errors in the working tree")
    lint = "src/a.tsx(12,3): error TS6133: 'x' is declared but never read.\nFailed tasks: lint"
    s.call("Bash", {"command": "cd /repo && pnpm lint 2>&1 | tail -100"}, lint, error=True)
    s.call("Read", {"file_path": "/repo/src/a.tsx"}, "1\tconst x = 1")
    fix: dict[str, object] = {"file_path": "/repo/src/a.tsx", "old_string": "x", "new_string": "_"}
    s.call("Edit", fix, None, text="Let me fix them.")  # in flight
    pending = section(summarize_transcript(s.messages), 7)
    assert "Unresolved failure" not in pending, pending
    assert "before any change" in pending and "pnpm lint" in pending, pending


def test_a_check_that_failed_after_a_change_stays_an_unresolved_failure() -> None:
    s = SessionBuilder()
    s.user("Fix the lint errors in the working tree")
    fix: dict[str, object] = {"file_path": "/repo/src/a.tsx", "old_string": "x", "new_string": "_"}
    s.call("Edit", fix, "The file /repo/src/a.tsx has been updated successfully.")
    lint = "src/a.tsx(12,3): error TS6133: '_' is declared but never read.\nFailed tasks: lint"
    s.call("Bash", {"command": "cd /repo && pnpm lint 2>&1 | tail -100"}, lint, error=True)
    s.call("Read", {"file_path": "/repo/src/a.tsx"}, None)  # in flight
    pending = section(summarize_transcript(s.messages), 7)
    assert "Unresolved failure" in pending and "pnpm lint" in pending, pending
