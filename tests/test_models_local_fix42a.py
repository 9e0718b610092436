"""The dialogue's state at the end (BENCH41 W5, W6, W10; BENCH42 W1, W6): sessions built by shape
with invented content."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .cc_session import Session, cc_summary


def _section(summary: str, number: int) -> str:
    body = summary.split("<summary>", 1)[-1]
    found = re.search(rf"\n{number}\. .*?(?=\n{number + 1}\. |\n</summary>|\Z)", body, re.S)
    assert found is not None, summary
    return found.group(0)


def _failed_run(final: str) -> Session:
    s = Session()
    s.user("Run the mail workflow once and check whether the mail gets sent.")
    s.bash(
        "curl -s -X POST http://localhost:5678/webhook/send-test",
        '{"message":"Workflow could not be started: Email node has no credentials"}',
    )
    s.call(
        "TodoWrite",
        {"todos": [{"content": "Write the quality checklist", "status": "in_progress"}]},
        "Todos have been modified successfully.",
    )
    s.say(final)
    return s


_OPTIONS_EN = (
    "The webhook test sent no mail: the Email node has no SMTP credentials, and the local "
    "MAIL_API_KEY is not set.\n\n"
    "Option A: give me the real local `MAIL_API_KEY`, then I bootstrap the workflow and run the "
    "email-only test.\n"
    "Option B: set up the Email node's from/to/SMTP in the UI yourself, then I re-run the webhook "
    "test.\n\nPlease tell me which one you want, or send the key."
)
_OPTIONS_ZH = (
    "Webhook 測試沒有寄出郵件：Email 節點沒有 SMTP 憑證，本機的 MAIL_API_KEY 也沒有設定。\n\n"
    "選項 A：提供本機真正的 `MAIL_API_KEY`，我再執行只寄信的測試。\n"
    "選項 B：在 UI 設定 Email 節點的 from/to/SMTP，然後我重新跑 webhook 測試。\n\n"
    "請告訴我 MAIL_API_KEY（或選擇 B）。"
)


_OPTIONS_THEN_QUESTION = (
    "The run failed: no SMTP credentials.\n\nOption A: send me the key.\n"
    "Option B: configure the node yourself.\n\nWhich do you prefer?"
)
_LETTERS_THEN_ASK = (
    "The run failed: no SMTP credentials.\n\nA) send me the key\n"
    "B) configure the node yourself\n\nLet me know which one."
)


@pytest.mark.parametrize(
    "final",
    [_OPTIONS_EN, _OPTIONS_ZH, _OPTIONS_THEN_QUESTION, _LETTERS_THEN_ASK],
    ids=["english", "chinese", "options-then-question", "letters-then-ask"],
)
def test_a_closing_choice_waits_for_the_users_answer(final: str, tmp_path: Path) -> None:
    """BENCH41 W5: a final answer that closes by offering options and asking the user to pick
    one (or send a key) ended waiting for the user: not "was completed", and section 9 waits
    for that answer (with the options), ahead of the stale task-list item."""
    out = cc_summary(_failed_run(final), tmp_path)
    assert "The latest request was completed" not in out
    assert "it waits for the answer" in _section(out, 8)
    step = _section(out, 9)
    assert "Wait for the user's answer to:" in step
    assert "(A) " in step and "(B) " in step
    assert "quality checklist" not in step


@pytest.mark.parametrize(
    "closing",
    [
        "If you want, I can tweak the task granularity; please tell me which phase to refine.",
        "Please share the log if the split looks wrong after a rebuild.",
    ],
    ids=["offer", "conditional"],
)
def test_a_closing_courtesy_offer_is_no_open_question(closing: str, tmp_path: Path) -> None:
    """A closing courtesy offer ("If you want, I can …") or an ask under a condition after the
    work is no question the turn waits on (BENCH40 N4): the request was completed."""
    s = Session()
    s.user("Split the tasks file into phases.")
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/tasks.md", "old_string": "# Tasks", "new_string": "# P1"},
        "The file has been updated.",
    )
    s.say(f"tasks.md is split into three phases.\n\n{closing}")
    out = cc_summary(s, tmp_path)
    assert "The latest request was completed" in out
    assert "Wait for the user's answer" not in out


_EXAMPLES = (
    "Here is how confidence should be used.\n\n"
    "C) Error Analysis\n"
    "```\n"
    "Correlation: Does confidence predict accuracy?\n"
    "  High (>0.8): 95% correct\n"
    "  Low (<0.5): 61% correct\n"
    "```\n\n"
    "D) Debugging Detectors\n"
    "```\n"
    "1. All sections detected with confidence 0.52-0.58\n"
    "2. Suggests the detector is uncertain about this track\n"
    "3. Investigate: unusual tempo? tempo drift?\n"
    "```\n\n"
    "E) Indented example\n\n"
    "    Should the threshold move?\n"
    "    1. raise it\n"
    "    2. lower it\n\n"
    "Without answering these, confidence becomes a number that is output but not actionable."
)


def test_a_question_inside_a_code_block_is_no_open_question(tmp_path: Path) -> None:
    """BENCH42 W1: the last line ending in "?" sat in a fenced example block, and the numbered
    lines of the next block were glued on as its options. Fenced and indented blocks are no
    prose addressed to the user: the answer asked nothing, the request was completed."""
    s = Session()
    s.user("Explain what the confidence score is for.")
    s.call("Read", {"file_path": "/home/dev/board/src/detect.py"}, "def detect():\n    pass\n")
    s.say(_EXAMPLES)
    out = cc_summary(s, tmp_path)
    assert "awaits an answer" not in out
    assert "Wait for the user's answer" not in out
    assert "The latest request was completed" in out


def _proposal(reply: str, proposal: str) -> Session:
    s = Session()
    s.user("Add a slide-in CTA to the article pages.")
    s.call("Read", {"file_path": "/home/dev/board/src/cta.ts"}, "export const CTAS = []")
    s.say(proposal)
    s.user(reply)
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/src/cta.ts", "old_string": "[]", "new_string": "[1]"},
        "The file has been updated.",
    )
    s.say("Done: cta.ts holds the short copy.")
    return s


def test_a_reply_that_amends_the_proposal_is_the_decision(tmp_path: Path) -> None:
    """BENCH41 W10: the user's reply took part of the proposal and negated the rest ("we're not
    putting the roles tag in there"): the user's words are the decision, not "Accepted by the
    user: <the options>"."""
    s = _proposal(
        "Ok. The slide-in copy will have to come from cta.ts. And we're not putting the roles "
        "tag in there – it's just marketing copy for now.",
        "The slide-in needs short copy. Options: (a) short marketing labels live in cta.ts, each "
        "declaring the role-* tag it maps to; (b) add an optional shortText to the engine's CTA "
        "type. I recommend (a). Which do you prefer?",
    )
    out = cc_summary(s, tmp_path)
    assert "Accepted by the user" not in out
    assert "Decided by the user, amending the proposal:" in out
    assert "we're not putting the roles tag in there" in _section(out, 5)


