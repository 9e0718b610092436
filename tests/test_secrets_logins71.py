"""Secrets of logging in to a machine, and empty values (blind check 71, S1, S2, N3).

S1: a summary printed the root password hash of a built image, the ``/etc/shadow`` line a
``grep`` printed (``root:$5$salt$hash:…``), on the line where it masked ``ROOT_PASSWD="…"``.
S2: it printed a device's login password inside the expect scripts that typed it
(``expect -re {[Pp]assword:} { send "VALUE\\r" }``) and in a memory file's "（密碼 VALUE）".
N3: ``HSM_PASSWORD=`` ended its line; a quote joined the lines and the summary showed the next
line's ``+`` as ``***``. Now a crypt hash is masked whole (the user name and the fields kept), a
literal sent to a password prompt is masked, a value after "password" in other languages is
masked as ``PASSWD="…"`` is, and no masker takes a value across a line break or takes marks
for a value. Sessions are invented, built here (values are made up)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.models.local_mask import masked_whole
from compactor.secrets.masking import SecretMasker
from compactor.secrets.secret_scan import PREFILTERS, FastScan

from .cc_session import Session, cc_summary

SHA256_CRYPT = "$5$Qe7.Ab3dKz$Xy1Zq9pLm2Wn4Rt6Uv8Sa0Bc3De5Fg7Hi9Jk1Lm2No4"
HASHES = [
    SHA256_CRYPT,
    "$6$rounds=5000$saltsalt$" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9" * 3 + "aB3",
    "$1$sAlt1234$0123456789abcdefABCDEF",
    "$2b$12$KIXQJz0q1dQn5eYy7yGzUO0m7Qm7b0yq5QhG8m9s3fOa1bN2c4dEe",
    "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7",
    "$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
    "$pbkdf2-sha256$29000$N2ZMSOl9j/Fey7l3rlWqdQ$kkf5NrDt6f1ajA1hnl8kOTmQlAJ7YZYqZ/nVtfgdGh4",
]


@pytest.mark.parametrize("value", HASHES)
def test_a_crypt_hash_is_masked_whole_and_a_shadow_entry_keeps_its_fields(value: str) -> None:
    line = f"output/target/etc/shadow:root:{value}:19000:0:99999:7:::"
    masker = SecretMasker()
    assert masker.mask_text(line) == (
        "output/target/etc/shadow:root:[REDACTED:password_hash#1]:19000:0:99999:7:::"
    )
    assert masker.counts == {"password_hash": 1}
    assert masked_whole(line) == "output/target/etc/shadow:root:***:19000:0:99999:7:::"
    locked = f"admin:!{value}:19000::::::"  # a locked account's "!" stays
    assert masked_whole(locked) == "admin:!***:19000::::::"
    assert FastScan(PREFILTERS).may_match(line)


@pytest.mark.parametrize(
    "text",
    [
        'PASS="$1$SUFFIX" ; echo $1$2 $5$x',  # shell positional parameters, no hash field
        "the password_hash column; user.password_hash = bcrypt.hashpw(pw)",
        "cost $5$ per seat, $6$ with support",
    ],
)
def test_a_dollar_sequence_that_is_no_crypt_hash_is_kept(text: str) -> None:
    assert SecretMasker().mask_text(text) == text
    assert masked_whole(text) == text


EXPECT = (
    "spawn ssh admin@192.0.2.7\n"
    'expect "*assword*"\nsend "fjord\\r"\n'
    'expect "$ "\nsend "su\\r"\n'
    'expect -re {[Pp]assword:} { send "fjord\\r" }\n'
    'expect "# "\nsend "id; uname -a\\r"\n'
)


def test_a_literal_sent_to_a_password_prompt_is_masked_and_other_sends_are_kept() -> None:
    masker = SecretMasker()
    out = masker.mask_text(EXPECT)
    assert "fjord" not in out and masker.counts == {"password": 2}
    assert 'send "[REDACTED:password#1]\\r"' in out
    assert 'send "su\\r"' in out and 'send "id; uname -a\\r"' in out
    summary = masked_whole(EXPECT)
    assert "fjord" not in summary and '{ send "***\\r" }' in summary
    assert 'send "su\\r"' in summary
    # inside a tool call's JSON arguments: masked, and still valid JSON
    args = json.dumps({"command": f"expect <<'EOF'\n{EXPECT}EOF"})
    masked_args = SecretMasker().mask_arguments(args)
    assert "fjord" not in masked_args and "su\\\\r" in masked_args
    json.loads(masked_args)


@pytest.mark.parametrize(
    "text",
    [
        "child.expect('Password:')\nchild.sendline('fjord42')",
        'p.expect("[Pp]assword for root: ")\n    p.sendline("fjord42")',
        "expect 'Passwort:' { exp_send -- \"fjord42\\r\" }",
        'expect "密碼："\nsend "fjord42\\r"',
    ],
)
def test_pexpect_and_other_prompts_are_masked(text: str) -> None:
    assert "fjord42" not in SecretMasker().mask_text(text)
    assert "fjord42" not in masked_whole(text)


@pytest.mark.parametrize(
    "text",
    [
        'We send you a password reset email; send "hello" to support.',
        "the password is sent; send 'ok' later",
        'expect "Password:"\nsend -- "$env(DEVICE_PW)\\r"',
        "child.expect('password')\nchild.sendline(password)",
        "the password field is required; password protected files",
        "Passwort vergessen? Mot de passe oublié. 密碼 是否正確",
    ],
)
def test_prose_variables_and_identifiers_near_a_prompt_are_kept(text: str) -> None:
    assert SecretMasker().mask_text(text) == text
    assert masked_whole(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "ssh admin@192.0.2.7（密碼 fjord）→ su（密碼 fjord）。",
        "Passwort: fjord",
        "mot de passe = fjord",
        "contraseña: fjord",
        "senha: fjord",
        "пароль: fjord",
        "パスワード：fjord",
        "비밀번호: fjord",
    ],
)
def test_a_value_after_password_in_other_languages_is_masked(text: str) -> None:
    assert "fjord" not in SecretMasker().mask_text(text)
    assert "fjord" not in masked_whole(text)


@pytest.mark.parametrize(
    "text",
    [
        "++ HSM_USERNAME=\n++ HSM_PASSWORD=\n+ '[' '' == y ']'",
        'PASSWORD=""\nnext_value=abc123',
        "DB_PASSWORD=\nDB_HOST=db1.internal",
        "password:\n  hunter22",
        "--password\nhunter22",
    ],
)
def test_an_empty_value_ending_its_line_takes_nothing_from_the_next(text: str) -> None:
    assert SecretMasker().mask_text(text) == text
    assert masked_whole(text) == text


def test_a_joined_empty_value_does_not_mask_the_next_lines_marks() -> None:
    """A quote joins lines with a space: the next line's ``+`` is no value (N3)."""
    flat = "++ HSM_USERNAME= ++ HSM_PASSWORD= + '[' '' == y ']'"
    assert masked_whole(flat) == flat
    assert masked_whole("child.expect('Password:')") == "child.expect('Password:')"


