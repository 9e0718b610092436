"""Blind check 64 W1: under a failed probe, section 4's "Next call after it: … (failed)" named
the next call failed although its result was the user's rejection ("The user doesn't want to
proceed with this tool use. The tool use was rejected …"): it never ran, as section 5 says."""

from __future__ import annotations

from .cc_session import Session
from .test_models_local_session import section

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def test_a_rejected_next_call_is_said_rejected_not_failed() -> None:
    s = Session()
    s.user("Check that the tunnel answers.")
    s.bash("curl -sS https://tunnel.example.test/healthz", "HTTP ERROR: 404 NotFound")
    s.records[-1]["message"]["content"][0]["is_error"] = True
    s.call("Bash", {"command": "curl -sS https://tunnel.example.test/"}, REJECTED, error=True)
    s.user("[Request interrupted by user for tool use]")
    s.user("the tunnel quota is used up, see the screenshot")
    s.say("Understood: the free plan's monthly bandwidth is used up.")
    errors = section(s.summary(), 4)
    assert "Next call after it: `Bash: curl -sS https://tunnel.example.test/`" in errors, errors
    assert "(rejected by the user, never ran)" in errors
    assert "tunnel.example.test/` (failed)" not in errors
