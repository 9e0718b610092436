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
