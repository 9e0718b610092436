"""Blind check 10's noise in the local summary (issue 28 point 6, noise9), each kind on a session
built here by shape: IDE markup quoted as the request, the current request quoted in five
sections, re-sent messages listed three times, files misfiled (an IDE-opened file "named by the
user, never by a call", a read file spelt another way, pasted ``node_modules`` paths, shell
redirections and globs "deleted", an edit's echo "printed"), a sub-agent's usage footer hiding
its API error."""

from __future__ import annotations

import asyncio
import json

import pytest

from compactor.models.local import summarize_transcript
from compactor.pipeline.finalize import (
    PreserveSkillsConfig,
    new_finalizer,
    replace_user_block,
    select_user_messages,
)
from compactor.pipeline.skill_focus import EMBEDDED_HEAD
from compactor.pipeline.user_block import CURRENT_NOTE
from compactor.schema import AgenticMessage, Block, Message, ToolCall, make_assistant

from .planted_session import SessionBuilder
from .test_models_local_session import section

_OPENED = (
    "<ide_opened_file>The user opened the file e:\\AI\\proj\\.claude\\hooks\\stop_check.py in "
    "the IDE. This may or may not be related to the current task.</ide_opened_file>"
)
_SELECTED = (
    "<ide_selection>The user selected the lines 172 to 172 from \\temp\\readonly\\TaskOutput "
    "tool output (jr3fch):\n  email: desk@example.org\n\nThis may or may not be related to the "
    "current task.</ide_selection>"
)


def _typed(*texts: str) -> AgenticMessage:
    """A user message as the IDE extension sends it: its blocks, markup first."""
    return AgenticMessage("user", [Block("user_input_text", t) for t in texts])


def test_ide_markup_is_context_not_the_request() -> None:
    """a33-copy quoted ``<ide_opened_file>… stop_check.py …</ide_opened_file>`` + the request
    five times and listed the open file as "Named by the user, never by a call"; a33-hooks'
    "Initial request" was an ``<ide_selection>`` block."""
    s = SessionBuilder()
    s.messages.append(_typed(_SELECTED, "why are there so many 429s? read slower?"))
    s.call("Bash", {"command": "grep -c 429 crawl.log"}, "312")
    s.messages.append(_typed(_OPENED, "collect every chat log into D:\\logs and build a board"))
    s.call("Bash", {"command": "ls D:/logs"}, "a.jsonl\nb.jsonl")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert "<ide_" not in text and "may or may not be related" not in text, text
    assert 'Initial request: "why are there so many 429s? read slower?"' in intent, intent
    assert "desk@example.org" not in text, text
    note = "(with e:\\AI\\proj\\.claude\\hooks\\stop_check.py open in the IDE)"
    assert intent.count(note) == 1 and section(text, 3).count(note) == 0, text
    assert f'build a board" {note}' in intent, intent  # the user's words quoted, not the note
    assert "never by a call" not in section(text, 3), section(text, 3)


@pytest.mark.anyio
async def test_ide_markup_is_not_re_inserted_among_the_user_messages() -> None:
    history = [_typed(_OPENED), _typed(_OPENED, "port the parser"), _typed(_SELECTED)]
    kept, dropped = await select_user_messages(history, 10_000, None, 1_500)
    typed = "port the parser (with e:\\AI\\proj\\.claude\\hooks\\stop_check.py open in the IDE)"
    assert kept == [typed], kept
    assert not dropped
    long = "port the parser to rust, keeping the error messages and the CLI flags exactly as now"
    history = [_typed(_OPENED, long)]
    kept, _ = await select_user_messages(history, 10_000, None, 1_500)
    summary = f'1. Current request: "{long}" (with e:\\AI\\x open in the IDE)\n<all_user_messages>'
    block = replace_user_block(summary + "\n</all_user_messages>", kept, False)
    assert f"    - {CURRENT_NOTE}" in block, block  # the quote is found without the note


_LONG = (
    "collect every Claude and Codex chat log on drives D and E into D:\\logs, then build a "
    "small local HTML board that says what each chat is about and when it happened"
)


