"""Blind check 12, bh-compact (issue 28, rows 530-539): edits a later check found lost are not
the files' content and not fixes, the lost work is pending, and an answer that asks the user to
test it ends "awaiting the user's verification", not "nothing is pending"."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.models.local_state import ANSWERED
from compactor.schema import CONTENT_TYPE_KEY

from .planted_session import SessionBuilder
from .test_models_local_session import section

_TS = "/repo/app/components/ledger/table-view.ts"
_HBS = "/repo/app/components/ledger/table-view.hbs"
_OTHER = "/repo/app/components/summary-card.ts"
_GETTER = "  get isRefreshing(): boolean {\n    return this.sync.state === State.Refresh;\n  }"
_NOT_READ = "<tool_use_error>File has not been read yet. Read it first before writing to it."


def _edited(s: SessionBuilder) -> None:
    """The request, then a failed and a successful edit of each ledger file (as bh-compact)."""
    s.user("show a refresh indicator at the top of the ledger table")
    s.call("Read", {"file_path": _TS}, "   1→export default class TableView {\n   2→}")
    s.call(
        "Edit", {"file_path": _TS, "old_string": "}", "new_string": _GETTER + "\n}"},
        _NOT_READ, error=True,
    )  # fmt: skip
    s.call(
        "Edit", {"file_path": _TS, "old_string": "}", "new_string": _GETTER + "\n}"},
        f"The file {_TS} has been updated.",
    )  # fmt: skip
    block = (
        '{{#if this.isRefreshing}}\n  <div class="ledger-refresh-indicator">Loading</div>\n{{/if}}'
    )
    s.call(
        "Edit", {"file_path": _HBS, "old_string": "<table>", "new_string": block + "\n<table>"},
        f"The file {_HBS} has been updated.", text="Now the template:",
    )  # fmt: skip
    s.say("I've added the refresh indicator to the ledger table.")


def _lost_then_answered(s: SessionBuilder, last: str) -> None:
    s.user("the summary card never updates after the refresh ends")
    s.call(
        "Edit", {"file_path": _OTHER, "old_string": "@alias('x')", "new_string": "get x() {}"},
        f"The file {_OTHER} has been updated.",
    )  # fmt: skip
    s.call("Bash", {"command": f'grep -n "isRefreshing" {_TS}'}, "", text="Let me check mine:")
    s.say("The changes were lost. Let me re-add them. First the template:")
    s.call("Bash", {"command": f'grep -n "ledger-refresh-indicator" {_HBS}'}, "")
    s.say(last)


_LAST = (
    "It seems all my changes to the ledger component were lost. Since the main issue is the "
    "summary card, let's focus on that: the getter now reads the tracked state. "
    "Try refreshing and testing it now!"
)


def test_a_grep_without_match_marks_the_edit_lost_in_section_3() -> None:
    """bh-compact: grid-index.ts/.hbs were shown with their edits as the latest change after
    ``grep -n "isBackfilling"`` found nothing and the assistant said the changes were lost."""
    s = SessionBuilder()
    _edited(s)
    _lost_then_answered(s, _LAST)
    files = section(summarize_transcript(s.messages), 3)
    ts = files[files.index(_TS) : files.index(_HBS)]
    assert "then found lost: a later grep found no `isRefreshing`" in ts, files
    assert "not in the file now" in ts and "latest change:" not in ts, ts
    assert "the lost change (not in the file now):" in ts, ts
    hbs = files[files.index(_HBS) : files.index(_OTHER)]
    assert "grep found no `ledger-refresh-indicator`" in hbs, hbs
    other = files[files.index(_OTHER) :]
    assert "found lost" not in other and "latest change:" in other, other


def test_a_fix_whose_change_was_found_lost_is_not_fixed() -> None:
    """bh-compact §4: "Fixed: a later Edit(grid-index.ts) succeeded" for a change found lost."""
    s = SessionBuilder()
    _edited(s)
    _lost_then_answered(s, _LAST)
    errors = section(summarize_transcript(s.messages), 4)
    assert f"Fixed: a later `Edit({_TS})` succeeded" not in errors, errors
    assert f"Not fixed: a later `Edit({_TS})` succeeded, but its change was found lost" in errors


def test_lost_work_and_an_answer_to_verify_are_pending() -> None:
    """bh-compact §7/§9 said "None: the last request was answered; nothing is pending" after
    "The changes were lost. Let me re-add them" and "Try refreshing and testing it now!"."""
    s = SessionBuilder()
    _edited(s)
    _lost_then_answered(s, _LAST)
    text = summarize_transcript(s.messages)
    pending, work, step = section(text, 7), section(text, 8), section(text, 9)
    assert "nothing is pending" not in text, text
    assert "Found lost and not redone (section 3 shows each lost change" in pending, pending
    assert f"how it was found; re-add it if still wanted): {_TS}, {_HBS}" in pending, pending
    assert "awaiting the user's verification" in pending and "Try refreshing" in pending
    assert f"unverified: {_OTHER}" in pending, pending
    assert "The latest request was answered, awaiting the user's verification" in work, work
    assert "awaiting the user's verification" in step and _TS in step, step
    assert "re-add them" in step, step


def test_a_whole_read_without_the_new_lines_marks_the_edit_lost() -> None:
    """A Read of the whole file whose result lacks every new line of the edit; a read of a part
    (offset/limit) proves nothing."""
    s = SessionBuilder()
    _edited(s)
    s.call("Read", {"file_path": _TS, "offset": 1, "limit": 2}, "   1→export default class")
    partial = section(summarize_transcript(s.messages), 3)
    assert "found lost" not in partial, partial
    s.call("Read", {"file_path": _TS}, "   1→export default class TableView {\n   2→}")
    files = section(summarize_transcript(s.messages), 3)
    assert "then found lost: a later whole read of it lacks `get isRefreshing(): boolean {`" in (
        files
    ), files


def test_the_assistant_saying_a_component_lost_its_changes_marks_its_files() -> None:
    """No check at all, only "all my changes to the ledger component were lost": the files under
    ``ledger/`` are lost, the file outside it is not."""
    s = SessionBuilder()
    _edited(s)
    s.user("the summary card never updates")
    s.call(
        "Edit", {"file_path": _OTHER, "old_string": "@alias('x')", "new_string": "get x() {}"},
        f"The file {_OTHER} has been updated.",
    )  # fmt: skip
    s.say("It seems all my changes to the ledger component were lost. The card is fixed.")
    files = section(summarize_transcript(s.messages), 3)
    assert files.count("then found lost: the assistant said") == 2, files
    assert "found lost" not in files[files.index(_OTHER) :], files


def test_text_written_again_after_the_check_is_not_lost() -> None:
    """The agent re-added the getter after the empty grep: the file holds it again."""
    s = SessionBuilder()
    _edited(s)
    s.call("Bash", {"command": f'grep -n "isRefreshing" {_TS}'}, "")
    s.say("The changes were lost. Let me re-add them.")
    s.call(
        "Edit", {"file_path": _TS, "old_string": "}", "new_string": _GETTER + "\n}"},
        f"The file {_TS} has been updated.",
    )  # fmt: skip
    s.say("Re-added the getter.")
    text = summarize_transcript(s.messages)
    files = section(text, 3)
    assert "found lost" not in text and "latest change:" in files, files
    assert f"Fixed: a later `Edit({_TS})` succeeded" in section(text, 4)


def test_a_grep_after_the_text_was_removed_on_purpose_is_not_a_loss() -> None:
    """A later edit took the getter out; the grep that finds no ``isRefreshing`` confirms it."""
    s = SessionBuilder()
    _edited(s)
    s.call(
        "Edit", {"file_path": _TS, "old_string": _GETTER + "\n}", "new_string": "}"},
        f"The file {_TS} has been updated.", text="Removing the getter, the template does it:",
    )  # fmt: skip
    s.call("Bash", {"command": f'grep -n "isRefreshing" {_TS}'}, "")
    s.say("The getter is gone from the component, as intended.")
    text = summarize_transcript(s.messages)
    assert "found lost" not in text, section(text, 3)


def test_an_answer_that_asks_the_user_to_test_awaits_verification() -> None:
    s = SessionBuilder()
    s.user("the spinner never goes away")
    s.call(
        "Edit", {"file_path": _OTHER, "old_string": "@alias('x')", "new_string": "get x() {}"},
        f"The file {_OTHER} has been updated.",
    )  # fmt: skip
    s.say("Changed the alias to a getter, which Glimmer tracks. Give it a try and let me know!")
    text = summarize_transcript(s.messages)
    assert ANSWERED not in text and "nothing is pending" not in text, text
    pending = section(text, 7)
    assert "awaiting the user's verification" in pending and f"unverified: {_OTHER}" in pending
    assert "None for now: the last request was answered, awaiting the user's verification" in (
        section(text, 9)
    )


def test_an_answer_the_user_then_confirmed_is_answered() -> None:
    """The user tested and confirmed, the assistant closed: nothing awaits verification."""
    s = SessionBuilder()
    s.user("the spinner never goes away")
    s.call(
        "Edit", {"file_path": _OTHER, "old_string": "@alias('x')", "new_string": "get x() {}"},
        f"The file {_OTHER} has been updated.",
    )  # fmt: skip
    s.say("Changed the alias to a getter. Try it now!")
    s.user("works now, thanks")
    s.say("Glad it works: the getter reads the tracked state directly.")
    text = summarize_transcript(s.messages)
    assert "verification" not in text, text
    assert f"None: {ANSWERED}" in section(text, 9)


def test_an_earlier_summary_pending_task_whose_work_was_lost_stays_pending() -> None:
    """bh-compact: Claude Code's own summary's "Add the inline indicator – in progress" was
    said to be "Pending in the earlier summary (some may be done since)" next to "nothing is
    pending"; its work was done, then found lost."""
    earlier = (
        "This session is being continued from a previous conversation that ran out of context. "
        "The summary below covers the earlier portion of the conversation.\n\nSummary:\n"
        "1. Primary Request and Intent:\n   Show sync progress.\n"
        "7. Pending Tasks:\n   1. **Add refresh indicator to the ledger table** - In progress\n"
        "8. Current Work:\n   Searching for the ledger table component.\n"
    )
    s = SessionBuilder()
    s.user(earlier, **{CONTENT_TYPE_KEY: "summary"})
    _edited(s)
    _lost_then_answered(s, _LAST)
    pending = section(summarize_transcript(s.messages), 7)
    assert "Pending from the earlier summary, not seen completed" in pending, pending
    assert "Add refresh indicator to the ledger table" in pending, pending
    assert "nothing is pending" not in pending and "some may be done since" not in pending