def test_a_line_of_options_is_never_accepted_whole(tmp_path: Path) -> None:
    """BENCH41 W10: "ok" after a sentence listing options (a) and (b) accepts neither whole."""
    s = _proposal(
        "ok go ahead",
        "The slide-in needs short copy.\n\nWe could go two ways, options (a) short marketing "
        "labels live in cta.ts, each declaring the role-* tag it maps to, or (b) add an optional "
        "shortText to the engine CTA type.",
    )
    out = cc_summary(s, tmp_path)
    assert "Accepted by the user: We could go two ways" not in out


_SEO_SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below:\nAnalysis:\nThe user asked for SEO metadata.\n\n"
    "Summary:\n1. Primary Request and Intent:\n   Add SEO metadata to the site.\n\n"
    "7. Pending Tasks:\n"
    "   - Save the OG image to /public/og-image.png\n"
    "   - Update app/layout.tsx to include the new metadata:\n"
    '     - Change title to "Acme | Fast Widgets"\n'
    "     - Change description to the full meta description provided\n"
    "     - Add openGraph object with title, description, images pointing to /og-image.png\n"
    "     - Optionally add twitter card metadata\n\n"
    "8. Current Work:\n   Preparing the metadata update.\n\n"
    "9. Optional Next Step:\n   Update app/layout.tsx.\n"
)


