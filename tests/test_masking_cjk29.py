"""A ``NAME=value`` credential glued to CJK or full-width punctuation never reaches the summary
or the masked history (blind check 29, S1: "…supabase.co、SUPABASE_SECRET_KEY=sb_secret_…。" in a
user message was printed in full in the summary's list of user messages)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.models.local import summarize_transcript
from compactor.models.local_text import masked
from compactor.secrets import secret_scan
from compactor.secrets.masking import SecretMasker

from .planted_session import SessionBuilder

LETTERS = "ZqWmXrTyPaLkDsJfHgVbNcEuIoQt"
"""A key with no digit at all: the labelled rule's "random-looking" check does not see it."""
SB_SECRET = "sb_secret_" + LETTERS
SB_PUBLIC = "sb_publishable_" + LETTERS


def _summary(*user_texts: str) -> str:
    s = SessionBuilder()
    for text in user_texts:
        s.user(text)
        s.say("好的，我来配置后端。")
    return summarize_transcript(s.messages)


def test_the_supabase_request_of_blind_check_29_keeps_no_key() -> None:
    said = (
        "（3）后端的数据用supabase来操作，SUPABASE_URL=https://abcdefgh.supabase.co、"
        f"SUPABASE_SECRET_KEY={SB_SECRET}。 有一个问题：表要我自己建吗？"
    )
    text = _summary(said)
    assert LETTERS not in text
    assert "后端的数据用supabase来操作" in text  # the request itself is still there
    masker = SecretMasker()
    out = masker.mask_text(said)
    assert LETTERS not in out and out.count("[REDACTED:") == 1
    assert "[REDACTED:api_key#1]。 有一个问题" in out  # the full stop is not taken as the value


@pytest.mark.parametrize(
    "said",
    [
        f"「SECRET_KEY={SB_SECRET}」",
        f"操作SERVICE_ROLE_KEY：{LETTERS}，好",
        f"（access_token={LETTERS}）",
        f"配置：API_KEY＝{LETTERS}、DB_PASSWORD={LETTERS}x。",
        f"用{SB_SECRET}连接",
        f"key {SB_SECRET}",
    ],
)
def test_cjk_punctuation_bounds_a_credential_name_and_value(said: str) -> None:
    assert LETTERS not in SecretMasker().mask_text(said), said
    assert secret_scan.scan().may_match(said)
    assert LETTERS not in masked(said), said


def test_a_publishable_supabase_key_is_public_and_kept() -> None:
    said = f"前端用 {SB_PUBLIC} 就行"
    assert SecretMasker().mask_text(said) == said
    assert masked(said) == said


CJK_MARKS = (
    "，",
    "。",
    "：",
    "、",
    "（",
    "）",
    "「",
    "」",
    "；",
    "！",
    "？",
    "『",
    "』",
    "【",
    "】",
)
NAMES = (
    *("SUPABASE_SECRET_KEY", "SECRET_KEY", "API_KEY", "OPENAI_API_KEY", "DB_PASSWORD"),
    *("ACCESS_TOKEN", "AUTH_TOKEN", "CLIENT_SECRET", "SERVICE_ROLE_KEY", "password", "token"),
)
BASE62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(
    st.sampled_from((*CJK_MARKS, "")),
    st.sampled_from(NAMES),
    st.sampled_from(("=", "：", "＝", ": ")),
    st.sampled_from(("", "sb_secret_")),
    st.text(BASE62, min_size=24, max_size=48).filter(lambda v: not v[:1].isdigit()),
    st.sampled_from(CJK_MARKS),
    st.sampled_from(("后端用supabase", "配置如下", "")),
)
def test_property_a_secret_between_cjk_punctuation_never_appears_in_the_summary(
    before: str, name: str, sep: str, head: str, body: str, after: str, prose: str
) -> None:
    secret = head + body
    said = f"{prose}{before}{name}{sep}{secret}{after}后面还有问题"
    assert body not in masked(said), said
    if name != "token":  # a bare "token=word" is code to the history masker (any value)
        assert body not in SecretMasker().mask_text(said), said
    assert body not in _summary(said), said
