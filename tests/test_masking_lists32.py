"""Every value of a list after one credential label is masked in the summary (blind check 32:
the assistant wrote two local seed passwords after one label, "평문: «…», «…»", and the summary
masked the first and printed the second)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compactor._util import mask_secret_values
from compactor.models.local import summarize_transcript

from .cc_session import Session as CcSession

_LABELS = ("password", "passwords", "Password", "PASSWORD", "pw", "api_key", "secret", "비밀번호")
_SEPARATORS = (", ", " / ", " and ", "、", ",", " & ", " or ")
_QUOTES = (("", ""), ("«", "»"), ('"', '"'), ("'", "'"), ("`", "`"))
_VALUE = st.builds(
    lambda head, digit, tail: head + digit + tail,
    st.text("abcdefghkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ", min_size=4, max_size=8),
    st.sampled_from("23456789"),
    st.text("abcdefghkmnpqrstuvwxyz23456789!#%", min_size=2, max_size=6),
)


def _summary(said: str) -> str:
    s = CcSession()
    s.user("Seed the local database and tell me how to log in.")
    s.bash("npm run seed", "Seeded 2 accounts.")
    s.assistant([{"type": "text", "text": said}])
    return summarize_transcript_of(s)


def summarize_transcript_of(s: CcSession) -> str:
    from compactor.formats.registry import read_transcript

    data = b"\n".join(s.lines()) + b"\n"
    return summarize_transcript(read_transcript("session.jsonl", data).messages)


def test_the_two_seed_passwords_of_blind_check_32_are_both_masked() -> None:
    said = "로컬 한정 평문 비밀번호: «Adm1n!2024», «Us3r!2024» (seed 계정, 로컬 전용)."
    text = _summary(said)
    assert "Adm1n!2024" not in text and "Us3r!2024" not in text, text
    assert "seed 계정" in text, text  # the sentence itself stays


@settings(max_examples=30)
@given(
    label=st.sampled_from(_LABELS),
    separator=st.sampled_from(_SEPARATORS),
    quote=st.sampled_from(_QUOTES),
    values=st.lists(_VALUE, min_size=1, max_size=4, unique=True),
)
def test_no_value_of_a_labelled_list_survives_in_the_summary(
    label: str, separator: str, quote: tuple[str, str], values: list[str]
) -> None:
    listed = separator.join(f"{quote[0]}{v}{quote[1]}" for v in values)
    said = f"The local seed accounts use {label}: {listed} (local only)."
    text = _summary(said)
    for value in values:
        assert value not in text, (said, text)


def test_a_list_ends_where_the_prose_or_the_next_key_goes_on() -> None:
    assert mask_secret_values("password: hunter22, then restart") == "password: ***, then restart"
    kept = '{"password": "hunter2", "username": "bob"}'
    assert mask_secret_values(kept) == '{"password": "***", "username": "bob"}'
    assert mask_secret_values('login(password="x1", user="y")') == 'login(password="***", user="y")'
    assert mask_secret_values("password: str, token: str") == "password: str, token: str"
    assert mask_secret_values("max_tokens: 4096, top_k: 40") == "max_tokens: 4096, top_k: 40"
    assert mask_secret_values("pw: a1b2 / c3d4") == "pw: *** / ***"


def test_a_value_in_guillemets_is_masked_where_else_the_summary_shows_it() -> None:
    """The example Hypothesis found in CI: the value was masked after its label, and the
    collected value kept its « » marks, so section 2's identifier list printed it bare."""
    text = _summary("The local seed accounts use password: «AaAaA222» (local only).")
    assert "AaAaA222" not in text, text
    assert "password: *** (local only)" in text, text
