"""Blind check 45, W1 and W6 (issue 28).

W1: a bare "3" answered a message with two numbered lists (what the code does now, then
"**Options:**") and was resolved against the first, so "No structured logging" was "Accepted by
the user" although the user chose "Add structured logging". W6: a plan written in a turn that
ended with a final answer was shown as open items ("0 of 4 done") after the user's next,
different request."""

from __future__ import annotations

from compactor.facts import entry_of
from compactor.models.local import summarize_transcript
from compactor.models.local_optlist import offer_scope
from compactor.pipeline.plan_block import plan_reminder
from compactor.schema import AgenticMessage

from .planted_session import SessionBuilder
from .test_models_local_session import section

_TWO_LISTS = (
    "Here is how the cleanup command works today:\n\n"
    "1. **Preview mode**: lists the items with their reason\n"
    "2. **Force mode**: deletes without asking\n"
    "3. **No structured logging**: No slog calls anywhere in cleanup code\n\n"
    "**Options:**\n"
    "1. **Remove Reason** - drop the field entirely\n"
    "2. **Display Reason in preview** - show it next to each item\n"
    "3. **Add structured logging** - For audit trail / debugging\n\n"
    "Which would you like?"
)


def _reply_session(reply: str) -> str:
    s = SessionBuilder()
    s.user("is the Reason field of the cleanup items used anywhere?")
    s.call(
        "Bash", {"command": "grep -rn Reason cmd/cleanup.go"}, "cmd/cleanup.go:12: Reason string"
    )
    s.say(_TWO_LISTS)
    s.user(reply)
    s.call("Read", {"file_path": "/repo/cmd/cleanup.go"}, "package cmd\n")
    return summarize_transcript(s.messages)


def test_a_bare_number_picks_from_the_options_list_not_the_description_above() -> None:
    summary = _reply_session("3")
    assert "Add structured logging" in section(summary, 1), section(summary, 1)
    assert "3: No structured logging" not in summary, section(summary, 1)
    assert "Accepted by the user: **No structured logging**" not in summary


def test_the_scope_is_the_list_a_heading_introduces_or_the_last_list() -> None:
    assert offer_scope(_TWO_LISTS).startswith("**Options:**")
    no_heading = _TWO_LISTS.replace("**Options:**\n", "Then:\n")
    assert offer_scope(no_heading).startswith("1. **Remove Reason**")
    one = "1. Keep it\n2. Drop it\n\nWhich one?"
    assert offer_scope(one) == one
    first = "Options:\n1. Keep\n2. Drop\n\nSteps after that:\n1. build\n2. test\n\nPick one."
    assert offer_scope(first).startswith("Options:")


# -- W6: a plan of an answered turn is no list of open items ---------------------------------------

_STEPS = ["修正投资人文档的现状表述", "修正技术文档的编排决策", "修正可疑链接", "复核修改后的文档"]
_ANSWER = (
    "已完成修改：\n1. 投资人文档区分了现状与目标态\n2. 技术文档把 Airflow 定为主线\n"
    "3. 替换了可疑链接\n4. 补充了许可证备注\n5. 复核了两份文档"
)


def _docs_session(new_request: bool) -> list[AgenticMessage]:
    s = SessionBuilder()
    s.user("按评审意见修正 docs/investor.md 和 docs/tech.md")
    plan = [
        {"step": x, "status": "in_progress" if i == 0 else "pending"} for i, x in enumerate(_STEPS)
    ]
    s.call("update_plan", {"plan": plan}, "Plan updated")
    for name in ("investor", "tech"):
        s.call("apply_patch", {"input": f"*** Update File: docs/{name}.md\n+x"}, "Success.")
    s.call("shell_command", {"command": "cat docs/investor.md"}, "# Investor")
    s.say(_ANSWER)
    if new_request:
        s.user("我把两份文档移到了 docs/final/ 下，请提交这些改动")
        s.call("shell_command", {"command": "git status --short"}, "?? docs/final/")
    return s.messages


def test_a_plan_of_an_answered_turn_is_no_open_items() -> None:
    summary = summarize_transcript(_docs_session(new_request=True))
    pending = section(summary, 7)
    assert "Open items of the agent's task list" not in pending, pending
    assert "[pending] 修正可疑链接" not in pending, pending
    assert "belongs to an earlier turn that ended with an answer" in pending, pending


def test_the_reminder_shows_an_answered_turn_s_plan_as_such() -> None:
    entries = [entry_of(i, m) for i, m in enumerate(_docs_session(new_request=True))]
    block = plan_reminder(entries, list, 4_000)
    assert block is not None and "of an earlier, answered turn" in block[0], block
    assert "latest plan" not in block[0], block
    current = [entry_of(i, m) for i, m in enumerate(_docs_session(new_request=False)[:-1])]
    block = plan_reminder(current, list, 4_000)
    assert block is not None and "latest plan" in block[0], block


def test_a_plan_of_the_current_turn_stays_open() -> None:
    s = SessionBuilder()
    s.user("按评审意见修正 docs/investor.md 和 docs/tech.md")
    plan = [
        {"step": x, "status": "in_progress" if i == 0 else "pending"} for i, x in enumerate(_STEPS)
    ]
    s.call("update_plan", {"plan": plan}, "Plan updated")
    s.say("Which document first, investor or tech?")
    s.user("investor")
    s.call("apply_patch", {"input": "*** Update File: docs/investor.md\n+x"}, "Success.")
    pending = section(summarize_transcript(s.messages), 7)
    assert "Open items of the agent's task list (update_plan; 0 of 4 done)" in pending, pending