def test_a_check_after_a_command_that_rewrote_the_file_is_not_a_loss() -> None:
    """``git checkout -- FILE`` between the edit and the grep: the file was put back on purpose,
    so the empty grep says nothing about a lost edit."""
    s = SessionBuilder()
    _edited(s)
    s.call("Bash", {"command": f"git checkout -- {_TS}"}, "", text="Reverting the getter:")
    s.call("Bash", {"command": f'grep -n "isRefreshing" {_TS}'}, "")
    s.say("The getter is out of the component again.")
    text = summarize_transcript(s.messages)
    assert "found lost" not in text, section(text, 3)


def test_a_loss_found_in_the_kept_tail_is_a_loss_in_section_3() -> None:
    """Hybrid keeps the newest rounds verbatim after the summary: the grep that found the
    template's block missing was in the kept tail, so section 7 called the file lost while
    section 3 (the summarized part) still showed the block as its latest change."""
    from compactor.counting.tokens import estimate_message
    from compactor.models.local import _summary

    s = SessionBuilder()
    _edited(s)
    _lost_then_answered(s, _LAST)
    cut = max(i for i, m in enumerate(s.messages) if "grep" in str(m) and i < len(s.messages) - 2)
    assert "ledger-refresh-indicator" in str(s.messages[cut])  # the template's check: kept
    head, tail = s.messages[:cut], s.messages[cut:]
    text = _summary(head, sum(map(estimate_message, head)), "", tail)
    files = section(text, 3)
    hbs = files[files.index(_HBS) :]
    assert "then found lost: a later grep found no `ledger-refresh-indicator`" in hbs, files
    assert "latest change:" not in hbs.split("\n   - ", 1)[0], files
    assert "awaiting the user's verification" in section(text, 7), section(text, 7)


