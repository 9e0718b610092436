"""Blind check 61, W5-W7: a later full read of a changed file is its content (W5); a last
reply that only asked the user questions is no completion (W6); an earlier summary's pending
item a later request asks for again in other words is not "not asked for again" (W7)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

NOTES = "/home/dev/board/notes.cfg"
EARLIER = """This session is being continued from a previous conversation that ran out of context.

Summary:
1. Primary Request and Intent:
   Tidy the lantern board's config loader.
2. Key Technical Concepts:
   - YAML loading
7. Pending Tasks:
   - **Rename the legacy loader flag**: still named old_mode in two places.
   - **Build GLOW-over-manuals search tool**: stdio tool. Deferred; not started.
8. Current Work:
   Answered a question about the loader.
9. Optional Next Step:
   Wait for the user.
"""


def _files_section(s: Session, tmp_path: Path) -> str:
    return section(cc_summary(s, tmp_path), 3)


def test_a_later_cat_of_a_changed_file_is_its_content(tmp_path: Path) -> None:
    s = Session()
    s.user("Keep the build folder out of the config notes.")
    s.call("Write", {"file_path": NOTES, "content": "@dist/"}, f"File created at {NOTES}")
    s.bash(f"cat {NOTES}", "dist/\ndist\n")  # changed outside the agent's calls
    edit = {"file_path": NOTES, "old_string": "dist/\ndist", "new_string": "dist/\ndist\n@dist/"}
    s.call("Edit", edit, "ok")
    s.say("Added the entry.")
    files = _files_section(s, tmp_path)
    assert "dist/\n       dist\n       @dist/" in files, files
    body = files[files.index("content") : files.index("latest change")]
    assert body.count("@dist/") == 1, files  # not the agent's own "@dist/" twice


def test_a_later_whole_read_tool_result_is_the_content_later_edits_apply_to(
    tmp_path: Path,
) -> None:
    s = Session()
    s.user("Set the lantern colour in the config notes.")
    s.call("Write", {"file_path": NOTES, "content": "colour = red"}, f"File created at {NOTES}")
    s.call("Read", {"file_path": NOTES}, "     1→colour = amber\n     2→size = 4\n")
    s.call("Edit", {"file_path": NOTES, "old_string": "size = 4", "new_string": "size = 6"}, "ok")
    s.say("Set the size.")
    files = _files_section(s, tmp_path)
    assert "colour = amber" in files and "size = 6" in files, files
    assert "colour = red" not in files, files


def test_a_read_showing_the_same_content_changes_nothing(tmp_path: Path) -> None:
    s = Session()
    s.user("Set the lantern colour in the config notes.")
    s.call("Write", {"file_path": NOTES, "content": "colour = red"}, f"File created at {NOTES}")
    s.call("Read", {"file_path": NOTES}, "     1→colour = red\n")
    s.say("Done.")
    assert "colour = red" in _files_section(s, tmp_path)


def _asked_only(s: Session) -> None:
    s.user("now let us build the lantern dashboard")
    s.bash("which glowd; pip show lanternkit", "glowd not found\nWARNING: Package(s) not found")
    s.say(
        "Nothing installed yet. Two things to settle before writing code:\n\n"
        "1. Install glowd in the container, or run it on the host?\n"
        "2. Put the dashboard under ~/lantern/dash?\n\n"
        "Want me to start with the glowd install, or do you prefer another order?"
    )


def test_a_reply_that_only_asks_questions_is_not_completed(tmp_path: Path) -> None:
    s = Session()
    s.compacted(EARLIER)
    _asked_only(s)
    summary = cc_summary(s, tmp_path)
    pending, current = section(summary, 7), section(summary, 8)
    assert "nothing is pending" not in pending, pending
    assert "only asked the user questions" in pending, pending
    assert "was completed" not in current, current
    assert "waits for the user's answers" in current, current


def test_a_question_answered_with_a_follow_up_question_stays_answered(tmp_path: Path) -> None:
    s = Session()
    s.user("What does the loader do with missing keys?")
    s.bash("grep -n missing loader.py", "12: return defaults")
    s.say("It falls back to the defaults (line 12). Is that what you expected? Shall I log it?")
    assert "only asked the user questions" not in cc_summary(s, tmp_path)


def test_a_pending_item_asked_for_again_in_other_words_is_said_so(tmp_path: Path) -> None:
    s = Session()
    s.compacted(EARLIER)
    s.user("now back to the GLOW integration")
    s.call("Write", {"file_path": "/home/dev/board/glow.py", "content": "INDEX = []"}, "ok")
    s.say("Started the index module; the search tool comes next.")
    pending = section(cc_summary(s, tmp_path), 7)
    assert "not asked for again" not in pending, pending
    assert "asked for again since" in pending and "now back to the GLOW integration" in pending
    assert "Build GLOW-over-manuals search tool" in pending, pending


def test_a_pending_item_no_later_request_names_stays_not_asked_again(tmp_path: Path) -> None:
    s = Session()
    s.compacted(EARLIER)
    s.user("fix the typo in the readme heading")
    s.call("Write", {"file_path": "/home/dev/board/README.md", "content": "# Lantern"}, "ok")
    s.say("Fixed the heading.")
    pending = section(cc_summary(s, tmp_path), 7)
    assert "not asked for again since" in pending, pending
