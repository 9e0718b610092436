"""A reboot or shutdown in flight when the session was saved is not to be run again unasked
(blind check 68 N5: §9 said "check whether they ran … and run them again if still needed" of a
`systemctl reboot` the agent ran in answer to "can I restart the server through the cli?")."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section


def _session(command: str) -> Session:
    s = Session()
    s.user("can I restart the server through the cli?")
    s.say("Yes, you can restart it from the command line:")
    s.assistant(
        [{"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": {"command": command}}]
    )
    return s


@pytest.mark.parametrize("command", ["systemctl reboot", "sudo shutdown -r now", "sudo reboot"])
def test_a_reboot_in_flight_is_not_to_be_run_again_unasked(command: str, tmp_path: Path) -> None:
    summary = cc_summary(_session(command), tmp_path)
    pending = " ".join(section(summary, 7).split())
    assert "run a reboot or shutdown among them again only if the user asks for it" in pending
    assert "(it reboots or shuts down the machine: not to be run again unasked)" in pending
    step = " ".join(section(summary, 9).split())
    assert "do not run it again unless the user asks for it" in step, step
    assert "run them again if still needed" not in step


def test_another_call_in_flight_keeps_the_old_step(tmp_path: Path) -> None:
    summary = cc_summary(_session("systemctl status nginx --no-pager"), tmp_path)
    step = " ".join(section(summary, 9).split())
    assert "run them again if still needed" in step, step
    assert "reboots or shuts down" not in summary
