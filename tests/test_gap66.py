"""Blind check 66 gaps (gap66, issue 28): a fix made by changing configuration names the change;
each session is built by shape, with invented content."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- a configuration change between a failure and its fix is named (66 N4) ----------------------


def _config_then_retry(change: str) -> str:
    s = SessionBuilder()
    s.user("commit the ledger export story")
    commit = 'git commit -m "feat: ledger export"'
    s.call(
        "Bash",
        {"command": commit},
        "Exit code 128\nerror: gpg failed to sign the data\nfatal: failed to write commit object",
        error=True,
    )
    s.call("Bash", {"command": change}, "")
    s.call("Bash", {"command": commit}, "[main 1a2b3c4] feat: ledger export\n 3 files changed")
    s.say("Committed.")
    return section(summarize_transcript(s.messages), 4)


def test_a_git_config_change_before_the_fix_is_named_as_a_standing_change() -> None:
    four = _config_then_retry("git config commit.gpgsign false")
    assert "after `git config commit.gpgsign false`" in four, four
    assert "standing configuration change" in four, four


def test_an_export_before_the_fix_is_named_but_not_standing() -> None:
    four = _config_then_retry("export GPG_TTY=$(tty)")
    assert "after `export GPG_TTY=$(tty)`" in four, four
    assert "standing" not in four, four


def test_a_config_read_is_no_change() -> None:
    four = _config_then_retry("git config --get commit.gpgsign")
    assert "Fixed" in four and "after `git config" not in four, four


def test_a_wrapped_config_change_is_named_without_its_shell() -> None:
    four = _config_then_retry("bash -lc 'git config --global commit.gpgsign false'")
    assert "after `git config --global commit.gpgsign false` (a standing" in four, four
