"""Blind check 75 S1: a value piped into ``sudo -S`` is the sudo password. em_wifi's user gave it
as "<value>  please save this" (no "password is"), the assistant ran ``echo '<value>' | sudo -S
iw …`` and wrote it into a memory file; the summary printed it 12 times (a mistyped one 5 times)
while em_vpn, whose user wrote "my password is …", had it masked everywhere. The ``sudo -S`` pipe
(``echo V |``, ``printf '%s\\n' V |``, a here-string ``<<< V``) now feeds the same set of values
that :func:`compactor.models.local_mask.mask_repeats` masks in every section. Values invented."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.secrets.shapes import mask_key_shapes

from .cc_session import Session
from .fake_server_cli import invoke

PW, WRONG = "731942", "Qorvath88"


@pytest.mark.parametrize(
    ("command", "value"),
    [
        (f"echo '{PW}' | sudo -S iw dev wlp3s0 link 2>&1", PW),
        (f"echo {WRONG} | sudo -S nmcli device status", WRONG),
        (f'echo -n "{WRONG}" | sudo -S -k true', WRONG),
        (f"printf '%s\\n' '{PW}' | sudo -S dnf install -y gh", PW),
        (f"printf '{WRONG}\\n' | sudo -kS ls /root", WRONG),
        (f"sudo -S dnf install -y gh <<< '{PW}'", PW),
        (f"sudo -S systemctl restart sshd <<< {WRONG} && echo ok", WRONG),
    ],
)
def test_the_value_given_to_sudo_on_stdin_is_masked(command: str, value: str) -> None:
    found: set[str] = set()
    out = mask_key_shapes(command, found)
    assert value not in out and "***" in out, out
    assert found == {value}


@pytest.mark.parametrize(
    "command",
    [
        "echo 'nameserver 1.1.1.1' | sudo tee /etc/resolv.conf",  # no -S: text, not a password
        'echo "$SUDO_PASSWORD" | sudo -S ls',  # a variable
        "echo '<password>' | sudo -S ls",  # a placeholder
        "echo '***' | sudo -S ls",  # masked already
        "echo ok | sudo -S true",  # too short to be one
        'sudo -S ls <<< "$PW"',
    ],
)
def test_what_is_no_sudo_password_is_kept(command: str) -> None:
    assert mask_key_shapes(command) == command


@settings(max_examples=40, deadline=None)
@given(
    st.text(
        "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!@^+=", min_size=6, max_size=24
    ).filter(lambda v: any(c.isdigit() for c in v))
)
def test_property_any_piped_value_is_masked(value: str) -> None:
    for command in (f"echo '{value}' | sudo -S id", f"sudo -S id <<< '{value}'"):
        assert value not in mask_key_shapes(command), command


def _session() -> Session:
    s = Session()
    s.user("check the wifi card, sudo works on this machine")
    s.bash(
        "sudo iw dev wlp3s0 link",
        "sudo: a terminal is required to read the password; either use the -S option to read "
        "from standard input or configure an askpass helper\nsudo: a password is required",
    )
    s.records[-1]["message"]["content"][0]["is_error"] = True
    s.say("sudo needs your password; I can pipe it in with sudo -S if you give it to me.")
    s.user(f"{WRONG}")
    s.bash(f"echo '{WRONG}' | sudo -S iw dev wlp3s0 link 2>&1", "Sorry, try again.")
    s.say("That password was not accepted.")
    s.user(f"{PW}  please save this")
    s.bash(
        f"echo '{PW}' | sudo -S iw dev wlp3s0 link 2>&1",
        "Connected to 10:20:30:40:50:60 (on wlp3s0)\n\ttx bitrate: 144.4 MBit/s",
    )
    s.call(
        "Write",
        {
            "file_path": "/home/dev/.claude/memory/machine.md",
            "content": f"# Machine\n\n- **Laptop (Fedora, hostname: box):** {PW}\n",
        },
        "File created successfully at: /home/dev/.claude/memory/machine.md",
    )
    s.say("Saved. The link runs at 144.4 MBit/s.")
    return s


def test_a_password_given_to_sudo_on_stdin_is_in_no_section(tmp_path: Path) -> None:
    src, out = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"\n".join(_session().lines()) + b"\n")
    args = ["run", str(src), "--model", "local", "--force", "--no-cache", "-q", "-o", str(out)]
    res = invoke(args)
    assert res.returncode == 0, res.stderr
    shown = invoke(["show", str(out)]).stdout.decode()
    assert "please save this" in shown and "sudo -S iw dev wlp3s0 link" in shown, shown
    assert PW not in shown and WRONG not in shown, shown


def test_the_fast_scan_lets_every_sudo_form_through() -> None:
    from compactor.secrets.masking import SecretMasker
    from compactor.secrets.secret_scan import scan

    for command in (f"echo '{PW}' | sudo -S ls", f"sudo -S ls <<< {WRONG}"):
        assert scan().may_match(command)
        assert PW not in SecretMasker().mask_text(command)
        assert WRONG not in SecretMasker().mask_text(command)
