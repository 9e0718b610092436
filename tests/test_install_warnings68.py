"""An unflagged install that printed its package tool's own success lines (dpkg's "Setting up X
(version) ...", pip's "Successfully installed", npm's "added N packages") is a success; the
error-looking lines on the way (debconf's "Failed to open terminal … giving up!", a postinst's
"Failed to stop x.service: Unit … not loaded") are warnings (blind check 68 W8: two apt
installs that set up every package were "failed" in section 4). A flagged result, a tool's own
failure line (apt's "E: …") or another program's error stays a failure. Invented packages."""

from __future__ import annotations

import pytest

from compactor.facts import Call, Result, outcome
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

DEBCONF = (
    "dpkg-preconfigure: unable to re-open stdin: No such file or directory\n"
    "Failed to open terminal.debconf: whiptail output the above errors, giving up!"
)
APT_OK = (
    "Reading package lists...\nBuilding dependency tree...\n"
    "The following NEW packages will be installed:\n  fakemon fakemon-common\n"
    f"{DEBCONF}\n"
    "Setting up fakemon-common (1.2.3-1) ...\n"
    "Failed to stop fakemail.service: Unit fakemail.service not loaded.\n"
    "Setting up fakemon (1.2.3-1) ...\nProcessing triggers for man-db (2.12.0-4build2) ..."
)


def _outcome(command: str, text: str, error: bool = False) -> bool:
    call = Call("c1", "Bash", f'{{"command": "{command}"}}', 1)
    return outcome(Result("c1", "Bash", text, error), call).failed


@pytest.mark.parametrize(
    "command",
    [
        "apt install fakemon -y",
        "apt update && DEBIAN_FRONTEND=noninteractive apt install fakemon -y",
    ],
)
def test_an_apt_install_that_set_up_its_packages_is_no_failure(command: str) -> None:
    assert not _outcome(command, APT_OK)
    s = SessionBuilder()
    s.user("install the monitoring tools")
    s.call("Bash", {"command": command}, APT_OK)
    s.say("Installed.")
    summary = summarize_transcript(s.messages)
    assert "(0 failed)" in summary, summary
    errors = summary.split("4. Errors")[1].split("5. ")[0]
    assert "failed:" not in errors and "did not fail" in errors, errors


def test_pip_and_npm_success_lines_outweigh_a_warning_line() -> None:
    pip = "Collecting fakelib\nFailed to build wheel cache entry, using sdist\n"
    pip += "Successfully installed fakelib-1.0"
    assert not _outcome("pip install fakelib", pip)
    npm = "npm WARN deprecated x@1\nFailed to fetch optional dep fsevents\nadded 12 packages in 3s"
    assert not _outcome("npm install", npm)


def test_a_flagged_install_or_the_tools_own_failure_stays_a_failure() -> None:
    assert _outcome("apt install fakemon -y", APT_OK, error=True)
    broken = (
        APT_OK
        + "\nErrors were encountered while processing:\n fakemon\n"
        + "E: Sub-process /usr/bin/dpkg returned an error code (1)"
    )
    assert _outcome("apt install fakemon -y", broken)
    tests = "Successfully installed fakelib-1.0\nFAILED tests/test_a.py::test_b - assert 1 == 2"
    assert _outcome("pip install fakelib && pytest", tests)