_LINE = st.text(
    st.sampled_from("abcdefXYZ0123456789 _-.:=+/'\"@$!#"), min_size=1, max_size=40
).filter(lambda s: "\n" not in s)
_EMPTY = st.sampled_from(
    ["HSM_PASSWORD=", "DB_PASSWORD: ", "password:", "api_key=", "SECRET_TOKEN =", "--password"]
)


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(_EMPTY, _LINE)
def test_property_masking_never_takes_a_value_across_a_line_break(first: str, line: str) -> None:
    """What a masker does to a line after an empty credential is what it does to that line
    alone: the first line stays as it is."""
    text = f"{first}\n{line}"
    assert SecretMasker().mask_text(text) == f"{first}\n{SecretMasker().mask_text(line)}"
    assert masked_whole(text) == f"{first}\n{masked_whole(line)}"


def test_the_summary_of_a_session_shows_no_hash_and_no_prompt_answer(tmp_path: Path) -> None:
    s = Session()
    s.user("Check the root password setting of the image, then log in to the device.")
    s.call("Write", {"file_path": "/home/dev/login.exp", "content": EXPECT}, "File created")
    s.bash("expect /home/dev/login.exp", "uid=0(root) gid=0(root)")
    s.say("Logged in: ssh admin@192.0.2.7（密碼 fjord）→ su（密碼 fjord）; root works.")
    s.bash(
        'grep -E "ROOT_PASSWD|ROOTFS_USERS" .config; echo "=== target shadow ==="; '
        'grep -E "^root" output/target/etc/shadow output/target/etc/passwd',
        'BR2_TARGET_GENERIC_ROOT_PASSWD="fjord-root-9"\nBR2_ROOTFS_USERS_TABLES=""\n'
        f"=== target shadow ===\noutput/target/etc/shadow:root:{SHA256_CRYPT}:::::::\n"
        "output/target/etc/passwd:root:x:0:0:root:/root:/bin/sh",
    )
    s.say("The image sets a root password; its hash is in /etc/shadow.")
    summary = cc_summary(s, tmp_path)
    for secret in ("fjord", SHA256_CRYPT, SHA256_CRYPT[3:15], "fjord-root-9"):
        assert secret not in summary, secret
    assert "output/target/etc/shadow:root:***:::::::" in summary  # the entry is still seen
    assert '{ send "***\\r" }' in summary and 'send "su\\r"' in summary
