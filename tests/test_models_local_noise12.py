"""Blind check 12's noise in the embedded summary (issue 28, rows 520-521): Claude Code's ``!``
shell-mode records and typed CLI settings commands are not user requests."""

from __future__ import annotations

import pytest

from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import select_user_messages
from compactor.schema import AgenticMessage, Block

from .planted_session import SessionBuilder
from .test_models_local_session import section

_INPUT = "<bash-input>sudo ip link add macvlan-host link enp1 type macvlan</bash-input>"
_ECHO = (
    "<bash-stdout>Place your right index finger on the fingerprint reader</bash-stdout>"
    "<bash-stderr>sudo: a terminal is required to read the password</bash-stderr>"
)


def _user(text: str) -> AgenticMessage:
    return AgenticMessage("user", [Block("user_input_text", text)])


def _shell_session() -> SessionBuilder:
    s = SessionBuilder()
    s.user("set up the windows vm with a macvlan network")
    s.call("Bash", {"command": "docker compose up -d"}, "started windows")
    s.user(_INPUT)
    s.user(_ECHO)
    s.user("<bash-input>ip a</bash-input>")
    s.user("<bash-stdout>1: lo: <LOOPBACK,UP></bash-stdout><bash-stderr></bash-stderr>")
    s.user("now check that the vm answers on 192.168.6.201")
    s.call("Bash", {"command": "ping -c1 192.168.6.201"}, "1 received")
    return s


def test_user_shell_commands_are_not_requests() -> None:
    """om-winvm: the user's ``!`` shell echoes (``<bash-stdout>Place your right index
    finger…``, sudo errors) were printed as user messages."""
    text = summarize_transcript(_shell_session().messages)
    intent = section(text, 1)
    assert "<bash-" not in text, text
    assert "Later requests" not in intent, intent
    assert 'Current request: "now check that the vm answers on 192.168.6.201"' in intent, intent
    users = section(text, 6)
    ran = "the user ran `sudo ip link add macvlan-host link enp1 type macvlan` themselves"
    assert users.count(ran) == 1 and "the user ran `ip a` themselves" in users, users
    # its echo is no message of its own: what it printed goes with the command (blind check 22)
    assert f"{ran}; it printed: Place your right index finger" in users, users
    assert users.count("fingerprint") == 1 and "- Place your" not in users, users


@pytest.mark.anyio
async def test_shell_echoes_are_not_reinserted_as_user_messages() -> None:
    """The finalizer's list: the command on one line, its stdout/stderr echo no message of its
    own (what it printed goes with the command since blind check 22)."""
    history = [_user("set up the vm"), _user(_INPUT + "\n"), _user(_ECHO), _user("check it")]
    kept, dropped = await select_user_messages(history, 10_000, None, 1_500)
    assert kept == [
        "set up the vm",
        "the user ran `sudo ip link add macvlan-host link enp1 type macvlan` themselves; it "
        "printed: Place your right index finger on the fingerprint reader | sudo: a terminal is "
        "required to read the password",  # with the command (blind check 22), not as a message
        "check it",
    ]
    assert not dropped


def test_typed_cli_settings_commands_are_not_requests() -> None:
    """bh-oauth: the queued "/model", "/model opus" and "/permissions" were listed as "Later
    requests"; a CLI setting with an argument is still a setting."""
    s = SessionBuilder()
    s.user("find the recurring charges in my ynab export")
    s.call("Bash", {"command": "ls exports"}, "ynab.csv")
    for typed in ("/model", "/model opus", "/permissions", "/effort high", "/config"):
        s.user(typed)
    s.user("add a README for the app")
    s.call("Write", {"file_path": "README.md", "content": "# app\n"}, "File created")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "Later requests" not in intent, intent
    assert "/model" not in intent and "/permissions" not in intent, intent
    assert 'Current request: "add a README for the app"' in intent, intent
    assert "/model opus" in section(text, 6), text  # still among the user's messages
