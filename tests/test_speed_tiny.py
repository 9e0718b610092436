"""Issue 28 point 7 on a chat of tiny messages: ``judge_replies`` splits the assistant's text
into sentences only when one can be what a short reply answers, and judges a repeated pair of
short texts once; the answers are those of splitting every text (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

_FOLDING = ["İ", "ı", "ſ", "\u212a", "é", "’", "'", "\x00", "\x1b", "\r"]
_PIECES = [
    "Let me know", "let me KNOW", "tell me", "Ping me", "reply", "confirm", "when", "once",
    "after", "if", "you've", "Once you've added it", "What", "where", "Who", "should I", "e-mail",
    "email", "?", "？", ".", "!", " ", "\n", "done", "ok", "added", "it", "Edited app.py.",
    "confirm when done.", "Let me know when you've added it!", "What comment should it have?",
    *_FOLDING,
]  # fmt: skip
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)
_REPLIES = st.sampled_from(
    ["done", "ok added", "I've added it", "thanks", "yes", "a@b.io", "me@example.com", "next",
     "pasted it now", "ok", "the key", "Done already", "ſure", "DONE"]
)  # fmt: skip


def _asked_by_every_sentence(text: str, reply: str) -> str:
    """``_asked`` as it read before the quick test: every text split into sentences."""
    from compactor.facts import sentences
    from compactor.models.local_replies import (
        _DONE_RE,
        _EMAIL_RE,
        _NAMES_EMAIL_RE,
        _TOLD_RE,
        _VALUE_ASK_RE,
    )

    said = sentences(text)
    last = said[-1].strip() if said else ""
    if _TOLD_RE.search(last) and _DONE_RE.match(reply):
        return last
    if _VALUE_ASK_RE.match(last) and not _DONE_RE.match(reply):
        return last
    if _EMAIL_RE.match(reply) and _NAMES_EMAIL_RE.search(text):
        return next((s.strip() for s in reversed(said) if _NAMES_EMAIL_RE.search(s)), last)
    return ""


@settings(max_examples=3000, deadline=None, database=None, derandomize=True)
@given(_TEXTS, _REPLIES)
def test_property_what_a_reply_answers_is_what_every_sentence_says(text: str, reply: str) -> None:
    from compactor.models.local_replies import _asked, _asked_once

    expected = _asked_by_every_sentence(text, reply)
    assert _asked(text, reply) == expected
    memo: dict[tuple[str, str], str] = {}
    assert _asked_once(text, reply, memo) == expected
    assert _asked_once(text, reply, memo) == expected  # from the memo the second time


def test_a_reply_to_a_repeated_instruction_is_an_answer_each_time() -> None:
    """The memo keeps the answer of a pair of short texts: the same ``done`` after the same
    "Let me know …" is a reply every time, and the request between them stays one."""
    from compactor.facts import Entry
    from compactor.models.local_replies import judge_replies
    from compactor.models.local_session import Session

    ask = "Add the key to GitHub. Let me know when you've added it!"
    entries = [
        Entry(0, "user", "push from claude code to github"),
        Entry(1, "assistant", ask),
        Entry(2, "user", "done"),
        Entry(3, "assistant", ask),
        Entry(4, "user", "done"),
        Entry(5, "assistant", "Pushed."),
        Entry(6, "user", "now deploy it"),
    ]
    s = Session(entries=entries, requests=[entries[0], entries[2], entries[4], entries[6]])
    judge_replies(s)
    assert [r.index for r in s.requests] == [0, 6]
    assert [(r.index, asked) for r, asked in s.replies] == [
        (2, "Let me know when you've added it!"),
        (4, "Let me know when you've added it!"),
    ]
