"""Blind check 27 (fix27d): a bare number that answers a yes/no or "continue to step 3?" question
is no pick of item 3 (W3); a ``nohup … &`` job whose PID the call printed is running, and an
earlier summary's pending items the live history finished are not pending (N1); a path glued to
a CJK word (N3); two identical short replies hours apart are two replies (N4)."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

PLAN = (
    "Plan de revue :\n1) validation AC\n2) audit tâches cochées\n3) audit qualité code/tests\n"
    "4) rapport final\n\nÉtape 2 terminée : 5 AC validés."
)


def test_a_number_answering_a_continue_to_step_question_picks_no_item() -> None:
    s = SessionBuilder()
    s.user("Fais la revue de la story 1.2")
    s.say(
        f"{PLAN}\nContinuer vers l'étape 3 (exécution adversarial + constats) ? (`y` / `n` / `edit`)"
    )
    s.user("3")
    s.say("Je lance l'étape 3.")
    s.user("continue vers l'étape 3")
    s.say("Étape 3 en cours : exécution adversarial.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user" not in text
    assert 'Current request: "continue vers l\'étape 3"' in text


def test_a_number_answering_a_yes_no_question_picks_no_item() -> None:
    s = SessionBuilder()
    s.user("Review the migration plan")
    s.say(
        "The plan:\n1. back up the database\n2. run the schema change\n3. backfill the column\n"
        "I'll start with the backup. Shall I go ahead? (y/n)"
    )
    s.user("3")
    s.say("Starting.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user" not in text


def test_a_number_answering_a_question_that_offers_choices_picks_that_item() -> None:
    s = SessionBuilder()
    s.user("How should we cache the results?")
    s.say(
        "I'd suggest one of these:\n1) an in-memory LRU cache\n2) Redis with a 10 minute TTL\n"
        "3) a SQLite table\nWhich option do you prefer?"
    )
    s.user("2")
    s.say("Going with Redis.")
    text = summarize_transcript(s.messages)
    assert "Accepted by the user: Redis with a 10 minute TTL" in text
