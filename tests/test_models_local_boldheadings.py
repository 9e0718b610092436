"""Claude Code's own summary with bold section headings (blind check 40, W2; RELIABILITY rows
1870-1889): ``7. **Pending Tasks** (from the todo list):`` (a parenthesis after the bold title)
and ``**7. Pending Tasks**`` (the number inside the bold) start a section like ``7. Pending
Tasks:``, so the pending list is no part of section 6 ("All user messages") and is quoted in
section 7 with its "(some may be done since)" hedge. The sessions are built here."""

from __future__ import annotations

import pytest

from compactor.models.local_text import prior_sections, prior_users

from .cc_session import Session

PHASE = "Phase 1.2: add the lookup of a user by mail address"


def _own_summary(heading: str) -> str:
    return (
        "This session is being continued from a previous conversation that ran out of context. "
        "The conversation is summarized below:\nAnalysis:\nThe user asked for room codes.\n\n"
        "Summary:\n1. **Primary Request and Intent**:\n   Let students join a room by code.\n\n"
        "2. **Key Technical Concepts**:\n   - eight-character room codes\n\n"
        "3. **Files and Code Sections**:\n   - src/room.ts (edited)\n\n"
        "4. **Errors and fixes**:\n   - none\n\n5. **Problem Solving**:\n   Codes settled.\n\n"
        '6. **All user messages**:\n   - "Add room codes"\n   - "Go on with the plan"\n\n'
        f"{heading}\n   - **{PHASE}**\n   - **Phase 4**: integration tests\n\n"
        "8. **Current Work**:\n   Writing the join page.\n\n9. **Optional Next Step**:\n"
        "   Write the join page script.\n"
        "Please continue the conversation from where we left it off without asking the user "
        "any further questions. Continue with the last task that you were asked to work on."
    )


HEADINGS = [
    "7. **Pending Tasks** (from todo list and implementation plan):",
    "7. **Pending Tasks**:",
    "## 7. **Pending Tasks**",
    "**7. Pending Tasks**",
    "**7. Pending Tasks:**",
    "### 7. Pending Tasks",
]


@pytest.mark.parametrize("heading", HEADINGS)
def test_a_bold_heading_starts_its_section(heading: str) -> None:
    sections = prior_sections(_own_summary(heading))
    assert sorted(sections) == list(range(1, 10)), sorted(sections)
    assert PHASE in sections[7]
    assert "Pending" not in sections[6] and PHASE not in sections[6]
    assert prior_users(_own_summary(heading)) == ["Add room codes", "Go on with the plan"]


def test_the_pending_list_is_hedged_not_glued_into_the_user_messages() -> None:
    s = Session()
    s.compacted(_own_summary(HEADINGS[0]))
    s.call("Edit", {"file_path": "src/join.ts", "old_string": "a", "new_string": "b"}, "ok")
    s.call("Bash", {"command": "npm test"}, "12 passed")
    summary = s.summary()
    users = summary.split("\n6. ", 1)[1].split("\n7. ", 1)[0]
    assert PHASE not in users and "Pending Tasks" not in users, users
    pending = " ".join(summary.split("\n7. ", 1)[1].split("\n8. ", 1)[0].split())
    assert PHASE in pending and "some may be done since" in pending, pending
