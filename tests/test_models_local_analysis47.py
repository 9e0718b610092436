"""Facts only the ``Analysis`` half of Claude Code's own summary holds (blind checks 43, 44).

Claude Code's summary is an ``Analysis:`` walk, then ``Summary:`` with numbered sections. The
local summary quoted only the sections, so a branch, a commit and a test count that only the
walk named were lost (cc-reef: ``ENGOPS-1-chat-refactor-spike``, ``78d5aedbb5``, "334 specs
passed"; cc-dxos: ``EMPTY_MEMBERS``). Now section 2 keeps the walk's lines that name something
exact the sections never name, and no others. Sessions are invented, built here.
"""

from __future__ import annotations

from pathlib import Path

from compactor.models.local_analysis import _tokens

from .cc_session import Session, cc_summary
from .test_models_local_session import section

OWN = """This session is being continued from a previous conversation that ran out of context. \
The conversation is summarized below:
Analysis:
Let me chronologically analyze the conversation.

1. **First User Message**: "review the staffer channel code"
   - Material issue: unique_staffers returns channels, not staffers
   - Renamed unique_staffers to one_channel_per_staffer in two files
   - Committed as 7a1c9e40b2
2. **Switched to new branch**: ORB-7-channel-refactor-spike off main
   - Ran the model specs: 334 specs passed
   - Fixed the re-render loop with an EMPTY_MEMBERS constant in useMembers
   - The user wants the summary to be accurate and complete.

Summary:
1. Primary Request and Intent:
   Refactor the staffer channel list into a first-class collection.
2. Key Technical Concepts:
   - First-class collections, Law of Demeter
3. Files and Code Sections:
   - app/models/chat/staffer_channel_list.rb (new)
7. Pending Tasks:
   - Open the pull request for the refactor.
8. Current Work:
   Writing app/models/chat/staffer_channel_list.rb.
9. Optional Next Step:
   Open the pull request.
"""


def _session() -> Session:
    s = Session()
    s.user("review the staffer channel code")
    s.say("Looking at it.")
    s.compacted(OWN)
    s.user("go on with the refactor")
    s.call(
        "Read",
        {"file_path": "/home/dev/orb/app/models/chat/staffer_channel_list.rb"},
        "1\tmodule Chat",
    )
    return s


def test_the_walks_exact_facts_are_kept_in_section_2(tmp_path: Path) -> None:
    concepts = section(cc_summary(_session(), tmp_path), 2)
    assert "analysis" in concepts, concepts
    for fact in (
        "ORB-7-channel-refactor-spike",
        "7a1c9e40b2",
        "334 specs passed",
        "one_channel_per_staffer",
        "EMPTY_MEMBERS",
    ):
        assert fact in concepts, (fact, concepts)


def test_lines_with_nothing_new_or_the_users_words_are_left_out(tmp_path: Path) -> None:
    concepts = section(cc_summary(_session(), tmp_path), 2)
    assert "accurate and complete" not in concepts, concepts  # nothing exact in it
    assert "review the staffer channel code" not in concepts, concepts  # the user's words


def test_a_summary_without_an_analysis_half_adds_nothing(tmp_path: Path) -> None:
    s = Session()
    s.user("hi")
    s.compacted(OWN.split("Analysis:", 1)[0] + "Summary:" + OWN.split("Summary:", 1)[1])
    s.user("go on")
    assert "analysis" not in section(cc_summary(s, tmp_path), 2)


def test_tokens_are_exact_names_not_words() -> None:
    assert _tokens("sum/average and JavaScript files") == set()
    assert _tokens("on feat/phase-12-mfa at 4489dbfd44, ran `make e2e`") == {
        "feat/phase-12-mfa",
        "4489dbfd44",
        "make e2e",
    }
