"""Blind check 62 (fix62a): a cleanup step's "Killed PID N" in a call not flagged as failed is
its own report of a kill, not a failure (W2); an HTTP probe not flagged as failed whose answer
is an error status or an error-shaped body, accepted by the assistant's next words as expected,
is an answer, not an unresolved failure (W1, W4)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section


def _restart_session(*, flagged: bool) -> str:
    s = SessionBuilder()
    s.user("Restart the relay tunnel so the dashboard is reachable again.")
    s.call(
        "Bash",
        {
            "command": 'pwsh -Command ".\\stop-relays.ps1; ssh -f -N -R relay:80:localhost:9090 '
            "relay.example.org; sleep 5; echo 'relay restarted'\""
        },
        "Stopping old relays...\nKilled PID 51207\n\nRemaining relays:\nNone\nrelay restarted",
        error=flagged,
    )
    s.say("The relay is back up.")
    return summarize_transcript(s.messages)


def test_a_cleanup_steps_killed_pid_line_is_no_failure_of_an_unflagged_call() -> None:
    text = _restart_session(flagged=False)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert "failed: Killed PID 51207" not in text


def test_a_flagged_call_with_a_killed_pid_line_stays_a_failure() -> None:
    assert "1 tool call (1 failed)" in _restart_session(flagged=True)
    assert "1 tool call (1 failed)" not in _restart_session(flagged=False)


def _probe_session(output: str, next_text: str, *, flagged: bool = False) -> str:
    s = SessionBuilder()
    s.user("Check that the gateway answers after the database fix.")
    s.call(
        "Bash",
        {"command": "sleep 5 && curl -sI http://localhost:7310/ 2>&1 | head -n 3"},
        output,
        error=flagged,
    )
    s.say(next_text)
    s.call("Bash", {"command": "docker compose ps --format json"}, '{"Service": "gateway"}')
    return summarize_transcript(s.messages)  # (mid-turn: section 7 lists what is open)


def test_an_unflagged_probes_404_the_assistant_calls_normal_is_no_unresolved_failure() -> None:
    text = _probe_session(
        "HTTP/1.1 404 Not Found\nServer: nginx\nContent-Type: text/plain",
        "The gateway answers locally now (404 is normal: the root route does not exist).",
    )
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert "answered: HTTP/1.1 404 Not Found" in section(text, 4), section(text, 4)
    assert "(0 failed)" in text and "Failed: `Bash: sleep 5" not in text


def test_an_error_body_the_assistant_accepts_as_a_validation_error_is_an_answer() -> None:
    s = SessionBuilder()
    s.user("Can a tester log in to the store API?")
    s.call(
        "Bash",
        {
            "command": "curl -s -X POST https://api.example.test/auth/login -H "
            '"Content-Type: application/json" -d \'{"token":"made-up-token"}\''
        },
        '{"error": "Invalid access token", "hint": "check the token"}',
    )
    s.say("The login endpoint is working - it returns a proper validation error.")
    s.call("Bash", {"command": "grep -n 'router' src/routes.ts"}, "12: router.post('/login')")
    text = summarize_transcript(s.messages)
    assert "Unresolved failure" not in section(text, 7), section(text, 7)
    assert 'answered: {"error": "Invalid access token"' in section(text, 4), section(text, 4)


def test_a_probe_answer_the_assistant_doubts_or_the_tool_flagged_stays_a_failure() -> None:
    doubted = _probe_session(
        "HTTP/1.1 404 Not Found\nServer: nginx",
        "Still 404 — the route is not working yet; I will look at the proxy config.",
    )
    assert "failed: HTTP/1.1 404 Not Found" in section(doubted, 4), section(doubted, 4)
    assert "Unresolved failure" in section(doubted, 7), section(doubted, 7)
    broken = _probe_session("HTTP/1.1 503 Service Unavailable", "As expected.")
    assert "failed: HTTP/1.1 503" in section(broken, 4), section(broken, 4)
    flagged = _probe_session("HTTP/1.1 404 Not Found", "404 is normal here.", flagged=True)
    assert "answered: HTTP/1.1 404" not in flagged and "Not a failure to fix" not in flagged
