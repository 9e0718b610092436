"""A sentence inside a pasted build log or error block is no constraint of the user's (blind
check 68 N7: "Make sure your package.json has "next" in either "dependencies" …", the text under
a pasted "Build Failed" banner of a deploy service, was listed among "Constraints and
preferences stated by the user")."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cc_session import Session, cc_summary

TOOL = (
    'No Django version detected. Make sure your requirements.txt has "django" in it. '
    "Also check your Root Directory setting matches the directory of your manage.py file."
)
RULES = "Constraints and preferences stated by the user"


def _intent(message: str, tmp_path: Path) -> str:
    s = Session()
    s.user(message)
    s.bash("cat requirements.txt", "flask==3.0")
    s.say("The requirements name flask, not django.")
    summary = cc_summary(s, tmp_path)
    summary = summary[summary.index("<summary>") :]
    start = summary.index("\n1.")
    return summary[start : summary.index("\n2.", start)]


@pytest.mark.parametrize(
    "message",
    [
        f"Build Failed\n{TOOL}",
        f'the host says "Build Failed\n{TOOL}" とでました',
        f"Deployment failed\n{TOOL}",
        f"[12:04:31.220] Running build\n[12:04:33.101] {TOOL}\nwhat now?",
        f"npm ERR! {TOOL}\nhow do I fix this",
    ],
)
def test_a_pasted_banner_block_holds_no_user_constraint(message: str, tmp_path: Path) -> None:
    intent = _intent(message, tmp_path)
    assert RULES not in intent, intent


def test_the_users_own_rule_after_a_banner_stays(tmp_path: Path) -> None:
    intent = _intent(f"Build Failed\n{TOOL}\n\nPlease never edit settings.py.", tmp_path)
    assert RULES in intent and "never edit settings.py" in intent.split(RULES)[-1], intent
    assert "Make sure your requirements.txt" not in intent.split(RULES)[-1]


def test_a_users_make_sure_stays_a_constraint(tmp_path: Path) -> None:
    intent = _intent("Fix the deploy. Make sure your changes keep Python 3.9 support.", tmp_path)
    assert RULES in intent, intent
