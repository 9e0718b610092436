"""A call that stopped or disabled a service after its last start, with nothing starting it
again, is the service's last known state: section 8 says so and section 5's list of calls keeps
it when the list is cut (blind check 68 W1: an earlier "The application is now running … live
at http://…" answer was quoted while a later ``pm2 stop APP`` had stopped it; the call was cut
from the lists). Invented apps and hosts."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary, section

RUNNING = "The app restarted. The application is now running and live at http://203.0.113.9"


def _session(stop: str, after: list[str], stop_output: str = "[PM2] stopped ✓") -> Session:
    s = Session()
    s.user("deploy the latest version of the shop app")
    for i in range(8):
        s.bash(f"git -C /srv/shop log --oneline -{i + 1}", "abc123 fix")
    s.bash("pm2 restart shop-app", "[PM2] [shop-app](0) ✓ online")
    s.say(RUNNING)
    s.user("I still see the old version")
    s.say("Let me stop it and check the files.")
    s.bash(stop, stop_output)
    for command in after:
        s.bash(command, "ok")
    for i in range(8):
        s.call("Read", {"file_path": f"/srv/shop/src/page{i}.js"}, "1→const page = 1;")
    return s


@pytest.mark.parametrize(
    ("stop", "line"),
    [
        ("pm2 stop shop-app", "`pm2 stop shop-app` (succeeded): the service was left stopped"),
        ("sudo systemctl stop shop", "`sudo systemctl stop shop` (succeeded): the service was"),
        ("docker compose down", "`docker compose down` (succeeded): the service was left stopped"),
    ],
)
def test_a_stop_no_call_undid_is_the_services_last_state(
    stop: str, line: str, tmp_path: Path
) -> None:
    summary = cc_summary(_session(stop, []), tmp_path)
    current = section(summary, 8)
    assert line in current, current
    assert "nothing started it again" in current
    assert f"Bash: {stop}\n" in section(summary, 5)  # kept where the list of calls is cut
    assert "calls omitted" in section(summary, 5)


def test_a_disabled_service_says_nothing_enabled_it(tmp_path: Path) -> None:
    summary = cc_summary(_session("systemctl disable snapd fakeprobe", []), tmp_path)
    assert "the services were left disabled; nothing enabled them again" in section(summary, 8)


@pytest.mark.parametrize(
    ("stop", "after"),
    [
        ("pm2 stop shop-app", ["pm2 start /srv/shop/ecosystem.config.js"]),
        ("pm2 stop shop-app && pm2 start shop-app", []),
        ("systemctl stop shop", ["systemctl restart shop"]),
        ("docker compose down", ["docker compose up -d"]),
        ('pkill -f "node server.js"', ["npm run dev &"]),
    ],
)
def test_a_service_started_again_has_no_state_line(
    stop: str, after: list[str], tmp_path: Path
) -> None:
    summary = cc_summary(_session(stop, after), tmp_path)
    assert "left stopped" not in summary


def test_a_failed_stop_has_no_state_line(tmp_path: Path) -> None:
    failed = "Exit code 5\nFailed to stop shop.service: Unit shop.service not loaded."
    summary = cc_summary(_session("systemctl stop shop", [], failed), tmp_path)
    assert "`Bash: systemctl stop shop` failed" in summary
    assert "left stopped" not in summary
