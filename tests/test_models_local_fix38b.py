"""Blind check 38 (fix38b): a later run of a failed script that succeeded (no error flag, its
closing lines say so) fixed the failure, although it printed the same banner as the failed runs
(W2); a folder ``rm -rf DIR && bash script.sh`` deleted and the script made again, with files
under it read afterwards, is not "deleted" (W3). Every session is built here, by shape, with
invented content."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_BANNER = "==========\n  Harbor Relay — Beacon Deployment\n=========="
_DEPLOY = "cd /srv/fleet && bash deploy-beacon.sh 2>&1"


def _failed_run(step: str) -> str:
    return f"Exit code 1\n{_BANNER}\n[1/4] Checking prerequisites…\n{step}\n"


def _deploy_session(last: str) -> str:
    s = SessionBuilder()
    s.user("deploy the beacon agent with the script")
    s.call("Bash", {"command": _DEPLOY}, _failed_run("Copying files…"), error=True)
    s.say("It stopped early; set -e trips on an arithmetic step. Let me fix the script.")
    s.call(
        "Edit",
        {
            "file_path": "/srv/fleet/deploy-beacon.sh",
            "old_string": "set -euo pipefail",
            "new_string": "set -uo pipefail",
        },
        "The file /srv/fleet/deploy-beacon.sh has been updated.",
    )
    s.call("Bash", {"command": "rm -rf /srv/.beacon && " + _DEPLOY}, last)
    s.say("Deployed.")
    return section(summarize_transcript(s.messages), 4)


def test_a_later_run_whose_closing_lines_say_success_fixed_the_failure() -> None:
    """cc-og: ``bash deploy-agent-z.sh`` failed (exit 1; no error line, its banner stood in for
    the error); after the script's fix the same script ran without an error flag and ended
    "DEPLOYMENT SUCCESSFUL — 14 checks passed". Section 4 said "Not fixed: a later Bash … failed
    too (its output says: <the banner>)"."""
    ok = (
        f"{_BANNER}\n[1/4] Checking prerequisites…\n[2/4] Copying files…\n[3/4] Running checks…\n"
        "  ✓ 14 checks passed, 0 failed\n\nDEPLOYMENT SUCCESSFUL — 14 checks passed\n"
        "Beacon deployed to: /srv/.beacon/agents/b\n"
    )
    errors = _deploy_session(ok)
    assert "failed too" not in errors and "its output says" not in errors, errors
    assert "Fixed" in errors, errors


def test_a_later_run_whose_closing_lines_say_failure_still_failed() -> None:
    """The guard: the same banner, and closing lines that report a failure, still fail."""
    bad = (
        f"{_BANNER}\n[1/4] Checking prerequisites…\n[2/4] Copying files…\n[3/4] Running checks…\n"
        "  ✓ 12 checks passed\n  ✗ 2 checks failed\n\nDEPLOYMENT FAILED — see above\n"
    )
    errors = _deploy_session(bad)
    assert "failed too" in errors, errors
