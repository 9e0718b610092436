"""``ssh -T git@HOST`` that says the key authenticated is a passed test, not a failure: a git
host allows no shell, so the command always exits 1 (blind check 67 W1). Invented hosts and
users only."""

from __future__ import annotations

import pytest

from compactor.facts.probes import ssh_key_works
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

GREETING = (
    "Hi fake-user! You've successfully authenticated, but GitHub does not provide shell access."
)


def _summary(command: str, output: str) -> str:
    s = SessionBuilder()
    s.user("switch the remote to ssh and check that the key works")
    s.call("Bash", {"command": "git remote set-url origin git@github.com:fake-org/app.git"}, "")
    s.call("Bash", {"command": command}, output, error=True)
    s.say("Checked the key.")
    return summarize_transcript(s.messages)


@pytest.mark.parametrize(
    "command", ["ssh -T git@github.com", "ssh -o StrictHostKeyChecking=no -T git@github.com"]
)
def test_an_ssh_key_test_that_authenticated_is_no_failure(command: str) -> None:
    summary = _summary(command, f"Exit code 1\n{GREETING}")
    assert "(0 failed)" in summary
    assert "failed (exit code 1)" not in summary


def test_a_flagged_ssh_key_test_without_an_exit_code_is_no_failure() -> None:
    warning = "Warning: Permanently added 'github.com' (ED25519) to the list of known hosts."
    summary = _summary(
        "ssh -T git@github.com -o StrictHostKeyChecking=no", f"{warning}\r\n{GREETING}"
    )
    assert "(0 failed)" in summary
    assert "Unresolved failure" not in summary


def test_an_ssh_key_test_that_was_denied_is_a_failure() -> None:
    summary = _summary(
        "ssh -T git@github.com", "Exit code 255\ngit@github.com: Permission denied (publickey)."
    )
    assert "(1 failed)" in summary


def test_only_a_git_hosts_greeting_after_ssh_t_passes() -> None:
    assert ssh_key_works(1, GREETING, "cd repo && ssh -T git@gitlab.example.com")
    assert not ssh_key_works(1, "Permission denied (publickey).", "ssh -T git@github.com")
    assert not ssh_key_works(1, GREETING, "ssh deploy@10.0.0.9 uptime")
    assert not ssh_key_works(255, GREETING, "ssh -T git@github.com")
