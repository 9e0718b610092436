"""Blind checks 57 and 58: the dialogue side of the embedded summary (RELIABILITY rows
2751-2756), by shape, with invented sessions."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder

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