def test_work_said_lost_in_the_final_stretch_without_a_file_is_pending() -> None:
    """The assistant says its work was lost and needs redoing, naming no file it changed, and
    nothing redoes it: not "nothing is pending"."""
    s = SessionBuilder()
    s.user("why is the migration branch empty?")
    s.call("Bash", {"command": "git log --oneline -3 migration"}, "a1b2c3 reset to main")
    s.say("The branch was reset to main, so my migration changes were lost. They need redoing.")
    text = summarize_transcript(s.messages)
    assert "nothing is pending" not in text, text
    pending = section(text, 7)
    assert "The assistant said work was lost and no later call redid it:" in pending, pending
    assert "my migration changes were lost" in pending, pending
    assert "the work the assistant said was lost (section 7); redo it" in section(text, 9)


def test_work_said_not_lost_is_no_loss() -> None:
    s = SessionBuilder()
    s.user("did the reset drop my work?")
    s.call("Bash", {"command": "git stash list"}, "stash@{0}: WIP on migration")
    s.say("No, your changes were not lost: they are in stash@{0}.")
    text = summarize_transcript(s.messages)
    assert "lost and no later call" not in text and f"None: {ANSWERED}" in section(text, 9)


def test_changes_gone_because_the_user_asked_are_no_loss() -> None:
    """ "Revert the ledger changes" answered with "the changes to the ledger component were
    reverted": gone on purpose; and "the work … is complete and the shim is gone" says nothing
    was lost."""
    s = SessionBuilder()
    _edited(s)
    s.user("revert the ledger changes, we will do it differently")
    s.call("Bash", {"command": "git checkout -- app/components"}, "")
    s.say("Done: the changes to the ledger component were reverted.")
    text = summarize_transcript(s.messages)
    assert "found lost" not in text and "was lost" not in text, section(text, 3)
    s = SessionBuilder()
    s.user("finish the parser")
    s.call("Bash", {"command": "pytest -q"}, "12 passed")
    s.say("The work on the parser is complete and the legacy shim is gone.")
    text = summarize_transcript(s.messages)
    assert "lost" not in section(text, 7) and f"None: {ANSWERED}" in section(text, 9)


def test_a_claim_of_the_change_later_found_lost_says_so() -> None:
    """bh-compact §5 listed "I've added the inline loading indicator to the transactions list."
    among the results, with nothing saying the change was lost."""
    s = SessionBuilder()
    _edited(s)
    _lost_then_answered(s, _LAST)
    solving = section(summarize_transcript(s.messages), 5)
    claim = "Later found lost (section 3): I've added the refresh indicator to the ledger table."
    assert claim in solving, solving
    s = SessionBuilder()
    _edited(s)
    s.say("All set.")
    assert "Later found lost" not in summarize_transcript(s.messages)
