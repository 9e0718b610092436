"""A stop call whose ``pkill`` matched no process stopped nothing: no "left stopped" state
(blind check 69 W6: ``kill %1 2>/dev/null || pkill -f "python3 -m http.server"`` returned a
bare "Error" and section 8 said "(succeeded): the service was left stopped"). Invented apps."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

STOP = 'kill %1 2>/dev/null || pkill -f "python3 -m http.server"'


def _session(output: str, error: bool) -> Session:
    s = Session()
    s.user("share the build folder over http so I can download it")
    s.call(
        "Bash",
        {"command": "python3 -m http.server 8888 &", "run_in_background": True},
        "Command running in background with ID: 4f2a1c",
    )
    s.say("The server is up. Download it from port 8888.")
    s.user("done, stop it")
    s.call("Bash", {"command": STOP}, output, error)
    for i in range(6):
        s.call("Read", {"file_path": f"/srv/build/part{i}.txt"}, "1→part")
    return s


@pytest.mark.parametrize(("output", "error"), [("Error", True), ("Exit code 1", True)])
def test_a_stop_whose_pkill_matched_nothing_sets_no_state(
    output: str, error: bool, tmp_path: Path
) -> None:
    summary = cc_summary(_session(output, error), tmp_path)
    assert "left stopped" not in summary, section(summary, 8)
    assert "Services' last known state" not in summary


def test_a_stop_that_returned_cleanly_still_sets_the_state(tmp_path: Path) -> None:
    summary = cc_summary(_session("", False), tmp_path)
    assert "(succeeded): the service was left stopped" in section(summary, 8)
