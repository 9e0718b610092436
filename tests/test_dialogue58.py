"""Blind checks 57 and 58: the dialogue side of the embedded summary (RELIABILITY rows
2751-2756), by shape, with invented sessions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_fix32a import _BARE, _asked, _summary
from .test_models_local_session import section

# -- 57 W2: a new change request that builds on the answer is no dispute --------------------------

_ANSWER = (
    "The bio on your page comes from the profile card, not the header. It is written in Arabic"
    " in index.html, inside the card under the photo, and nothing else on the page repeats it.\n\n"
    "- The card holds the name, the title and three lines of bio\n- The header holds only the"
    " photo\n- The footer links to the same page\n\nTo change the wording you only need to edit"
    " those three lines of the card; the layout and the photo stay as they are, and the page"
    " needs no rebuild: a refresh of the browser shows the new text at once."
)


def _answered_then(reply: str) -> str:
    s = SessionBuilder()
    s.user("where does the bio text on my portfolio page come from?")
    s.call("Bash", {"command": 'grep -rn "bio" site'}, "site/index.html:40: <p class=bio>")
    s.say(_ANSWER)
    s.user(reply)
    s.say("Let me rewrite the card's text.")
    s.call("Read", {"file_path": "/site/index.html"}, "<html>…</html>")
    text = summarize_transcript(s.messages)
    return text.split("An earlier request's answer", 1)[1].split("\n", 1)[0]


def test_a_follow_up_request_naming_things_in_capitals_is_no_dispute() -> None:
    follow_up = (
        "now make it English and more professional, and focus on my specialty: "
        "POWER BI AND PYTHON AND EXCEL AND SQL"
    )
    title = _answered_then(follow_up)
    assert "disputed" not in title, title


def test_a_reply_that_says_the_answer_is_wrong_is_a_dispute() -> None:
    for reply in (
        "you did not look at the card, it is in the header",
        "WHY IS THE HEADER TEXT STILL THERE",
    ):
        title = _answered_then(reply)
        assert f"the user disputed it next: '{reply}'" in title, title


# -- 57 W3: a dismissed question whose rejection carries the user's answer ------------------------

_CLARIFY = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
    "the user said:\nThe user wants to clarify these questions.\n    This means they may have "
    "additional information, context or questions for you.\n    Take their response into account "
    "and then reformulate the questions if appropriate.\n    Start by asking them what they would "
    'like to clarify.\n\n    Questions asked:\n- "Which way should the login be skipped '
    'locally?"\n  Answer: neither, keep the login but remember the token for a week on my laptop'
)
_MUCH_LATER = "now add a dark theme to the settings page and a logout button in the header"


def test_the_answer_a_rejected_question_carries_is_quoted_not_a_later_message(
    tmp_path: Path,
) -> None:
    s = _asked(_CLARIFY, notice=False)
    say = "Understood: keeping the login, remembering the token for a week."
    s.assistant([{"type": "text", "text": say}])
    s.bash("sed -i s/1d/7d/ src/token.py", "")
    s.user(_MUCH_LATER)
    s.assistant([{"type": "text", "text": "Adding the dark theme."}])
    part = section(_summary(s, tmp_path), 5)
    assert "«neither, keep the login but remember the token for a week on my laptop»" in part, part
    assert _MUCH_LATER not in part, part


def test_the_words_of_a_rejection_are_the_answer_to_its_question(tmp_path: Path) -> None:
    said = (
        _BARE.split(" STOP what", 1)[0] + " To tell you how to proceed, the user said:\nuse a flag"
    )
    s = _asked(said, notice=False)
    s.assistant([{"type": "text", "text": "Adding the local flag."}])
    s.user(_MUCH_LATER)
    s.assistant([{"type": "text", "text": "Adding the dark theme."}])
    part = section(_summary(s, tmp_path), 5)
    assert "«use a flag»" in part and _MUCH_LATER not in part, part


# -- 58 W5: an offer is accepted only by a reply that agrees to it -------------------------------

_ABOUT = (
    "**quillpad-7** is a small note-taking model from a Finnish lab, tuned for short summaries. "
    "It runs on a laptop CPU. For its benchmarks I'd need to check the lab's own page.\n\n"
    "Would you like me to search for more info?"
)


def _offered_then(reply: str) -> str:
    s = SessionBuilder()
    s.user("what model is this")
    s.say(_ABOUT)
    s.user(reply)
    s.say("Looking into it.")
    return section(summarize_transcript(s.messages), 5)


def test_an_acknowledgement_then_another_question_does_not_accept_the_offer() -> None:
    reply = "ok great, i am using the desktop app and it says the model is not available, why?"
    part = _offered_then(reply)
    assert "Accepted by the user" not in part, part


def test_a_reply_that_agrees_accepts_the_offer() -> None:
    agreeing = (
        "yes please",
        "ok",
        "sure, and check the license too",
        "ok, can you search the forums?",
    )
    for reply in agreeing:
        part = _offered_then(reply)
        assert "Accepted by the user: search for more info" in part, (reply, part)


# -- 58 W2: a claim the assistant retracts later is no standing result ---------------------------


def _stated(text: str) -> list[str]:
    part = section(text, 5).split("Decisions, causes and results stated by the assistant:", 1)
    assert len(part) == 2, text
    return [ln.strip() for ln in part[1].splitlines() if ln.startswith("     - ")]


def test_a_claim_the_assistant_retracted_later_is_marked_so() -> None:
    s = SessionBuilder()
    s.user("/garden sync add moss-hub")
    s.say("The command `/garden sync add moss-hub` isn't a recognized Garden CLI command.")
    s.user("i saw it in the moss-hub readme, check again")
    s.call("WebSearch", {"query": "moss-hub garden sync plugin"}, "moss-hub: a Garden plugin …")
    s.say(
        "I was wrong earlier about that command not existing; `/garden sync` comes with the "
        "moss-hub plugin. Install the plugin first, then run it again."
    )
    stated = _stated(summarize_transcript(s.messages))
    claim = next(x for x in stated if "isn't a recognized Garden CLI command" in x)
    assert claim.startswith("- No longer holds (the assistant retracted it later: "), stated
    assert "I was wrong earlier about that command not existing" in claim, claim


def test_a_claim_nobody_retracted_stands() -> None:
    s = SessionBuilder()
    s.user("/garden sync add moss-hub")
    s.say("The command `/garden sync add moss-hub` isn't a recognized Garden CLI command.")
    s.user("what about the prune command then")
    s.call("Bash", {"command": "garden --help"}, "prune  remove dead branches")
    s.say("I was wrong to skip the help page: `garden prune` is listed there.")
    stated = _stated(summarize_transcript(s.messages))
    assert any(x.startswith("- The command `/garden sync add moss-hub`") for x in stated), stated


# -- 58 W8: a statement the user's later instruction contradicted, which the agent followed -----


def badge_session(between: Sequence[tuple[str, str]] = ()) -> SessionBuilder:
    """58 W8's session: an answer stating a database write is still needed, the ``between``
    (request, answer) turns, then the user's "no need to write the database" and the edit."""
    s = SessionBuilder()
    s.user("make the badge endpoint read the badge from the API")
    s.call(
        "Edit",
        {"file_path": "/bot/badges.js", "old_string": "db.query", "new_string": "api.get"},
        "ok",
    )
    s.say(
        "Done. The badge endpoint reads through the API now. It could also resolve the award "
        "via the API instead of its own read query, though it still needs a database write to "
        "persist the new badgestatus after each award. Want me to change it, or leave it as-is?"
    )
    for request, answer in between:
        s.user(request)
        s.say(answer)
    s.user(
        "please finish it. The badgestatus is already written by the website, so no need to "
        "write the database at all"
    )
    s.call(
        "Edit",
        {"file_path": "/bot/badges.js", "old_string": "db.write", "new_string": ""},
        "ok",
    )
    s.say("Removed the write: the endpoint only reads now.")
    return s


def test_a_statement_the_users_instruction_contradicted_no_longer_holds() -> None:
    s = badge_session()
    stated = _stated(summarize_transcript(s.messages))
    claim = next(x for x in stated if "still needs a database write" in x)
    assert claim.startswith('- No longer holds (the user: "'), stated
    assert "no need to write the database at all" in claim, claim
