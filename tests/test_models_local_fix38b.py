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


# -- W3: a folder deleted and made again by the same call ------------------------------------------

_RECREATE = "rm -rf /srv/.beacon && cd /srv/fleet && bash deploy-beacon.sh"
_DEPLOYED = (
    "Deploying to /srv/.beacon/agents/b\n  Agent files copied\n  Test suite copied\n"
    "DEPLOYMENT SUCCESSFUL — 9 checks passed\n"
)


_Later = tuple[str, dict[str, object], str, bool]
"""A later call: tool name, arguments, result text, error flag."""


def _recreate_session(*later: _Later) -> str:
    s = SessionBuilder()
    s.user("redeploy the beacon agent from a clean folder and run its tests there")
    s.call("Bash", {"command": _RECREATE}, _DEPLOYED)
    for name, args, result, error in later:
        s.call(name, args, result, error=error)
    s.say("The deployed copy passes its tests.")
    return summarize_transcript(s.messages)


_TEST_FILE = "/srv/.beacon/agents/b/tests/test_beacon.py"


def test_a_folder_deleted_then_read_under_is_not_deleted() -> None:
    """cc-og: ``rm -rf …/.openclaw && bash deploy-agent-z.sh`` (the script deployed into
    ``.openclaw/agents/z``), then a Read of ``.openclaw/agents/z/tests/…py`` succeeded; §3 and §8
    still said "…/.openclaw (deleted by Bash)"."""
    text = _recreate_session(
        ("Read", {"file_path": _TEST_FILE}, "     1\timport unittest\n     2\t", False)
    )
    assert "(deleted by Bash)" not in text, section(text, 3)
    laters: list[_Later] = [  # a later command run inside it; a write under it
        ("Bash", {"command": "cd /srv/.beacon/agents && python3 b/tests/test_beacon.py"},
         "Ran 9 tests in 0.1s\n\nOK", False),
        ("Bash", {"command": "cd /srv/.beacon && ls agents"}, "b", False),
        ("Write", {"file_path": "/srv/.beacon/agents/b/NOTES.md", "content": "deployed\n"},
         "File created successfully at: /srv/.beacon/agents/b/NOTES.md", False),
    ]  # fmt: skip
    for later in laters:
        text = _recreate_session(later)
        assert "(deleted by Bash)" not in text, section(text, 3)
        assert "/srv/.beacon (deleted by Bash, then shown present" in text, section(text, 3)


def test_a_folder_deleted_and_not_seen_again_stays_deleted() -> None:
    """The guard: a later read that failed, a read of another folder, a search that found
    nothing there, a ``cd`` not joined by ``&&`` (it may have failed) do not bring it back."""
    text = _recreate_session(
        ("Read", {"file_path": _TEST_FILE}, "File does not exist.", True),
        ("Read", {"file_path": "/srv/fleet/deploy-beacon.sh"}, "     1\t#!/bin/bash\n", False),
        ("Glob", {"pattern": "**/*.py", "path": "/srv/.beacon/agents"}, "No files found", False),
        ("Bash", {"command": "cd /srv/.beacon; ls"}, "deploy-beacon.sh", False),
    )
    assert "/srv/.beacon (deleted by Bash)" in text, section(text, 3)
