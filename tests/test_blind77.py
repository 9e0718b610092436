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


_CONFLICT = (
    '{\n  "success": false,\n  "error": {\n    "code": "CONFLICT",\n'
    '    "message": "Email already registered"\n  }\n}'
)
_NOT_FOUND = (
    '{\n  "success": false,\n  "error": {\n    "code": "NOT_FOUND",\n'
    '    "message": "Task not found"\n  }\n}'
)
_BAD_JSON = (
    '{"success": false, "error": {"code": "BAD_REQUEST", '
    '"message": "Invalid JSON in request body"}}'
)
_REGISTER = 'curl -s -X POST localhost:3000/api/auth/register -d \'{"email":"a@b.c"}\' | jq'
_LOGIN_OK = 'curl -s -X POST localhost:3000/api/auth/login -d \'{"email":"A@B.C"}\' | jq .success'


def test_intended_negative_tests_of_an_api_are_no_failed_calls() -> None:
    """W3 (gr_bench2): "Let's test duplicate email registration:", a curl that answered the
    expected 409 (exit 0), "Excellent! All error scenarios work correctly": §4 counted it among
    "18 failed tool calls" and paired it with "Worked around by" a login of another endpoint."""
    s = Session()
    s.user("Implement Phase 2 authentication and test it.")
    s.say("Excellent! Let's test duplicate email registration:")
    s.bash(_REGISTER, _CONFLICT)
    s.say("Great! Let's test email case-insensitivity:")
    s.bash(_LOGIN_OK, "true")
    s.say("Excellent! All error scenarios work correctly.")
    text = s.summary()
    errors = section(text, 4)
    assert "failed: {" not in errors, errors
    assert "Worked around by" not in errors, errors
    assert "set out to test an error case" in errors, errors
    assert "(1 failed)" not in text


def test_an_error_answer_the_assistant_goes_on_to_fix_stays_a_failure() -> None:
    """The same turn: "The delete works correctly (returns 404). Let me fix the update test:"
    accepts the DELETE's 404 (the sentence names it) and not the PUT's bad-JSON answer."""
    s = Session()
    s.user("Implement Phase 2 authentication and test it.")
    s.say("Let's test updating and deleting cross-user tasks:")
    s.bash("curl -s -X PUT localhost:3000/api/tasks/2c05 -d '{bad'", _BAD_JSON)
    s.bash("curl -s -X DELETE localhost:3000/api/tasks/2c05 -w 'Status: %{http_code}'",
           "Status: 404")  # fmt: skip
    s.say("The delete works correctly (returns 404). Let me fix the update test:")
    s.bash("curl -s -X PUT localhost:3000/api/tasks/2c05 -d '{}'", _NOT_FOUND)
    s.say("Perfect! Now let's test some validation errors:")
    errors = section(s.summary(), 4)
    assert "Invalid JSON in request body" in errors and "BAD_REQUEST" in errors, errors
    assert "DELETE localhost:3000/api/tasks/2c05 -w 'Status: %{http_code}' failed" not in errors


def _sub_agent(prompt: str) -> str:
    """A sub-agent's own file (every record ``isSidechain``), its prompt first when given."""
    s = Session()
    if prompt:
        s.user(prompt)
    s.say("I'll implement Phase 2: Authentication by following the plan exactly.")
    s.call("Read", {"file_path": "/app/.claude/plans/phase-2-authentication.md"}, "# Phase 2")
    s.say("Phase 2 is implemented.")
    for rec in s.records:
        rec["isSidechain"] = True
    return s.summary()


def test_a_sub_agent_file_states_the_task_it_was_given() -> None:
    """N1 (gr_bench1–3): a sub-agent's transcript holds no user message; §1 said "No request
    from the user". Its first turn and the file it read first state the task; when the file
    holds the parent's prompt, that prompt is the task, not the user's words."""
    intent = section(_sub_agent(""), 1)
    assert "No request from the user in this part" not in intent, intent
    assert "sub-agent's transcript" in intent, intent
    assert "The task this sub-agent was given, as its first turn states it: \"I'll implement" in (
        " ".join(intent.split())
    )
    assert "phase-2-authentication.md" in intent, intent
    intent = " ".join(section(_sub_agent("Implement Phase 2 (authentication)."), 1).split())
    assert 'the task this sub-agent was given: "Implement Phase 2 (authentication)."' in intent
    assert "not the user's words" in intent, intent


def test_a_main_session_without_requests_is_no_sub_agent() -> None:
    s = Session()
    s.say("Resuming the work.")
    intent = section(s.summary(), 1)
    assert "sub-agent" not in intent and "No request from the user in this part" in intent


def _dev_server(kill: str, description: str) -> str:
    """``npm run dev`` started in the background, then ``kill`` after "stop the dev server"."""
    s = Session()
    s.user("Add authentication and test it against the dev server.")
    s.call(
        "Bash",
        {"command": "npm run dev 2>&1 | head -20", "description": "Start dev server",
         "run_in_background": True},
        "Command running in background with ID: 192c5a",
    )  # fmt: skip
    s.call("Bash", {"command": "curl -s localhost:3000/health"}, '{"status":"ok"}')
    s.say("Perfect! All tests pass. Now let me stop the dev server:")
    s.call("Bash", {"command": kill, "description": description}, "")
    s.say("Phase 2 is complete: authentication works.")
    return s.summary()


def test_a_kill_by_pattern_that_may_miss_the_job_is_one_judgement() -> None:
    """N2 (gr_bench2): ``pkill -f "tsx watch" || true`` after ``npm run dev`` (id 192c5a):
    §7/§9 said the job was still running, §8 that the pkill "left [the service] stopped"."""
    text = _dev_server('pkill -f "tsx watch" || true', "Stop dev server")
    pending, work = (" ".join(section(text, n).split()) for n in (7, 8))
    assert "may still be running (a pkill by pattern may not have matched it" in pending, pending
    assert "Background job still running" not in pending, pending
    assert "the service was left stopped" not in work, work
    assert "192c5a) is possibly still running (a pkill by pattern may not have matched it)" in (
        work
    )
    assert "Background job still running" not in section(text, 9)


def test_a_kill_by_pattern_that_matches_the_job_ends_it() -> None:
    text = _dev_server('pkill -f "npm run dev" || true', "Stop dev server")
    assert "may not have matched it" not in text
    assert "Background job still running" not in section(text, 7)


def test_an_api_error_worked_around_by_a_retry_is_no_expected_answer() -> None:
    """gr_bench1: a create-task call answered "Invalid token format", a retry with the token
    inlined worked, and then "Perfect! The API is working.": that was the retry's success, not
    an error the assistant set out to get."""
    s = Session()
    s.user("Deploy the API with Docker and check it.")
    s.say("Let me simplify the test:")
    s.bash(
        "curl -s localhost:3000/api/auth/login > /tmp/login.json && curl -s -X POST "
        'localhost:3000/api/tasks -H "Authorization: Bearer $(cat /tmp/token.txt)"',
        '{"success":false,"error":{"code":"UNAUTHORIZED","message":"Invalid token format"}}',
    )
    s.bash("cat /tmp/login.json", '{"success":true,"data":{"token":"abc"}}')
    s.bash(
        "curl -s -X POST localhost:3000/api/tasks -H 'Authorization: Bearer abc'",
        '{"success":true,"data":{"id":"9b00"}}',
    )
    s.say("Perfect! The API is working. Now let me check the container status.")
    errors = section(s.summary(), 4)
    assert "expected answer" not in errors and "set out to test" not in errors, errors
