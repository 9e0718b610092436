"""Blind check 75 W1: a failed chain ``A && B && C`` (``sudo: a terminal is required``) that the
agent re-ran as separate later calls (``echo PW | sudo -S A 2>/dev/null``, then ``… B && … C``),
all of which succeeded, was still "failed … Not retried afterwards" in section 4. A failed chain
is fixed once each of its working parts ran again successfully, in one later call or several.
Names and values are invented."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_retries import chain_parts

from .cc_session import Session, cc_summary, section

_NO_TTY = (
    "sudo: a terminal is required to read the password; either use the -S option to read "
    "from standard input or configure an askpass helper\nsudo: a password is required"
)
_CHAIN = (
    'sudo nmcli connection modify "Office" ipv4.dns "9.9.9.9 1.0.0.1" ipv4.ignore-auto-dns yes'
    ' && sudo nmcli connection down "Office" && sudo nmcli connection up "Office"'
)


def test_the_parts_of_a_chain_read_without_sudo_pipe_and_silenced_streams() -> None:
    assert chain_parts(_CHAIN) == (
        "nmcli connection modify Office ipv4.dns 9.9.9.9 1.0.0.1 ipv4.ignore-auto-dns yes",
        "nmcli connection down Office",
        "nmcli connection up Office",
    )
    later = "echo 'pw-x1' | sudo -S nmcli connection down \"Office\" 2>/dev/null && echo ok"
    assert chain_parts(later) == ("nmcli connection down Office", "echo ok")
    assert chain_parts("make build || make clean") == ()


def _failed_chain(s: Session) -> None:
    s.user("switch the office connection to the faster dns")
    s.bash(_CHAIN, _NO_TTY)
    s.records[-1]["message"]["content"][0]["is_error"] = True
    s.say("I can't run sudo from here — run these three commands in your terminal.")
    s.user("use sudo -S, the password is in memory")


def test_a_chain_run_again_in_two_calls_is_fixed(tmp_path: Path) -> None:
    s = Session()
    _failed_chain(s)
    s.bash(
        'echo \'pw-x1\' | sudo -S nmcli connection modify "Office" ipv4.dns "9.9.9.9 1.0.0.1"'
        " ipv4.ignore-auto-dns yes 2>/dev/null",
        "",
    )
    s.bash(
        "echo 'pw-x1' | sudo -S nmcli connection down \"Office\" 2>/dev/null && "
        "echo 'pw-x1' | sudo -S nmcli connection up \"Office\" 2>/dev/null",
        "Connection 'Office' successfully deactivated\nConnection successfully activated",
    )
    s.say("DNS switched and the connection is back up.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Not retried afterwards" not in errors, errors
    assert "Fixed: a later" in errors and "connection up" in errors, errors


def test_a_chain_with_a_part_never_run_again_stays_open(tmp_path: Path) -> None:
    s = Session()
    _failed_chain(s)
    s.bash(
        'echo \'pw-x1\' | sudo -S nmcli connection modify "Office" ipv4.dns "9.9.9.9 1.0.0.1"'
        " ipv4.ignore-auto-dns yes 2>/dev/null",
        "",
    )
    s.bash("echo 'pw-x1' | sudo -S nmcli connection down \"Office\" 2>/dev/null", "deactivated")
    s.say("Modified; the connection is down for now.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" not in errors, errors


def test_a_part_run_behind_an_or_fixes_nothing(tmp_path: Path) -> None:
    s = Session()
    _failed_chain(s)
    s.bash(
        'echo \'pw-x1\' | sudo -S nmcli connection modify "Office" ipv4.dns "9.9.9.9 1.0.0.1"'
        " ipv4.ignore-auto-dns yes || true",
        "",
    )
    s.bash(
        "echo 'pw-x1' | sudo -S nmcli connection down \"Office\" || echo failed; "
        "echo 'pw-x1' | sudo -S nmcli connection up \"Office\" || echo failed",
        "failed\nfailed",
    )
    s.say("Something is off.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" not in errors, errors


def test_a_part_before_a_semicolon_is_not_known_to_have_succeeded(tmp_path: Path) -> None:
    s = Session()
    _failed_chain(s)
    s.bash(
        'echo \'pw-x1\' | sudo -S nmcli connection modify "Office" ipv4.dns "9.9.9.9 1.0.0.1"'
        " ipv4.ignore-auto-dns yes 2>/dev/null; echo done",
        "done",
    )
    s.bash(
        "echo 'pw-x1' | sudo -S nmcli connection down \"Office\" && "
        "echo 'pw-x1' | sudo -S nmcli connection up \"Office\"",
        "Connection successfully activated",
    )
    s.say("Done.")
    errors = section(cc_summary(s, tmp_path), 4)
    assert "Fixed: a later" not in errors, errors


def _asked_to_run(*, rerun: bool) -> Session:
    s = Session()
    s.user("switch the office connection to the faster dns")
    s.bash(_CHAIN, _NO_TTY)
    s.records[-1]["message"]["content"][0]["is_error"] = True
    s.say("I can't run sudo from here. Run these three commands in your terminal, then tell me.")
    s.user("can this also speed up the wifi at home?")
    s.say("Yes, the same DNS change helps any connection. " + "It skips a dead server. " * 25)
    s.user("then fix the wifi too, use sudo -S with the saved password")
    if rerun:
        s.bash(
            "echo 'pw-x1' | sudo -S nmcli connection modify \"Office\" ipv4.dns"
            " \"9.9.9.9 1.0.0.1\" ipv4.ignore-auto-dns yes 2>/dev/null && echo 'pw-x1' | sudo -S"
            " nmcli connection down \"Office\" && echo 'pw-x1' | sudo -S nmcli connection up"
            ' "Office" 2>/dev/null',
            "Connection successfully activated",
        )
    s.bash("nmcli radio wifi", "enabled")
    return s


def test_section_8_does_not_ask_again_for_what_a_later_call_ran(tmp_path: Path) -> None:
    """Section 8's "latest earlier task" quoted "Run these three commands in your terminal"
    though later calls had run them (em_vpn)."""
    part = section(cc_summary(_asked_to_run(rerun=True), tmp_path), 8)
    assert "Run these three commands" not in part, part
    kept = section(cc_summary(_asked_to_run(rerun=False), tmp_path), 8)
    assert "Run these three commands" in kept, kept
