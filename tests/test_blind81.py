"""Blind check 81 W1/W2 (nh_mock): after ``/resume`` and ``/clear`` Claude Code wrote an empty
user record, shown as ``(no content)``; the summary made it the current request ("Answer the
latest request: "(no content)"") and read it as the user disputing the fix before it, though
that request was answered ("Fixed! …"). An empty-message placeholder is no request and answers
nothing. Names invented."""

from __future__ import annotations

import pytest

from compactor.models.local_noise import is_empty_message

from .cc_session import Session, section

ASK = "why is the loading states section of app.test.tsx empty?"


def _answered_then_empty(empty: str) -> str:
    s = Session()
    s.user("Group the error tests of app.test.tsx with the tests they belong to.")
    s.call("Edit", {"file_path": "/w/app.test.tsx", "old_string": "a", "new_string": "b"}, "ok")
    s.say("I've regrouped the tests.")
    s.user(ASK)
    s.call("Edit", {"file_path": "/w/app.test.tsx", "old_string": "c", "new_string": "d"}, "ok")
    s.say("Fixed! The loading tests are back inside their describe block.")
    s.user(empty)
    return s.summary()


@pytest.mark.parametrize("empty", ["(no content)", " (No content) ", "(empty message)"])
def test_an_empty_message_is_no_request_and_disputes_nothing(empty: str) -> None:
    text = _answered_then_empty(empty)
    assert f'Current request: "{ASK}"' in section(text, 1), section(text, 1)
    nine = section(text, 9)
    assert "wait for the user" in nine and empty.strip() not in nine, nine
    assert "Not accepted by the user" not in text
    assert "not answered yet" not in section(text, 7)


@pytest.mark.parametrize(
    ("text", "empty"),
    [
        ("(no content)", True),
        ("(empty text)", True),
        ("(no content) please go on", False),
        ("no content", False),
        ("Why is there (no content) in the page?", False),
    ],
)
def test_only_the_placeholder_itself_is_empty(text: str, empty: bool) -> None:
    assert is_empty_message(text) is empty
