"""A secret is masked whole wherever the summary shows it (blind check 67: a base64
``JWT_SECRET`` masked only up to its first ``+``, S2). All secrets here are invented."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from compactor.models.local import summarize_transcript
from compactor.models.local_mask import masked
from compactor.secrets.masking import SecretMasker

from .planted_session import SessionBuilder

B64 = "Qm7xZ2pK9fA3sD8gH1jK4lN6bV0cR5tY2uI9o" + "+Wv3Lq8Tz1Ye5Rb7Nc0Md4Xa6Fp2Gh9Ks/Jt3Eu8Ow=="
NAMES = ("JWT_SECRET", "API_KEY", "ACCESS_TOKEN", "DB_PASSWORD", "SECRET_KEY", "PASSWORD")


def _chunks(value: str, size: int) -> list[str]:
    return [value[i : i + size] for i in range(len(value) - size + 1)]


def test_a_base64_secret_after_a_credential_name_is_masked_whole() -> None:
    text = f"Here are the variables:\nDATABASE_URL=postgresql://db.local/app\nJWT_SECRET={B64}\nPORT=3000"
    for out in (masked(text), SecretMasker().mask_text(text)):
        assert not any(chunk in out for chunk in _chunks(B64, 8)), out
        assert "PORT=3000" in out


def test_a_base64_secret_in_a_user_message_never_reaches_the_summary() -> None:
    s = SessionBuilder()
    s.user(f"Deploy the API with these settings:\nNODE_ENV=production\nJWT_SECRET={B64}\nPORT=3000")
    s.say("I will set them on the server.")
    s.user("ok go")
    s.say("Done.")
    summary = summarize_transcript(s.messages)
    assert "JWT_SECRET" in summary or "***" in summary
    assert not any(chunk in summary for chunk in _chunks(B64, 8))


_ALNUM = string.ascii_letters + string.digits


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(NAMES),
    sep=st.sampled_from(("=", ": ", "=", ":")),
    first=st.text(alphabet=_ALNUM, min_size=1, max_size=1),
    rest=st.text(alphabet=_ALNUM + "+/=", min_size=15, max_size=80),
)
def test_no_part_of_a_base64_value_after_a_credential_name_survives(
    name: str, sep: str, first: str, rest: str
) -> None:
    value = first + rest
    assume(any(ch.isdigit() for ch in value))  # a name-like word (``TOKENAAAA``) is code
    text = f"Settings:\n{name}{sep}{value}\nPORT=3000"
    out = masked(text)
    assert not any(chunk in out for chunk in _chunks(value, 8)), out


# -- S1: a secret cut by an excerpt's "…" -----------------------------------------------------

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJpc3MiOiJmYWtlIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoyMDAwMDAwMDAwfQ"
    ".Zk9qR2xWbU5pYlF3c1h6dTg3YkFwT3RyTWVLc2FIc2lWa2Jz"
)


def _long_request(pad_after: int) -> str:
    words = "please wire the admin dashboard to the new backend and keep the old routes working. "
    head = words * 14
    tail = ("then run the migrations and check the logs. " * 8)[:pad_after]
    return (
        f"{head}\nHere is the env:\nNEXT_PUBLIC_SUPABASE_URL=https://fake.supabase.example\n"
        f"SUPABASE_SERVICE_ROLE_KEY={JWT}\n{tail}"
    )


def _summary_of(request: str) -> str:
    s = SessionBuilder()
    s.user("hello, set up the project")
    s.say("Sure, what do you need?")
    s.user(request)
    s.say("I will do it now.")
    return summarize_transcript(s.messages)


def test_a_jwt_cut_by_the_excerpt_of_a_long_request_is_not_printed() -> None:
    summary = _summary_of(_long_request(60))
    assert "its start and end" in summary  # the excerpt path is taken
    assert not any(chunk in summary for chunk in _chunks(JWT, 12))


@settings(max_examples=25, deadline=None)
@given(pad=st.integers(min_value=0, max_value=350))
def test_no_cut_of_the_summary_prints_a_part_of_a_secret(pad: int) -> None:
    summary = _summary_of(_long_request(pad))
    assert not any(chunk in summary for chunk in _chunks(JWT, 12))


@settings(max_examples=20, deadline=None)
@given(pad=st.integers(min_value=0, max_value=400), lead=st.integers(min_value=0, max_value=600))
def test_no_excerpt_of_an_answer_or_an_output_prints_a_part_of_a_secret(
    pad: int, lead: int
) -> None:
    text = ("The service keeps its settings in the env file below. " * 12)[:lead]
    tail = ("After that the dashboard loads the admin data from Supabase. " * 8)[:pad]
    holding = f"{text}\nSUPABASE_SERVICE_ROLE_KEY={JWT}\n{tail}"
    s = SessionBuilder()
    s.user("connect the dashboard to supabase")
    s.call("Bash", {"command": "cat .env.local"}, holding)
    s.call("Bash", {"command": "npm run build"}, "Error: " + holding, error=True)
    s.say(f"I found the settings. {holding}")
    s.user("ok")
    s.say(f"Done. {holding}")
    summary = summarize_transcript(s.messages)
    assert not any(chunk in summary for chunk in _chunks(JWT, 12))


# -- S3: a password glued to a CJK credential word ---------------------------------------------

GLUED = "Vq7Lm2Xk9"


@pytest.mark.parametrize("word", ["密码", "密碼", "パスワード", "비밀번호"])
def test_a_password_glued_to_a_cjk_credential_word_is_masked(word: str) -> None:
    text = f"能ping通，{word}{GLUED}也是对的"
    for out in (masked(text), SecretMasker().mask_text(text)):
        assert GLUED not in out and word in out and "也是对的" in out
    once = masked(text)
    assert masked(once) == once  # masking twice changes nothing (row 2852)
    masker = SecretMasker()
    twice = masker.mask_text(text)
    assert masker.mask_text(twice) == twice


def test_a_glued_password_in_an_answer_never_reaches_the_summary() -> None:
    s = SessionBuilder()
    s.user("redis 连不上，帮我看看")
    s.call("Bash", {"command": "redis-cli -h 10.0.0.5 ping"}, "PONG")
    s.say(f"能ping通，密码{GLUED}也是对的，问题在防火墙。")
    summary = summarize_transcript(s.messages)
    assert GLUED not in summary


@pytest.mark.parametrize(
    "text", ["密码md5校验失败", "密钥ID也可以", "密码abcdefgh不对", "令牌v1.2.3过期"]
)
def test_a_word_glued_to_a_cjk_credential_word_is_kept(text: str) -> None:
    assert masked(text) == text


def test_a_pin_like_password_glued_to_a_cjk_word_is_masked() -> None:
    assert masked("能ping通，密码482913也是对的") == "能ping通，密码***也是对的"
    assert masked("密钥2048位") == "密钥2048位"  # a key size, 4 digits


def test_a_value_masked_elsewhere_is_masked_beside_cjk_characters() -> None:
    s = SessionBuilder()
    s.user("redis 的密码是 Zq9-k3Lm7，帮我连上")
    s.call("Bash", {"command": "redis-cli -h 10.0.0.5 ping"}, "PONG")
    s.say("能ping通，说明Zq9-k3Lm7也是对的。")
    summary = summarize_transcript(s.messages)
    assert "Zq9-k3Lm7" not in summary
