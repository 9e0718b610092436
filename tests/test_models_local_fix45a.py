"""Blind check 45, W1 and W6 (issue 28).

W1: a bare "3" answered a message with two numbered lists (what the code does now, then
"**Options:**") and was resolved against the first, so "No structured logging" was "Accepted by
the user" although the user chose "Add structured logging". W6: a plan written in a turn that
ended with a final answer was shown as open items ("0 of 4 done") after the user's next,
different request."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_optlist import offer_scope

from .planted_session import SessionBuilder
from .test_models_local_session import section

_TWO_LISTS = (
    "Here is how the cleanup command works today:\n\n"
    "1. **Preview mode**: lists the items with their reason\n"
    "2. **Force mode**: deletes without asking\n"
    "3. **No structured logging**: No slog calls anywhere in cleanup code\n\n"
    "**Options:**\n"
    "1. **Remove Reason** - drop the field entirely\n"
    "2. **Display Reason in preview** - show it next to each item\n"
    "3. **Add structured logging** - For audit trail / debugging\n\n"
    "Which would you like?"
)


def _reply_session(reply: str) -> str:
    s = SessionBuilder()
    s.user("is the Reason field of the cleanup items used anywhere?")
    s.call(
        "Bash", {"command": "grep -rn Reason cmd/cleanup.go"}, "cmd/cleanup.go:12: Reason string"
    )
    s.say(_TWO_LISTS)
    s.user(reply)
    s.call("Read", {"file_path": "/repo/cmd/cleanup.go"}, "package cmd\n")
    return summarize_transcript(s.messages)


def test_a_bare_number_picks_from_the_options_list_not_the_description_above() -> None:
    summary = _reply_session("3")
    assert "Add structured logging" in section(summary, 1), section(summary, 1)
    assert "3: No structured logging" not in summary, section(summary, 1)
    assert "Accepted by the user: **No structured logging**" not in summary


def test_the_scope_is_the_list_a_heading_introduces_or_the_last_list() -> None:
    assert offer_scope(_TWO_LISTS).startswith("**Options:**")
    no_heading = _TWO_LISTS.replace("**Options:**\n", "Then:\n")
    assert offer_scope(no_heading).startswith("1. **Remove Reason**")
    one = "1. Keep it\n2. Drop it\n\nWhich one?"
    assert offer_scope(one) == one
    first = "Options:\n1. Keep\n2. Drop\n\nSteps after that:\n1. build\n2. test\n\nPick one."
    assert offer_scope(first).startswith("Options:")
