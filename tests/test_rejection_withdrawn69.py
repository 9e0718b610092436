"""A rejection whose very next user message only says to go on ("Sorry continue") was withdrawn:
its lead-in is no turned-down proposal and its call no standing rejection (blind check 69 W5:
the user answered two rejections with "Sorry continue", the agent went on and fixed the port
conflict, yet the diagnosis was listed among "Proposals the user turned down (not decisions; do
not act on them)"). Invented service and ports."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)
DIAGNOSIS = (
    "The issue is clear: **Port conflict on 127.0.0.1:9100**. Both workers try to bind the "
    "same port. Let me check what is using it:"
)
CHECK = "ss -tlnp | grep 9100; systemctl status fake-worker-a fake-worker-b"


def _session(reply: str) -> Session:
    s = Session()
    s.user("the second worker does not start, find out why")
    s.bash("systemctl status fake-worker-b", "Active: failed (Result: exit-code)")
    s.say(DIAGNOSIS)
    s.call("Bash", {"command": CHECK}, REJECTED, True)
    s.user([{"type": "text", "text": "[Request interrupted by user for tool use]"}])
    s.user(reply)
    s.bash("ss -tlnp | grep 9100", 'LISTEN 0 511 127.0.0.1:9100 users:(("fake-worker-a"))')
    s.call(
        "Edit",
        {"file_path": "/srv/app/worker-b.conf", "old_string": "9100", "new_string": "9101"},
        "The file /srv/app/worker-b.conf has been updated.",
    )
    s.bash("systemctl restart fake-worker-b", "")
    s.say("Worker B now listens on 9101 and starts.")
    return s


@pytest.mark.parametrize("reply", ["Sorry continue", "go ahead", "ごめん、続けて", "yes do it"])
def test_a_rejection_answered_by_go_on_is_withdrawn(reply: str, tmp_path: Path) -> None:
    summary = cc_summary(_session(reply), tmp_path)
    solving = " ".join(section(summary, 5).split())
    assert "turned down" not in solving, solving
    assert "Calls the user rejected" not in solving, solving
    assert "Rejected, then withdrawn (the user's next message said to go on:" in solving
    errors = " ".join(section(summary, 4).split())
    assert "Not a standing rejection: the user's next message said to go on:" in errors, errors


@pytest.mark.parametrize("reply", ["continue, but do not touch the ports", "why?"])
def test_a_rejection_answered_otherwise_still_stands(reply: str, tmp_path: Path) -> None:
    summary = cc_summary(_session(reply), tmp_path)
    solving = " ".join(section(summary, 5).split())
    assert "Calls the user rejected (they never ran; not to be redone unasked)" in solving
    assert "withdrawn" not in summary
