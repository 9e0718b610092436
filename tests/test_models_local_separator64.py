"""Blind check 64 N3 (helper gap63): a command's output that prints a label between rules
(``---node---``) then a line of its own is rendered in section 5 with the marks kept
("---node--- | done"), never "node | done"; rules around a line of several words are still
dropped ("==== 3 passed ====" reads "3 passed"). Every session is built here, by shape, with
invented content."""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_text import printed_lines

from .cc_session import Session, cc_summary


def test_a_separator_label_keeps_its_marks_in_what_commands_printed(tmp_path: Path) -> None:
    s = Session()
    s.user("which runtimes are on this box?")
    s.bash("echo ---ruby---; ruby -v 2>&1 || echo missing", "---ruby---\nmissing")
    s.say("Ruby is missing.")
    text = " ".join(cc_summary(s, tmp_path).split())
    assert "→ ---ruby--- | missing" in text, text
    assert "→ ruby | missing" not in text, text


def test_rules_around_words_are_dropped_a_labels_are_kept() -> None:
    out = "==== 3 passed in 0.2s ====\n---node---\n=== build ===\n-----\ndone\n"
    assert printed_lines(out) == ["3 passed in 0.2s", "---node---", "=== build ===", "done"]