def test_the_current_request_is_quoted_once_and_referred_to_after() -> None:
    """a33-copy: the same request quoted in sections 1, 6, 7, 8 and 9."""
    s = SessionBuilder()
    s.user(_LONG)
    s.call("Bash", {"command": "find /d -name '*.jsonl' | head"}, "/d/x/a.jsonl")
    s.call("Bash", {"command": "cp /d/x/a.jsonl D:/logs/"}, None)  # in flight
    text = summarize_transcript(s.messages)  # (section 6 is the finalizer's: tested below)
    quoted = [section(text, n).count("small local HTML board") for n in (1, 2, 3, 4, 5, 7, 8, 9)]
    assert quoted == [1, 0, 0, 0, 0, 0, 0, 0], text
    assert f'Initial request: "{_LONG}" (the current request)' in section(text, 1)
    for number in (7, 8, 9):
        assert "the current request (section 1)" in section(text, number), section(text, number)


def test_a_short_current_request_is_still_quoted_where_it_is_named() -> None:
    s = SessionBuilder()
    s.user("fix the flaky test")
    s.call("Bash", {"command": "pytest -x tests/test_io.py"}, None)
    text = summarize_transcript(s.messages)
    assert 'continue the latest request: "fix the flaky test"' in section(text, 9), text


def test_a_message_sent_again_is_listed_once() -> None:
    """hive-compact: "Ok so kill -15 …" ×2 and "Ok some comments …" ×3 (the user interrupted
    and sent an edited version again)."""
    head = "Ok some comments: - the 'no per-project opt-out' language is reasoning, not a " + (
        "decision; collaborators also need an invitation to the repository "
    )
    s = SessionBuilder()
    s.user("first, list the hook events")
    s.say("Done: SessionStart, SessionEnd, PreCompact.")
    s.user(head + "- also")
    s.user(head + "- also add web support to the future list")
    s.user(head + "- also add web support to the future list - and delete test-hooks")
    s.say("I'll update the plan.")
    s.user("Great! Please commit")
    text = summarize_transcript(s.messages)
    intent = section(text, 1)
    assert intent.count("Ok some comments") == 1, intent
    assert 'and delete test-hooks" (sent 3 times, edited; the last version)' in intent, intent
    assert 'Current request: "Great! Please commit"' in intent, intent


@pytest.mark.anyio
async def test_the_user_block_counts_re_sends_and_refers_to_the_quoted_request() -> None:
    def user(text: str) -> AgenticMessage:
        return AgenticMessage("user", [Block("user_input_text", text)])

    history = [user("please continue"), user("please continue"), user("ok"), user(_LONG)]
    history.insert(2, user("please continue"))
    kept, _ = await select_user_messages(history, 10_000, None, 1_500)
    assert kept == ["please continue (sent 3 times)", "ok", _LONG], kept
    summary = f'<summary>\n1. Current request: "{_LONG}"\n<all_user_messages>\n</all_user_messages>'
    block = replace_user_block(summary, kept, False)
    assert f"    - {CURRENT_NOTE}" in block and block.count("small local HTML board") == 1, block
    unquoted = replace_user_block("<all_user_messages>\n</all_user_messages>", kept, False)
    assert f"    - {_LONG}" in unquoted, unquoted  # never quoted above: kept verbatim


