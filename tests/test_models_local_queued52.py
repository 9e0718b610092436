"""A note queued during an EARLIER turn belongs to that turn (blind check 52, W7: a note typed
and delivered during a rename-and-commit turn, which answered it, was listed under the later
current request "commit" as a note to it, so it read as an open constraint of the last turn).
A question queued at the very end and never delivered stays the current request (guard)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, queue_record, section

RENAME = "Rename the theme pages to segments and commit the rename."
NOTE = "hide the table of contents for generated indexes, use hide_table_of_contents: true"


def _rename_turn(s: Session) -> None:
    s.user(RENAME)
    s.bash("git mv docs/themes docs/segments", "")
    s._add(queue_record("enqueue", NOTE))
    sidebars = {"file_path": "/home/dev/board/website/sidebars.js", "old_string": "a"}
    s.call("Edit", {**sidebars, "new_string": "b"}, "ok")
    s._add(queue_record("remove"))
    s.attachment({"type": "queued_command", "prompt": NOTE, "commandMode": "prompt"})
    s.bash("npm run build", "Build ok")
    s.say("Renamed and committed. Generated indexes never render a TOC; the keys are inert.")


def test_a_note_queued_during_an_earlier_turn_is_no_note_to_the_current_request(
    tmp_path: Path,
) -> None:
    s = Session()
    _rename_turn(s)
    s.user("commit")
    s.bash("git commit -am 'drop dead TOC keys'", "[main 9e30df4] drop dead TOC keys")
    s.say("Committed as 9e30df4.")
    first = section(cc_summary(s, tmp_path), 1)
    assert 'Current request: "commit"' in first, first
    assert f'While the agent worked on an earlier request, "{RENAME}", the user added' in first
    assert "ended with an answer before the next request" in first
    assert "no open constraint of the current one" in first
    assert "While the agent worked on the request in progress" not in first


def test_a_note_to_the_current_turn_is_still_its_note(tmp_path: Path) -> None:
    s = Session()
    s.user("Set up the docs site.")
    s.say("The docs site is set up.")
    _rename_turn(s)
    first = section(cc_summary(s, tmp_path), 1)
    assert f'Current request: "{RENAME}"' in first, first
    assert "While the agent worked on the current request, the user added" in first


def test_a_question_queued_at_the_end_and_never_delivered_is_the_current_request(
    tmp_path: Path,
) -> None:
    asked = "what do we need to change in the goal line to make you respect this better?"
    s = Session()
    _rename_turn(s)
    s._add(queue_record("enqueue", asked, stamp="2026-08-09T12:59:00.000Z"))
    summary = cc_summary(s, tmp_path)
    first = section(summary, 1)
    assert f'Current request: "{asked}"' in first, first
    assert "still queued, not yet delivered" in first
    assert "Answer the latest request" in section(summary, 9) or asked in section(summary, 9)
