"""The outcome of an earlier task that only the assistant's closing words state is kept when a later
talk answer displaced it from section 8 (blind check 69 N8: roi_git recreated a Qdrant collection
with size 1536 and said "**Operation completed successfully!** …"; the summary quoted the later
answer about saving work to GitHub and never said how the Qdrant task ended). Invented only."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

DONE = "**Operation completed successfully!** The collection notes_main now has size 1536."
TALK = "Yes, you can keep your work in a repository. " + "Here is one way to do it. " * 25


def _session(*, answered: bool = False) -> Session:
    s = Session()
    s.user("recreate the collection notes_main with size 1536 and report the result")
    s.bash('curl -X DELETE "http://localhost:6333/collections/notes_main"', '{"result":true}')
    s.bash('curl -X PUT "http://localhost:6333/collections/notes_main" -d @c.json', '{"ok":1}')
    s.say(DONE)
    s.user("can I save this work on GitHub?")
    s.say(TALK)
    s.user("yes, create a new private repository")
    s.bash("git init", "Initialized empty Git repository in /home/dev/board/.git/")
    if answered:
        s.say("Created the private repository and pushed the first commit.")
    return s


def test_a_displaced_task_outcome_is_kept_while_the_request_is_open(tmp_path: Path) -> None:
    part = section(cc_summary(_session(), tmp_path), 8)
    assert "The latest earlier task, and how the assistant said it ended" in part, part
    assert "Operation completed successfully!" in part and "1536" in part


def test_an_answered_request_needs_no_earlier_outcome(tmp_path: Path) -> None:
    summary = cc_summary(_session(answered=True), tmp_path)
    assert "The latest earlier task" not in summary
