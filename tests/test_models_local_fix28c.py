"""Blind check 28 (helper fix28c): one masking rule for the whole embedded summary; curl
bodies that are API errors; menus offered, not chosen; a plan never updated; files
overwritten, not created, and a missing program not "fixed" by a file."""

from __future__ import annotations

import re

from compactor.models.local import summarize_transcript
from compactor.models.local_mask import mask_repeats

from .planted_session import SessionBuilder

TOKEN = "ghp_" + "Xb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
PASSWORD = "Zq7!mKp2vRw"


def _sections(text: str) -> dict[str, str]:
    """The summary's numbered sections by number (and the analysis as "0")."""
    parts = re.split(r"(?m)^(\d+)\. [^\n]*:\n", text)
    return {"0": parts[0], **dict(zip(parts[1::2], parts[2::2], strict=True))}


def _credential_session() -> SessionBuilder:
    s = SessionBuilder()
    s.user("set up the deploy user and push the branch")
    s.say("Sure. Which account should I use?")
    s.user(
        f"my github personal token\n{TOKEN}\n"
        f"and log in as admin@example.com with the password {PASSWORD} please"
    )
    body = f'{{"email":"admin@example.com","password":"{PASSWORD}"}}'
    s.call("Bash", {"command": f"curl -s -X POST http://127.0.0.1:9999/token -d '{body}'"}, "{}")
    s.call("Bash", {"command": "git push origin main"}, "Everything up-to-date")
    s.say("Logged in and pushed.")
    s.user(f"thanks. keep {PASSWORD} out of the logs, and the token {TOKEN} too")
    s.say("Understood.")
    return s


def test_a_credential_masked_in_one_section_is_masked_in_every_section() -> None:
    s = _credential_session()
    text = summarize_transcript(s.messages)
    sections = _sections(text)
    assert len(sections) >= 9
    for number, body in sections.items():
        assert PASSWORD not in body, number
        assert TOKEN not in body and TOKEN[:12] not in body, number
    assert "admin@example.com" in text  # what is no credential stays readable
    assert "keep *** out of the logs" in text


def test_a_fragment_a_cut_left_of_a_masked_value_is_masked() -> None:
    text = f'6. User: "token {TOKEN[:20]} … (387 more characters)" and {TOKEN}; {TOKEN}x'
    out = mask_repeats(text, {TOKEN, "short"})
    assert TOKEN[:8] not in out.replace(f"{TOKEN}x", "")
    assert f"{TOKEN}x" in out  # a longer word that only begins like it is not the value
    assert mask_repeats("a shorter word", {"short"}) == "a shorter word"
