"""How the session ended is said alike in sections 7, 8 and 9 (blind check 52, W9: the user's
last message, "git s", was interrupted at once; sections 8 and 9 said so, section 7 said "None:
the last request was answered; nothing is pending"), and section 9 says plainly that it wins
over the closing instruction to continue without asking (N4)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

REQUEST = "The release pipeline fails after a recent workflow change; find out why and fix it."


def test_a_last_message_interrupted_at_once_is_said_in_sections_7_8_and_9(tmp_path: Path) -> None:
    s = Session()
    s.user(REQUEST)
    s.call("Read", {"file_path": "/home/dev/board/.github/workflows/release.yml"}, "steps: []")
    gitignore = {"file_path": "/home/dev/board/.gitignore", "old_string": "a", "new_string": "b"}
    s.call("Edit", gitignore, "ok")
    s.say("The package step writes the module cache into the tree; I ignored it in .gitignore.")
    s.user("git s")
    s.user([{"type": "text", "text": "[Request interrupted by user]"}])
    summary = cc_summary(s, tmp_path)
    pending, current, step = (section(summary, n) for n in (7, 8, 9))
    for text in (pending, current, step):
        assert 'sent "git s" and interrupted that turn at once' in text, text
    assert "None: the last request was answered" not in pending, pending
    assert "not carried out" in pending and "ask the user whether to continue" in pending
    assert "wins over the closing instruction to continue without asking" in step, step
    assert "do not redo it" in step


def test_an_answered_session_still_says_nothing_is_pending(tmp_path: Path) -> None:
    s = Session()
    s.user(REQUEST)
    s.say("The package step writes the module cache into the tree; fixed in .gitignore.")
    pending = section(cc_summary(s, tmp_path), 7)
    assert "None: the last request was answered; nothing is pending" in pending, pending
