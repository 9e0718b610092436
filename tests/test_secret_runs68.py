"""A run of 16 or more characters of a masked hex/base64-like value is masked wherever else the
summary holds it (blind check 68 S1: the user pasted a database password in ``PASSWORD '…'``,
masked, and then a duplicate of 25 of its 32 hex characters after other text, which was
printed). All secrets here are invented."""

from __future__ import annotations

import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from compactor.models.local import summarize_transcript
from compactor.models.local_mask import collecting, mask_repeats, masked

from .planted_session import SessionBuilder

HEX = "9c41d7e0b2a85f3361e0c7d94ab2f518"


def _summary(request: str) -> str:
    s = SessionBuilder()
    s.user("create the database user for the app")
    s.say("Run the command and paste what it prints.")
    s.user(request)
    s.say("The user exists now; the app can connect.")
    return summarize_transcript(s.messages)


def _runs(value: str, size: int = 16) -> list[str]:
    return [value[i : i + size] for i in range(len(value) - size + 1)]


def test_a_pasted_duplicate_tail_of_a_masked_password_is_masked() -> None:
    pasted = (
        f"sudo -u postgres psql -c \"CREATE USER app_user WITH PASSWORD '{HEX}';\""
        f"{HEX[5:30]}';\"\nPassword for user postgres:"
    )
    summary = _summary(pasted)
    assert "PASSWORD '***'" in summary
    assert not any(run in summary for run in _runs(HEX)), summary


def test_a_short_or_plain_part_is_kept() -> None:
    with collecting() as found:
        text = masked(f"DB_PASSWORD={HEX}\nthe id is {HEX[:10]} and the host db.example.com")
    assert "***" in text
    out = mask_repeats(text + "\nshort part: " + HEX[3:15], found)
    assert HEX[3:15] in out  # 12 characters: no run of 16
    with collecting() as found:
        text = masked("DB_PASSWORD=00000a00000000000000a1")
    out = mask_repeats(text + "\npage=a00000000000000a", found)
    assert out.endswith("page=a00000000000000a")  # too few distinct characters


_TOKEN = string.hexdigits[:16] + string.ascii_letters + string.digits


@settings(max_examples=120, deadline=None)
@given(
    value=st.text(alphabet=_TOKEN, min_size=20, max_size=64),
    start=st.integers(min_value=0, max_value=48),
    size=st.integers(min_value=16, max_value=64),
    before=st.sampled_from(["", " ", "'", '"', "x", ";", "\n", "then "]),
    after=st.sampled_from(["", " ", "';", '"', "z", "\n", " done"]),
)
def test_no_run_of_16_characters_of_a_masked_value_survives(
    value: str, start: int, size: int, before: str, after: str
) -> None:
    assume(any(c.isdigit() for c in value) and any(c.isalpha() for c in value))
    run = value[start : start + size]
    assume(len(run) >= 16)
    assume(all(len(set(part)) >= 6 for part in _runs(value)))  # (a00000000000000a is no secret)
    summary = _summary(f"ALTER USER app_user WITH PASSWORD '{value}'; then {before}{run}{after}")
    assert not any(part in summary for part in _runs(value)), summary
