"""The earlier summary's pending list after the agent reported it done (blind check 52, W6:
"All four fixed and verified …" came before any new message, yet one item was marked "done
since (the user asked for it again: …)" by word overlap with a later, unrelated question and
the other three stayed pending)."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary

PRIOR = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user reviewed the segment page.\n\n"
    "Summary:\n1. Primary Request and Intent:\n   Polish the segment page of the docs site.\n\n"
    "7. Pending Tasks:\n   - Remove the PREVIEW label text above the sample card\n"
    "   - Left-align the tabs on the segment page\n"
    "   - Drop the min-height of 22rem on the sample box\n"
    "   - Move the gutter next to the options column\n\n"
    "8. Current Work:\n   Was about to edit website/src/css/segment.css.\n"
)
REPORT = "All four fixed and verified on the segment page: the label is gone, the tabs are left."
QUESTION = (
    "why do we have three flavors of the preview label and sample text colors? When I click "
    "the top button there's dark and light"
)


def _pending(tmp_path: Path, report: str) -> str:
    s = Session()
    s.compacted(PRIOR)
    for name in ("css/segment.css", "components/Sample.tsx"):
        path = f"/home/dev/board/website/src/{name}"
        s.call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, "ok")
    s.say(report)
    s.user(QUESTION)
    theme = "/home/dev/board/website/src/css/theme.css"
    s.call("Edit", {"file_path": theme, "old_string": "a", "new_string": "b"}, "ok")
    s.bash("git commit -am 'one colour mode'", "[main b51711e] one colour mode")
    s.say("There is one colour mode now; committed as b51711e.")
    summary = cc_summary(s, tmp_path)
    start = summary.index("\n7. Pending")
    return summary[start : summary.index("\n8. ", start)]


def test_the_agents_completion_report_is_quoted_and_a_question_closes_nothing(
    tmp_path: Path,
) -> None:
    pending = _pending(tmp_path, REPORT)
    assert f'Reported done by the assistant after the earlier summary ("{REPORT}' in pending
    assert "check whether any is still pending" in pending
    assert "the user asked for it again" not in pending, pending
    assert "done since" not in pending


def test_a_report_counting_other_items_is_not_the_lists(tmp_path: Path) -> None:
    pending = _pending(tmp_path, "All three fixed and verified on the segment page.")
    assert "Reported done by the assistant" not in pending
    assert "the user asked for it again" not in pending  # (still: a question restates nothing)
    assert "Pending in the earlier summary" in pending
