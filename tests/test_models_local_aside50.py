"""A short note the user typed while the agent worked, delivered into the running turn, is a
note to the request in progress, not the current request (BENCH50 W4: Claude Code's
``queue-operation`` enqueue and ``queued_command`` attachment "hey dont use example.com", typed
during a UI overhaul, became section 1's current request and section 9 said to "continue" it)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, queue_record, section

OVERHAUL = "Rework the UI: a dark/light toggle on top, a confirm page, and a clean dashboard."
ASIDE = "hey dont use example.com for the test accounts"


def _session(aside: str = ASIDE) -> Session:
    s = Session()
    s.user("Set up the signup flow for the bookmarks app.")
    s.bash("npm run build", "Compiled successfully")
    s.assistant([{"type": "text", "text": "The signup flow works."}])
    s.user(OVERHAUL)
    s.bash("npx shadcn add button", "Added components/ui/button.tsx")
    s._add(queue_record("enqueue", aside))
    s.bash("node verify-ui.mjs --email qa@example.com", "PASS toggle\nPASS confirm")
    s._add(queue_record("remove"))
    s.attachment({"type": "queued_command", "prompt": aside, "commandMode": "prompt"})
    s.bash("node verify-ui.mjs --email qa@testmail.dev", "PASS toggle\nPASS confirm")
    s.assistant([{"type": "text", "text": "Switched the test accounts; committing the overhaul."}])
    return s


def test_an_aside_typed_mid_turn_is_a_note_to_the_request_in_progress(tmp_path: Path) -> None:
    summary = cc_summary(_session(), tmp_path)
    first = section(summary, 1)
    assert f'Current request: "{OVERHAUL}"' in first, first
    assert f'Current request: "{ASIDE}' not in summary
    assert "the user added" in first and ASIDE in first, first
    assert ASIDE in section(summary, 6)  # still among the user's messages
    assert f'continue the latest request: "{ASIDE}' not in summary


def test_a_question_typed_mid_turn_stays_a_request(tmp_path: Path) -> None:
    asked = "Is there a Linux build of the checker?"
    summary = cc_summary(_session(asked), tmp_path)
    assert f'Current request: "{asked}' in section(summary, 1)
