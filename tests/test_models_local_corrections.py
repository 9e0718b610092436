"""Blind check 21 (issue 28, rows 930-949): the user's words inside a rejected call's result
("… To tell you how to proceed, the user said: …") are a correction attached to that call, never
a user request nor the current request; pending only while no later call acted on it."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_SAID = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was "
    "a file edit, the new_string was NOT written to the file). To tell you how to proceed, the "
    "user said:\n"
)
_REQUEST = "Create a skill that documents the billing service for other agents"
_WORDS = "the big-number type comes from lib/numbers, use the right syntax"


def _corrected_session(*, acted: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user(_REQUEST)
    todos = [
        {"content": "write the reference docs", "status": "in_progress", "activeForm": "w"},
        {"content": "package the skill", "status": "pending", "activeForm": "p"},
    ]
    s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
    draft: dict[str, object] = {
        "file_path": "skill/references/architecture.md",
        "content": "# Arch\nBN from bn.js\n",
    }
    s.call("Write", draft, _SAID + _WORDS, error=True)
    if acted:
        s.call("Grep", {"pattern": "import.*BigNum"}, "lib/numbers.ts:1:export class BigNum")
        s.call("Read", {"file_path": "lib/numbers.ts"}, "1\texport class BigNum {}")
        fixed: dict[str, object] = {
            "file_path": "skill/references/architecture.md",
            "content": "# Arch\nBigNum\n",
        }
        s.call("Write", fixed, "File created successfully at: skill/references/architecture.md")
        todos[0]["status"], todos[1]["status"] = "completed", "in_progress"
        s.call("TodoWrite", {"todos": todos}, "Todos have been modified successfully.")
        s.call("Bash", {"command": "rm -rf skill/assets"}, None)  # in flight
    return s


def test_rejection_words_acted_on_are_no_request_and_not_the_current_request() -> None:
    """cc-skill: the words of the last rejected Write became "Current request", "5 requests from
    the user" and §9 "continue the latest request: …" though the agent redid the Write."""
    text = summarize_transcript(_corrected_session(acted=True).messages)
    intent = section(text, 1)
    current = intent[intent.index("Current request") :] if "Current request" in intent else intent
    assert _WORDS not in current.split("\n", 1)[0], intent
    assert _REQUEST in intent, intent
    assert _WORDS in intent, intent  # kept as a correction / constraint
    assert "1 request from the user" in text, text
    assert _WORDS not in section(text, 6), section(text, 6)  # not a user message
    for number in (7, 8, 9):
        part = section(text, number)
        assert f"latest request: {_WORDS[:20]}" not in part, part
        assert f'"{_WORDS}' not in part, part
    assert _WORDS in section(text, 4), section(text, 4)


def test_rejection_words_no_call_acted_on_are_a_pending_correction_not_the_request() -> None:
    text = summarize_transcript(_corrected_session(acted=False).messages)
    intent = section(text, 1)
    assert f'request: "{_REQUEST}" (the current request)' in intent, intent
    assert "1 request from the user" in text, text
    assert "Not acted on yet" in intent and _WORDS in intent, intent
    for number in (7, 9):
        part = section(text, number)
        assert _WORDS in part and "ot acted on yet" in part, part
    assert "act on the user's correction" in section(text, 9), section(text, 9)
