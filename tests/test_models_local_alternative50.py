"""A bare "ok …" reply does not accept a conditional alternative ("If you'd rather …",
"Alternatively, …") of the assistant's message unless it names it (BENCH50 W6: "ok do that
verify but before that …" was read as accepting "If you'd rather I drive it via CLI, type
`! vercel login` … and I'll run `vercel --prod`"; no CLI deploy was ever asked for)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.models.local_alternative import alternatives

from .cc_session import Session, cc_summary

OFFER = (
    "The app is ready to deploy. Next I'll add the email verify step to the signup page.\n\n"
    "If you'd rather I drive it via CLI, type `! vercel login` to authenticate in this session "
    "and I'll run `vercel --prod` and wire the env vars.\n"
    "Alternatively, I'll write a deploy script you can run yourself."
)


def _summary(reply: str, tmp_path: Path) -> str:
    s = Session()
    s.user("Get the bookmarks app ready for production.")
    s.bash("npm run build", "Compiled successfully")
    s.assistant([{"type": "text", "text": OFFER}])
    s.user(reply)
    s.bash("npm test", "Tests: 4 passed, 4 total")
    s.assistant([{"type": "text", "text": "Added the verify step."}])
    return cc_summary(s, tmp_path)


def _accepted(summary: str) -> list[str]:
    return [ln for ln in summary.splitlines() if "Accepted by the user:" in ln]


def test_an_ok_reply_accepts_the_main_proposal_not_the_alternatives(tmp_path: Path) -> None:
    accepted = _accepted(_summary("ok do that verify but before that what about email", tmp_path))
    assert any("email verify step" in ln for ln in accepted), accepted
    assert not any("vercel" in ln or "deploy script" in ln for ln in accepted), accepted


def test_a_reply_that_names_the_alternative_accepts_it(tmp_path: Path) -> None:
    accepted = _accepted(_summary("ok drive it via the cli then", tmp_path))
    assert any("vercel --prod" in ln for ln in accepted), accepted


@pytest.mark.parametrize(
    ("text", "alt"),
    [
        ("I'll fix it. If you prefer, I can revert it instead.", True),
        ("I'll fix it.\n- Or, if you want, I'll revert it.", True),
        ("I'll fix it. I'll also add a test.", False),
    ],
)
def test_alternatives_by_shape(text: str, alt: bool) -> None:
    found = alternatives(text)
    assert bool(found) is alt, found
    assert not any("fix it" in x for x in found)
