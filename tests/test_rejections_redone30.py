"""A rejected attempt, then the same thing done: no proposal turned down (blind check 30, W4).

cc-lazyblog: the assistant said "File name macos-shortcuts.md. Creating the file and updating
_meta.json now." and wrote the file; the user rejected that ``Write``'s CONTENT (too many
tables), and a later ``Write`` of the same file, with the user's approval, created it. The
summary filed the plan under "Proposals the user turned down (… do not act on them)", against
its own section 3. A later call of the same tool on the same file that succeeded means the
rejection was of that attempt: "rejected once, then done". The session is built here."""

from __future__ import annotations

import pytest

from compactor.models import local_rejected
from compactor.models.local import summarize_transcript
from compactor.models.local_session import Session

from .planted_session import SessionBuilder
from .test_models_local_session import section
from .test_rejections_fix27a import CC_BARE

LEAD_IN = "File name macos-shortcuts.md. Creating the file and updating _meta.json now."
PATH = "/w/docs/posts/macos-shortcuts.md"


def _session(redone: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user("write a cheat sheet of macOS shortcuts, file name macos-shortcuts")
    s.call("Write", {"file_path": PATH, "content": "| a | b |\n" * 40}, CC_BARE, text=LEAD_IN,
           error=True)  # fmt: skip
    s.user("[Request interrupted by user for tool use]")
    s.user("too many tables, use lists for the short sections")
    if redone:
        s.call("Write", {"file_path": PATH, "content": "- a\n- b\n" * 20},
               f"File created successfully at: {PATH}", text="Lists now.")  # fmt: skip
        s.say("Created the cheat sheet with lists.")
    else:
        s.say("Understood. Which sections should stay tables?")
    return s


def test_a_rejected_write_later_done_is_no_turned_down_proposal() -> None:
    solving = section(summarize_transcript(_session(redone=True).messages), 5)
    assert "Proposed, then the user rejected its call" not in solving, solving
    assert "Rejected once, then done" in solving, solving


def test_a_rejected_write_never_redone_is_still_a_turned_down_proposal() -> None:
    solving = section(summarize_transcript(_session(redone=False).messages), 5)
    assert "Proposed, then the user rejected its call (not run):" in solving, solving
    assert "Rejected once, then done" not in solving, solving


def test_the_redone_rejections_are_worked_out_once_per_summary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The judge of rejected calls and section 5 both ask which rejections were redone: one
    pass over the calls answers both (debt32, row 1452)."""
    counted: list[int] = []
    redone = local_rejected._redone

    def counting(s: Session) -> set[str]:
        counted.append(1)
        return redone(s)

    monkeypatch.setattr(local_rejected, "_redone", counting)
    solving = section(summarize_transcript(_session(redone=True).messages), 5)
    assert "Rejected once, then done" in solving, solving
    assert len(counted) == 1, counted
