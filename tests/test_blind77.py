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


_RESTARTING = (
    "Exit code 1\nError response from daemon: Container 93f3 is restarting, wait until the "
    "container is running"
)


def _migrated(*, entrypoint: bool, later_ok: int) -> str:
    """A deploy step that failed on a restarting container; then (``entrypoint``) a start
    script that runs the step, made executable; ``later_ok`` successful calls of the service."""
    s = Session()
    s.user("Make the API production ready with Docker.")
    s.call(
        "Bash",
        {"command": "sleep 5 && docker-compose exec -T api npm run prisma:deploy"},
        _RESTARTING,
        error=True,
    )
    if entrypoint:
        script = "#!/bin/sh\nset -e\nnpx prisma migrate deploy\nexec node dist/server.js\n"
        s.call("Write", {"file_path": "/app/docker-entrypoint.sh", "content": script},
               "File created successfully at: /app/docker-entrypoint.sh")  # fmt: skip
        s.call("Bash", {"command": "chmod +x /app/docker-entrypoint.sh"}, "")
    s.call("Bash", {"command": "docker-compose up -d --build"}, "Container task-api Started")
    for n in range(later_ok):
        logs = "task-api  | No pending migrations to apply.\ntask-api  | Server started"
        s.call("Bash", {"command": f"docker-compose logs api --tail={10 + n}"}, logs)
    s.say("The API is now fully production-ready and deployed with Docker.")
    return s.summary()


def test_a_deploy_step_done_by_a_start_script_is_not_owed() -> None:
    """W1 (gr_bench1): the failed ``npm run prisma:deploy`` was moved into a new
    docker-entrypoint.sh (``npx prisma migrate deploy``); the logs said "No pending migrations
    to apply". §7 said "Still owed: the deploy … it is not done"."""
    text = _migrated(entrypoint=True, later_ok=1)
    assert "Still owed" not in text, section(text, 7)
    assert "Check whether the deploy" not in text, section(text, 7)


def test_a_deploy_whose_service_later_worked_is_to_be_checked_not_owed() -> None:
    """No start script, but the service's later calls succeeded: "check whether it was done
    another way", not "it is not done"; with none, it stays owed."""
    text = _migrated(entrypoint=False, later_ok=2)
    pending = section(text, 7)
    assert "Still owed" not in text, pending
    assert "Check whether the deploy `sleep 5 && docker-compose exec -T api" in pending, pending
    assert "was done another way" in pending, pending
    text = _migrated(entrypoint=False, later_ok=0)
    assert "Still owed: the deploy `sleep 5 && docker-compose exec" in section(text, 7)
