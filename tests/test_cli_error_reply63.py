"""Blind check 63 W3: Claude Code writes an assistant record in the model's place when a model
call failed for good (``isApiErrorMessage: true``, model ``<synthetic>``, an ``error`` field),
here ``Please run /login · API Error: 401 Invalid authentication credentials`` after two
``system/api_error`` records. The text does not start with ``API Error:``, so it passed for the
answer: §7/§8/§9 said "the last request was answered … wait for the user's next message", and
``compact eval`` agreed. The record's markers decide first; the text is a hint."""

from __future__ import annotations

from typing import Any

from compactor.facts import entry_of
from compactor.formats.registry import read_transcript
from compactor.runs.evaluate import evaluate

from .cc_session import Session
from .test_models_local_session import section


def _api_error_record(s: Session, attempt: int) -> None:
    s._add(
        {
            "type": "system",
            "subtype": "api_error",
            "level": "error",
            "error": {"status": 401, "error": {"type": "authentication_error"}},
            "retryAttempt": attempt,
            "maxRetries": 10,
        }
    )


def _cli_reply(s: Session, text: str, markers: bool = True) -> None:
    s.say(text)
    rec: dict[str, Any] = s.records[-1]
    if markers:
        rec["message"]["model"] = "<synthetic>"
        rec["isApiErrorMessage"] = True
        rec["error"] = "authentication_failed"


def _session(reply: str, markers: bool = True) -> Session:
    s = Session()
    s.user("Add a health check endpoint to the server.")
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/server.py", "old_string": "a", "new_string": "b"},
        "ok",
    )
    s.say("Done: GET /health returns 200 with the build id. The change is not committed yet.")
    s.user("how do I restore my stash?")
    _api_error_record(s, 1)
    _api_error_record(s, 2)
    _cli_reply(s, reply, markers)
    return s


def _raw(s: Session) -> bytes:
    return b"\n".join(s.lines()) + b"\n"


def _unanswered(summary: str) -> None:
    for n in (7, 8):
        assert "not answered yet" in section(summary, n), section(summary, n)
        assert "was answered" not in section(summary, n)
        assert "was completed" not in section(summary, n)
    assert "Answer the latest request" in section(summary, 9), section(summary, 9)
    assert "wait for the user's next message" not in section(summary, 9)


def test_a_reply_the_cli_wrote_is_no_answer_by_its_markers() -> None:
    s = _session("Please run /login · Invalid authentication credentials")  # no "API Error:"
    messages = read_transcript("s.jsonl", _raw(s)).messages
    assert entry_of(len(messages) - 1, messages[-1]).cli_error
    _unanswered(s.summary())


def test_the_login_wording_is_no_answer_without_markers() -> None:
    s = _session("Please run /login · API Error: 401 Invalid authentication credentials", False)
    _unanswered(s.summary())


def test_a_model_answer_quoting_an_api_error_stays_an_answer() -> None:
    s = _session("The log said API Error: 401 because the token expired; run /login.", False)
    summary = s.summary()
    assert "not answered yet" not in section(summary, 8)


def test_eval_calls_the_original_unanswered() -> None:
    """A verbatim copy (what reduce keeps) ends as the original does: both unanswered."""
    s = _session("Please run /login · Invalid authentication credentials")
    original = read_transcript("s.jsonl", _raw(s)).messages
    copy = read_transcript("s.jsonl", _raw(s)).messages
    ended = next(c for c in evaluate(original, copy).categories if c.name == "ended")
    assert ended.items, "no claim read"
    assert "the original ends with the last request unanswered" in ended.items[0].how


def test_the_clis_no_response_requested_is_no_answer() -> None:
    """Blind check 64 N1: Claude Code writes "No response requested." as a ``<synthetic>``
    assistant record when a queued prompt is sent again; it was quoted as an answer."""
    s = Session()
    s.user("Write the export script for the chat log.")
    s.call("Write", {"file_path": "/home/dev/board/export.py", "content": "print(1)\n"}, "ok")
    s.say("Done: export.py writes the chat log to chat-log.txt.")
    s.user("no, I want to read this chat in a file on my machine")
    s.say("No response requested.")
    s.records[-1]["message"]["model"] = "<synthetic>"
    s.user("try again")
    summary = s.summary()
    assert "No response requested" not in summary, summary
