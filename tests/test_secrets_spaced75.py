"""Blind check 75 S2: "… github.com, username <e-mail> password <value>" (no "is" nor ":") and
the typo "passwork <value>" printed a GitHub password 4 times in §1 and §6, while the sudo
password of the same session ("this computer's password is …") was masked. A value right after
the word ``password`` (or the word with one typo) and a space is masked when it looks like a
credential (:func:`compactor.secrets.prose.spaced_value`); prose and code are kept. Values
invented."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.secrets.masking import SecretMasker
from compactor.secrets.shapes import mask_key_shapes

from .cc_session import Session
from .fake_server_cli import invoke

PW = "TRELLis##5520"


@pytest.mark.parametrize(
    "text",
    [
        f"log in to github.com, username dev@example.org password {PW} thanks",
        f"try the passwork {PW}",
        f"Password {PW}",
        f"pasword {PW}.",
        f"passowrd {PW}",
        f"the passwrd {PW} again",
        "the wifi password hunter22 works",
        "password 73194215",
        "password hUnterTwoX",
    ],
)
def test_a_value_after_the_password_word_and_a_space_is_masked(text: str) -> None:
    out = mask_key_shapes(text)
    assert "***" in out, out
    assert PW not in out and "hunter22" not in out and "73194215" not in out, out


@pytest.mark.parametrize(
    "text",
    [
        "send a password reset email",
        "store it in a password manager",
        "focus the password field first",
        "the password must be 8 characters",
        "password123 is a weak example in code",
        "grep root /etc/passwd: no such line",
        "hash the password SHA256 first",
        "the password AES-256 encrypted",
        "Password Authentication is disabled",
        "password protected",
        "password requirements: 12+ chars",
        "a password v1.2.3 release",
        "password src/auth/login.py",
        "password PASSWORD_ENV",
        "password self.password",
        "passport 12345678 is a document number",
        "compass heading 123456",
        "password ***",
    ],
)
def test_prose_and_code_after_the_password_word_are_kept(text: str) -> None:
    assert mask_key_shapes(text) == text
    assert SecretMasker().mask_text(text) == text


_SECRET = st.text(
    "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!@^+=", min_size=8, max_size=20
).filter(lambda v: any(c.isdigit() for c in v) and any(c.isalpha() for c in v))
_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(value=_SECRET, word=st.sampled_from(["password", "passwork", "pasword", "passwrod"]))
def test_property_a_secret_after_the_word_is_masked(value: str, word: str) -> None:
    assert value not in mask_key_shapes(f"the {word} {value} for the account"), value


@settings(max_examples=60, deadline=None)
@given(word=_WORD)
def test_property_a_plain_word_after_password_is_kept(word: str) -> None:
    text = f"the password {word} here"
    assert mask_key_shapes(text) == text


def test_the_password_typed_with_a_typo_is_in_no_section(tmp_path: Path) -> None:
    s = Session()
    s.user(f"log in to github.com, username dev@example.org password {PW}")
    s.bash("gh auth status", "You are not logged into any GitHub hosts.")
    s.say("Use gh auth login in your terminal; I won't type passwords for you.")
    s.user(f"use the passwork {PW} and push the repo")
    s.bash("git push origin main", "Everything up-to-date")
    s.say("Pushed.")
    src, out = tmp_path / "s.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    args = ["run", str(src), "--model", "local", "--force", "--no-cache", "-q", "-o", str(out)]
    res = invoke(args)
    assert res.returncode == 0, res.stderr
    shown = invoke(["show", str(out)]).stdout.decode()
    assert "push the repo" in shown and "username dev@example.org" in shown, shown
    assert PW not in shown and "TRELLis" not in shown, shown


def test_every_typo_of_the_word_passes_the_fast_scan() -> None:
    """The Rust prefilter is a superset of the rule: every word one typo from ``password``."""
    from compactor.secrets import prose
    from compactor.secrets.secret_scan import FastScan, scan

    fast = FastScan(prose.PROSE_PREFILTERS)
    for word in prose._one_edit("password"):
        text = f"the {word} {PW} here"
        assert prose.PROSE_WORD_RE.search(text), word
        assert fast.may_match(text) and scan().may_match(text), word
        assert PW not in mask_key_shapes(text) and PW not in SecretMasker().mask_text(text), word