def test_pending_items_done_by_the_keys_a_later_edit_added(tmp_path: Path) -> None:
    """BENCH41 W6: one later Edit of the file the list is about set `description`, `openGraph`
    and `twitter`: those items (and their parent) are done since; the OG image a later `ls`
    found missing stays open."""
    s = Session()
    s.user("Add SEO metadata.")
    s.say("Working on it.")
    s.compacted(_SEO_SUMMARY)
    s.bash("ls public | grep -i og", "")
    old = 'export const metadata: Metadata = {\n  title: "Acme",\n  description: "Widgets",\n};'
    new = (
        'export const metadata: Metadata = {\n  title: "Acme | Fast Widgets",\n'
        '  description: "Fast widgets for everyone.",\n'
        '  openGraph: {\n    images: ["/og-image.png"],\n  },\n'
        '  twitter: {\n    card: "summary_large_image",\n  },\n};'
    )
    s.call(
        "Edit",
        {"file_path": "/home/dev/board/app/layout.tsx", "old_string": old, "new_string": new},
        "The file has been updated.",
    )
    s.say("I updated app/layout.tsx. The OG image is still missing from public/.")
    pending = _section(cc_summary(s, tmp_path), 7)
    done = pending.split("Of those, done by the calls after the earlier summary", 1)[1]
    for item in ("Change description", "Add openGraph object", "twitter card", "Update app/"):
        assert re.search(rf'"[^"]*{re.escape(item)}[^;]*done since', done), item
    assert "Save the OG image" not in done


def _edit(s: Session, name: str) -> None:
    path = f"/home/dev/dotfiles/{name}"
    edit = {"file_path": path, "old_string": "a", "new_string": "b"}
    s.call("Edit", edit, f"The file {path} has been updated.")


@pytest.mark.parametrize("later_request", [True, False], ids=["in-flight", "abandoned"])
def test_a_commit_in_a_call_that_never_returned_is_not_counted(
    later_request: bool, tmp_path: Path
) -> None:
    """BENCH42 W6: one commit returned its `[main 3cadca3]` line; the second `git commit` is
    in a call that never returned: in flight at the end for a later request, or left without
    result when the user moved on (the session then ended answered): "1 commit", never 2."""
    s = Session()
    s.user("Tweak the statusline.")
    s.say("Working on it.")
    s.compacted(
        _SEO_SUMMARY.replace(
            "   - Save the OG image to /public/og-image.png\n",
            "   - Commit changes to dotfiles repo\n",
        )
    )
    s.user("/ship dotfiles: commit the changes to the dotfiles repo and push")
    _edit(s, "statusline.sh")
    s.bash(
        'git add statusline.sh && git commit -m "statusline tweaks" && git push',
        "[main 3cadca3] statusline tweaks\n 1 file changed, 2 insertions(+)\nTo github.com:x/d.git",
    )
    if later_request:
        s.say("Committed and pushed as 3cadca3.")
        s.user("remove the unused scaffold commands")
        _edit(s, "commands/scaffold.md")  # (the latest request's work, not the item's)
    flying = {"command": 'git add -A && git commit -m "remove scaffold" && git push'}
    s.assistant([{"type": "tool_use", "id": "toolu_flying", "name": "Bash", "input": flying}])
    if not later_request:
        s.user("thanks, that is enough for today")
        s.say("Fine: 3cadca3 is pushed.")
    pending = _section(cc_summary(s, tmp_path), 7)
    assert "then 1 file changed, 1 commit, answered" in pending
