"""A "yes" to a re-asked suggestion accepts the suggestion (blind check 49, N3).

The agent suggested an answer, the user replied with an option of an earlier question, the agent
said the reply "doesn't map to anything" and asked for "yes" to accept its suggestion, and the
user said "yes". Section 5 listed the complaint as "Accepted by the user" and lost the decision.
Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary
from .test_models_local_session import section

SUGGESTION = "Replace the existing image with the new one – keeps storage clean."


def _session(reask: str) -> Session:
    s = Session()
    s.user("/clarify the item image rules")
    s.say(f'**Suggested:** {SUGGESTION}\n\nFormat: Short answer (<=5 words). Say "yes" to accept.')
    s.user("Option B")
    s.say(reask)
    s.user("yes")
    s.say("Recorded: images are replaced on edit.")
    return s


def test_yes_to_a_reasked_suggestion_accepts_the_suggestion(tmp_path: Path) -> None:
    reask = (
        "I offered a short-answer suggestion (no options). Your reply “Option B” doesn’t map to "
        "anything.\nPlease reply with a short answer (<=5 words), or say “yes” to accept my "
        "suggestion."
    )
    problems = " ".join(section(cc_summary(_session(reask), tmp_path), 5).split())
    assert f"Accepted by the user: {SUGGESTION}" in problems, problems
    assert "Accepted by the user: Your reply" not in problems, problems


def test_a_plain_offer_is_accepted_as_before(tmp_path: Path) -> None:
    offer = "Shall I also add a thumbnail column to the items table?"
    problems = " ".join(section(cc_summary(_session(offer), tmp_path), 5).split())
    assert SUGGESTION not in problems.split("Accepted by the user:", 1)[-1][:120], problems
