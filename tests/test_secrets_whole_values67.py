"""A secret is masked whole wherever the summary shows it (blind check 67: a base64
``JWT_SECRET`` masked only up to its first ``+``, S2). All secrets here are invented."""

from __future__ import annotations

import string

from hypothesis import given, settings
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
    text = f"Settings:\n{name}{sep}{value}\nPORT=3000"
    out = masked(text)
    assert not any(chunk in out for chunk in _chunks(value, 8)), out
