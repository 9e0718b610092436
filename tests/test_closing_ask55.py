"""A "yes" accepts the question that closes the answer, not the advice before it (blind check 55,
W3).

An answer said what the user should do ("I'd revoke/regenerate it on GitHub when convenient")
and what the agent will do from now on, then closed with a question offering an action ("Want
me to scrub the token from the archived copy, or leave it?"). The user's "Yes, scrub …" was
listed as "Accepted by the user: … I'd revoke/regenerate it" — a resuming agent may take the
rotation as agreed. A yes accepts what the closing question asks; a closing "Sound good?" still
accepts the proposals before it. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compactor.models.local_reask import closing_ask

from .cc_session import Session, cc_summary
from .test_models_local_session import section

ADVICE = (
    "Even though it's a sandbox-issued token, I'd revoke/regenerate it on GitHub when convenient."
)
SCRUB_ACTION = "scrub the token string from the archived transcript copy (notes/run.jsonl)"
SCRUB = f"Want me to {SCRUB_ACTION}, or leave it?"
REMOVE_ACTION = "remove the scratch copy to avoid two sources of truth"
HABIT = "Going forward I'll write new tools straight into tools/ (e.g. tools/trim.py)."
REMOVE = "Want me to remove the scratch copy to avoid two sources of truth?"


def _answered(answer: str, reply: str) -> Session:
    s = Session()
    s.user("Push the branch to GitHub.")
    s.call(
        "Bash",
        {"command": "git push origin main"},
        "To github.com:lab/seg.git\n   1a2b3c4..5d6e7f8  main -> main",
    )
    s.say(answer)
    s.user(reply)
    s.call("Bash", {"command": "rm -rf scratch/tools"}, "")
    s.say("Done: the change is made and nothing else is left from this step.")
    s.user("Now add a changelog entry for the release.")
    s.call(
        "Edit",
        {
            "file_path": "/srv/seg/CHANGELOG.md",
            "old_string": "## 1.2",
            "new_string": "## 1.3\n- faster trim\n\n## 1.2",
        },
        "The file /srv/seg/CHANGELOG.md has been updated.",
    )
    s.say("The changelog has a 1.3 entry for the faster trim.")
    return s


@pytest.mark.parametrize(
    ("answer", "reply", "asked", "stated"),
    [
        (
            f"Pushed. The token was in the push log. {ADVICE} {SCRUB}",
            "Yes, scrub the token from the archived transcript",
            SCRUB_ACTION,
            ADVICE,
        ),
        (f"The tool now lives in tools/. {HABIT} {REMOVE}", "yes", REMOVE_ACTION, HABIT),
    ],
    ids=["advice", "going-forward"],
)
def test_a_yes_accepts_the_closing_question(
    tmp_path: Path, answer: str, reply: str, asked: str, stated: str
) -> None:
    decisions = section(cc_summary(_answered(answer, reply), tmp_path), 5)
    assert f"Accepted by the user: {asked}" in decisions, decisions
    assert f"Accepted by the user: {stated[:30]}" not in decisions, decisions


def test_a_yes_to_sound_good_accepts_the_proposal(tmp_path: Path) -> None:
    answer = "I'll add a retry around the upload and a test for it. Sound good?"
    decisions = section(cc_summary(_answered(answer, "yes"), tmp_path), 5)
    assert "Accepted by the user: I'll add a retry around the upload" in decisions, decisions


def test_closing_ask_by_shape() -> None:
    assert closing_ask(f"{ADVICE} {SCRUB}") == SCRUB_ACTION
    assert closing_ask("Should I also delete the old branch?") == "also delete the old branch"
    assert closing_ask("I'll add tests. Sound good?") is None
    assert closing_ask(f"{SCRUB} I'll wait.") is None  # the answer does not close with it


def test_a_question_that_carries_out_the_proposals_accepts_them_too(tmp_path: Path) -> None:
    answer = (
        "We should default to submit with an opt-out window. Should I update the main plan "
        "document now with all these refinements?"
    )
    decisions = section(cc_summary(_answered(answer, "yes"), tmp_path), 5)
    assert "Accepted by the user: We should default to submit" in decisions, decisions
    assert "Accepted by the user: update the main plan document now" in decisions, decisions
