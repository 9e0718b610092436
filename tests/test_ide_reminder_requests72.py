"""A user message whose own words follow a block the IDE or the CLI put first (blind check 72
N5, a VS Code session: "<system-reminder>The user provided the following references: …
</system-reminder>" then the user's request) is the user's request, kept in section 1 and in
"All user messages"; a message of such blocks alone stays context. Sessions built by shape,
invented content."""

from __future__ import annotations

from compactor.facts import is_injected
from compactor.facts.noise import user_words
from compactor.formats.notices import after_injected_blocks
from compactor.formats.registry import read_transcript
from compactor.pipeline.finalize import is_user_candidate

from .cc_session import Session, section

_REFS = (
    "<system-reminder>\nThe user provided the following references:\n"
    "- /home/ana/shop/components/Header.jsx:15\n\nIMPORTANT: this context may or may not be "
    "relevant to your tasks.\n</system-reminder>\n\n"
)
_FIRST = "Make the navbar links work: create the routes /orders, /vendors and /labels."
_SECOND = "Fetch the vendors from the API and render each one as a VendorCard."


def _session() -> Session:
    s = Session()
    s.user(_REFS + _FIRST)
    s.call("Write", {"file_path": "/home/ana/shop/app/orders/page.jsx"}, "File created.")
    s.say("The three routes exist now.")
    s.user(_REFS + _SECOND)
    s.call("Write", {"file_path": "/home/ana/shop/app/vendors/page.jsx"}, "File created.")
    s.say("The vendors page fetches the API and renders a VendorCard each.")
    s.user(_REFS.strip())  # the reminder alone: context, no request
    s.say("Noted.")
    return s


def test_words_after_an_ide_reminder_are_a_request() -> None:
    summary = _session().summary()
    first = section(summary, 1)
    assert f'Initial request: "{_FIRST}' in first.replace("\n", " ")
    assert "Fetch the vendors from the API" in first
    assert "The user provided the following references" not in first


def test_the_messages_are_the_users_own_words_in_the_kept_list() -> None:
    raw = b"\n".join(_session().lines()) + b"\n"
    users = [m for m in read_transcript("s.jsonl", raw).messages if m.role == "user"]
    asks = [m for m in users if is_user_candidate(m)]
    assert [user_words(m) for m in asks] == [_FIRST, _SECOND]
    assert not any(is_injected(m) for m in asks)
    assert is_injected(users[-1])  # the reminder alone


def test_only_closed_injected_blocks_are_passed_over() -> None:
    assert after_injected_blocks(_REFS + _FIRST) == _FIRST
    assert after_injected_blocks(_REFS + _REFS) == ""
    unclosed = "<system-reminder>\nnote without its end, then words"
    assert after_injected_blocks(unclosed) == unclosed
    assert after_injected_blocks("<environment_context>x</environment_context> hi").startswith("<")
