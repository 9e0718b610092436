"""Blind check 36 W1 (cc-familiar): a test run piped into ``| tail -N`` exits with ``tail``'s
status, 0 whatever the tests did; a later such run whose output says "54 failed" was called
the fix of the failing runs before it. Sessions built here by shape."""

from __future__ import annotations

from compactor.facts.maskedexit import hidden_failure
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_FAILED = (
    "  1) [chromium] › e2e/settings.spec.ts:12:5 › opens the models tab\n"
    "    TimeoutError: locator.click: Timeout 15000ms exceeded.\n"
    "  60 failed\n  49 passed (4.8m)\n"
)
_STILL_FAILED = (
    "  2) [chromium] › e2e/tree.spec.ts:40:3 › expands a node\n  54 failed\n  50 passed (5.1m)\n"
)


def _failing_run(s: SessionBuilder) -> None:
    s.user("make the e2e suite pass")
    s.call("Bash", {"command": "npx playwright test 2>&1 | head -200"}, _FAILED, error=True)
    s.say("Several tests time out on the tab locators. Let me update them and run again.")


def test_a_piped_test_run_whose_output_shows_failures_is_no_fix() -> None:
    s = SessionBuilder()
    _failing_run(s)
    s.call("Bash", {"command": "npx playwright test 2>&1 | tail -20"}, _STILL_FAILED)
    s.say("Still failing tests; let me look at the tree spec.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors, errors


def test_a_piped_background_test_run_whose_output_shows_failures_is_no_fix() -> None:
    s = SessionBuilder()
    _failing_run(s)
    s.call(
        "Bash",
        {"command": "npx playwright test 2>&1 | tail -20", "run_in_background": True},
        "Command running in background with ID: baa7e63",
    )
    s.call(
        "BashOutput",
        {"bash_id": "baa7e63"},
        "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\n"
        + _STILL_FAILED
        + "</stdout>",
    )
    s.say("54 failed, 50 passed. Let me look at the tree spec.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "Fixed: a later" not in errors, errors
    assert "Not fixed: a later" in errors and "baa7e63 printed: 54 failed" in errors, errors


def test_a_piped_run_that_passed_or_a_tail_of_a_log_is_no_failure() -> None:
    assert hidden_failure("npx playwright test 2>&1 | tail -20", _STILL_FAILED).startswith(
        "54 failed"
    )
    assert hidden_failure("npx playwright test 2>&1 | tail -20", "  0 failed\n  104 passed\n") == ""
    assert hidden_failure("cat build.log | tail -20", _STILL_FAILED) == ""
    assert hidden_failure("npx playwright test | tee out.txt", _STILL_FAILED) != ""


def test_a_playwright_summary_far_from_the_end_behind_cursor_codes_is_read() -> None:
    """Blind check 36 W1 as the real output has it: Playwright prints "54 failed" (after ANSI
    cursor codes), then every failed test's name (6 KB), then "50 passed"."""
    from compactor.facts.maskedexit import hidden_failure

    names = "".join(
        f"    [chromium] › e2e/usage.spec.ts:{n}:3 › Usage › should show row {n} ───\n"
        for n in range(54)
    )
    output = f"\x1b[1A\x1b[2K  54 failed\n{names}  50 passed (5.1m)\n"
    said = hidden_failure("npm run test:e2e 2>&1 | tail -80", output)
    assert said.startswith("54 failed"), said
    assert hidden_failure("npm run test:e2e 2>&1 | tail -80", f"{names}  104 passed (5.1m)\n") == ""