def test_files_are_compared_by_path_not_spelling_and_fragments_are_not_files() -> None:
    """a33-hooks: "never by a call: e:\\AI\\…\\AGENTS.md" though it was read, "2>/dev/null
    (deleted by Bash)", "reports/kp-pipeline-s1-* (deleted by Bash)"; hive-interrupt:
    ``node_modules`` ``cli.js`` paths from a pasted ``find``, "Edit(…) (the last action)
    printed cli.js"."""
    s = SessionBuilder()
    s.user(
        "follow e:\\AI\\proj\\AGENTS.md; my find printed:\n"
        "/home/u/hive/node_modules/browserslist/cli.js\n/home/u/hive/plugins/mind/cli.js"
    )
    s.call("Read", {"file_path": "E:/AI/proj/AGENTS.md"}, "# Rules\n- reports go to reports/")
    s.call(
        "Bash",
        {"command": "rm -f reports/kp-s1-* data/queue.json 2>/dev/null; echo done"},
        "done",
    )
    s.call(
        "Edit",
        {"file_path": "/home/u/hive/docs/plan.md", "old_string": "a", "new_string": "b"},
        "The file /home/u/hive/docs/plan.md has been updated. Here's the result of running "
        "`cat -n`:\n    12→ - Bash(bun ${ROOT}/cli.js index:*)\n    13→ - run cli.js read",
    )
    text = summarize_transcript(s.messages)
    files = section(text, 3)
    assert "never by a call" not in files, files
    assert "node_modules" not in files, files
    assert "files matching reports/kp-s1-* (deleted by Bash)" in files, files
    assert "data/queue.json (deleted by Bash)" in files, files
    assert "/dev/null" not in files, files
    assert "printed `cli.js`" not in text and "printed cli.js" not in text, text


def test_a_sub_agent_api_error_is_not_hidden_by_its_usage_footer() -> None:
    """a33-hooks: "Agent(…claude-code-guide…) → returned: tool_uses: 0" though the result
    said "API Error: 400 Param Incorrect"."""
    s = SessionBuilder()
    s.user("how does Claude Code know how much context is left?")
    s.call(
        "Agent",
        {"subagent_type": "claude-code-guide", "prompt": "How does Claude Code count context?"},
        "API Error: 400 Param Incorrect\nagentId: ab4cbf072183f59bd (use SendMessage to "
        "continue)\n<usage>total_tokens: 0\ntool_uses: 0\nduration_ms: 1297</usage>",
    )
    text = summarize_transcript(s.messages)
    work, step = section(text, 8), section(text, 9)
    assert "returned an error: API Error: 400 Param Incorrect" in work, work
    assert work.count("API Error") == 1 and "returned an error: API Error: 400" in step, text
    assert "tool_uses" not in text and "agentId" not in text, text


def _skill_session() -> list[Message]:
    """Three skills loaded for an earlier request, one for the current request's last round."""
    msgs: list[Message] = [Message(role="user", content="build the plugin agents")]
    for i, name in enumerate(["dev:agent", "dev:hook", "dev:skill", "mind:retrieval"]):
        if i == 3:
            msgs.append(Message(role="user", content="now search the past sessions for the format"))
        call = ToolCall(f"c{i}", "skill", json.dumps({"skill": name}))
        msgs.append(Message(role="assistant", content="", tool_calls=[call]))
        body = f"Base directory for this skill: /p/skills/{name}\n\nBODY{i} " + "w " * 3_000
        msgs.append(Message(role="tool", content=body, tool_call_id=f"c{i}"))
        msgs.append(Message(role="assistant", content=f"Loaded {name}."))
    return msgs


def test_the_embedded_summary_keeps_only_the_current_work_skills_verbatim() -> None:
    """hive-interrupt: 18.5k tokens, ~1,900 lines of them four skill bodies no step of the
    current request used."""
    history = _skill_session()
    finalize = new_finalizer().preserve_durable(PreserveSkillsConfig()).build()
    embedded = make_assistant(Message, summarize_transcript(history))
    assert embedded.content.startswith(EMBEDDED_HEAD)
    text = asyncio.run(finalize(history, embedded))[0].content
    assert "BODY3" in text and "### Skill: mind:retrieval" in text, text[:3000]
    assert all(f"BODY{i}" not in text for i in range(3)), text[:3000]
    for name in ("dev:agent", "dev:hook", "dev:skill"):
        assert f"- {name}: /p/skills/{name}/SKILL.md" in text, text[:3000]
    remote = make_assistant(Message, "<summary>S</summary>")  # SPEC §5.3: every skill kept
    kept = asyncio.run(finalize(history, remote))[0].content
    assert all(f"BODY{i}" in kept for i in range(4)) and "bodies not repeated" not in kept
