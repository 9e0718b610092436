"""Blind check 77: a passing test script's summary (``Failed: 0``) is no failure (W2); a deploy
done another way is not owed (W1); intended negative tests of an API are no failed calls (W3); a
sub-agent's first prompt is its request (N1); one judgement of a killed job's state (N2)."""

from __future__ import annotations

from .cc_session import Session, section

_SUITE = (
    "=== Auth Test Suite ===\n\nTest 1: User Registration\n\x1b[0;32m✓ Registration "
    "successful\x1b[0m\nTest 2: User Login\n\x1b[0;32m✓ Login successful\x1b[0m\n\n"
    "=== Test Summary ===\nPassed: \x1b[0;32m2\x1b[0m\nFailed: \x1b[0;31m0\x1b[0m\nTotal: 2\n"
    "\x1b[0;32mAll tests passed!\x1b[0m"
)


def test_a_suite_that_printed_failed_zero_is_no_failed_call() -> None:
    """W2 (gr_bench2): a test script's run printed "Passed: 7 | Failed: 0 | All tests passed!"
    (no exit-code header: exit 0); the summary called it failed ("# Test 1 failed: Failed: 0")
    and listed it among the failures. A count of zero beside a failure word is no failure."""
    s = Session()
    s.user("Add authentication and test it.")
    s.bash(
        "cat > /tmp/test-auth.sh << 'EOF'\n#!/bin/bash\nset -e\n# Test 1: Register\n"
        "curl -s localhost:3000/api/auth/register\nEOF\nchmod +x /tmp/test-auth.sh && "
        "/tmp/test-auth.sh",
        _SUITE,
    )
    s.say("Perfect! All tests pass.")
    text = s.summary()
    assert "Failed: 0" not in section(text, 4)
    assert "(failed)" not in section(text, 5)
    assert "Failed: Bash: cat > /tmp/test-auth.sh" not in text
