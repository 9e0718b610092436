"""A failed ``sudo CMD`` ("a terminal is required") retried as ``echo PW | sudo -S CMD`` is retried
(blind check 75 W1/W2: em_vpn's DNS change and em_watch's ``dnf install -y gh`` were told "failed
… Not retried afterwards" and "gh is not installed" though the ``sudo -S`` form ran them). Names
and values are invented."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_retries import contains_command

from .cc_session import Session, cc_summary, section


def _cmd(text: str) -> frozenset[str]:
    return frozenset({f"$ {text}"})


def test_a_sudo_with_options_on_stdin_holds_the_plain_sudo() -> None:
    failed = _cmd("sudo dnf install -y gh")
    assert contains_command(failed, _cmd("echo 'x' | sudo -S dnf install -y gh"))
    assert contains_command(failed, _cmd("printf 'x\\n' | sudo -S -k dnf install -y gh"))
    assert not contains_command(failed, _cmd("echo 'x' | sudo -S dnf remove -y gh"))


def test_the_stdin_sudo_retry_is_told_as_the_retry(tmp_path: Path) -> None:
    s = Session()
    s.user("install the github cli")
    s.bash(
        "sudo dnf install -y gh",
        "sudo: a terminal is required to read the password; either use the -S option to read "
        "from standard input or configure an askpass helper\nsudo: a password is required",
    )
    s.records[-1]["message"]["content"][0]["is_error"] = True
    s.bash(
        "echo 'pw-invented' | sudo -S dnf install -y gh",
        "Installed:\n  gh-2.86.0-1.fc41.x86_64\nComplete!",
    )
    s.say("gh 2.86.0 is installed.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Not retried afterwards" not in errors, errors
