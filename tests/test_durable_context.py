"""Durable context kept verbatim in the compacted output of agent sessions (issue 28, point 4)
and long pasted user texts bounded (point 6): `compact run` on Claude Code and Codex sessions
keeps, by default and within PreserveSkills' budgets (5 texts, 5,000 tokens each, 25,000 in
all), the skills the agent loaded (the Skill tool, or a ``SKILL.md`` read with a shell
command), the instruction files the CLI injected (CLAUDE.md, AGENTS.md) and the latest plan;
earlier user messages over 1,500 characters keep their start and end with a pointer, a message
sent twice is kept once, and the current request stays whole. Other formats keep SPEC §5.2 as
written. No shared transcript loads a skill or carries an instruction file, so the sessions
here are synthetic, in each CLI's real record shapes (FORMATS.md)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from compactor.cli.app import app
from compactor.formats.registry import read_transcript
from compactor.pipeline.finalize import PreserveSkillsConfig, new_finalizer
from compactor.schema import Message, ToolCall, content_type, make_assistant, user_text

from .conftest import needs_shared, shared_file

CLAUDE_MD = (
    "# Repo rules\n\n- Run `make check` before every commit.\n- Never touch `vendor/`.\n"
    "- Money is integer cents, never floats."
)
SKILL_BODY = (
    "Base directory for this skill: /home/dev/.claude/skills/release-notes\n\n"
    "# Release notes\n\nGroup entries under Added / Fixed / Removed. One line each, past tense."
)
AGENTS_MD = "## Shop rules\n\n- Use `uv run pytest -q` for tests.\n- Prices are Decimal."
CODEX_SKILL = "---\nname: apply-grant\n---\n# Apply for a grant\n\n1. Run export-session.sh first."


LOG = "".join(f"{i:07x} fix: entry {i} of the changelog for the parser\n" for i in range(400))
"""A long tool output: the session is large enough that its compaction shrinks it."""


def _cc(n: int, rtype: str, content: Any, **extra: Any) -> str:
    rec = {
        "parentUuid": None if n == 1 else f"00000000-0000-4000-8000-{n - 1:012d}",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/repo",
        "sessionId": "s1",
        "version": "2.1.100",
        "type": rtype,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2026-01-12T10:00:{n:02d}.000Z",
        "message": {"role": rtype, "content": content},
        **extra,
    }
    if rtype == "assistant":
        rec["message"] |= {"id": f"msg_{n}", "type": "message", "model": "claude-sonnet-4-5"}
    return json.dumps(rec)


def _claude_code_session(path: Path) -> Path:
    reminder = (
        "<system-reminder>\nAs you answer the user's questions, you can use the following "
        "context:\n# claudeMd\nCodebase and user instructions are shown below.\n\n"
        f"Contents of /repo/CLAUDE.md (project instructions, checked into the codebase):\n\n"
        f"{CLAUDE_MD}\n# currentDate\nToday's date is 2026-01-12.\n</system-reminder>"
    )
    todos = [
        {"content": "Draft the v2.4 notes", "status": "completed", "activeForm": "Drafting"},
        {
            "content": "Check the Fixed entries against git log",
            "status": "in_progress",
            "activeForm": "Checking",
        },
    ]
    lines = [
        _cc(1, "user", reminder, isMeta=True),
        _cc(2, "user", "Write the release notes for v2.4 with the release-notes skill."),
        _cc(
            3,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Skill",
                    "input": {"skill": "release-notes"},
                }
            ],
        ),
        _cc(
            4,
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "Launching skill: release-notes",
                }
            ],
        ),
        _cc(
            5,
            "user",
            [{"type": "text", "text": SKILL_BODY}],
            isMeta=True,
            sourceToolUseID="toolu_1",
        ),
        _cc(
            6,
            "assistant",
            [{"type": "tool_use", "id": "toolu_2", "name": "TodoWrite", "input": {"todos": todos}}],
        ),
        _cc(
            7,
            "user",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "Todos have been modified successfully",
                }
            ],
        ),
        _cc(
            8,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_3",
                    "name": "Bash",
                    "input": {"command": "git log --oneline v2.3..HEAD"},
                }
            ],
        ),
        _cc(9, "user", [{"type": "tool_result", "tool_use_id": "toolu_3", "content": LOG}]),
        _cc(10, "assistant", [{"type": "text", "text": "Drafted; now checking Fixed entries."}]),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _cx(kind: str, payload: dict[str, Any], n: int) -> str:
    stamp = f"2026-03-02T10:00:{n:02d}.000Z"
    return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _codex_session(path: Path, requests: list[str]) -> Path:
    meta = {
        "id": "0195f0aa-1111-7222-8333-944455556666",
        "cwd": "/home/dev/shop",
        "originator": "codex_cli_rs",
        "cli_version": "0.128.0",
        "source": "cli",
    }
    agents = (
        f"# AGENTS.md instructions for /home/dev/shop\n\n<INSTRUCTIONS>\n{AGENTS_MD}\n"
        "</INSTRUCTIONS>"
    )
    read = {"cmd": "sed -n '1,200p' /home/dev/.codex/skills/apply-grant/SKILL.md"}
    plan = {
        "plan": [
            {"step": "Export the session", "status": "completed"},
            {"step": "Fill the grant form", "status": "in_progress"},
        ]
    }
    items = [("session_meta", meta), ("response_item", _user(agents))]
    for i, request in enumerate(requests):
        items.append(("response_item", _user(request)))
        items.append(
            (
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": f"Done with part {i}."}],
                },
            )
        )
    log_call = {"cmd": "git log --oneline"}
    items += [
        (
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps(log_call),
                "call_id": "c0",
            },
        ),
        ("response_item", {"type": "function_call_output", "call_id": "c0", "output": LOG}),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps(read),
                "call_id": "c1",
            },
        ),
        (
            "response_item",
            {"type": "function_call_output", "call_id": "c1", "output": CODEX_SKILL},
        ),
        (
            "response_item",
            {
                "type": "function_call",
                "name": "update_plan",
                "arguments": json.dumps(plan),
                "call_id": "c2",
            },
        ),
        (
            "response_item",
            {"type": "function_call_output", "call_id": "c2", "output": "Plan updated"},
        ),
    ]
    path.write_text("\n".join(_cx(k, p, n) for n, (k, p) in enumerate(items, 1)) + "\n")
    return path


def _summary_text(path: Path) -> str:
    t = read_transcript(str(path), path.read_bytes())
    return next(user_text(m) for m in t.messages if content_type(m) == "summary")


def _compact(src: Path, out: Path, *flags: str) -> str:
    result = CliRunner().invoke(
        app, ["run", str(src), "--force", "--model", "local", "-o", str(out), "--quiet", *flags]
    )
    assert result.exit_code == 0, result.output
    return _summary_text(out)


def test_claude_code_keeps_the_skill_body_claude_md_and_the_plan_verbatim(tmp_path: Path) -> None:
    text = _compact(_claude_code_session(tmp_path / "cc.jsonl"), tmp_path / "out.jsonl")
    assert "### Skill: release-notes\n\n" + SKILL_BODY in text
    assert "### Instructions: /repo/CLAUDE.md\n\n" + CLAUDE_MD + "\n" in text
    assert "Today's date" not in text.split("### Instructions:")[1].split("</system-reminder>")[0]
    assert "- [completed] Draft the v2.4 notes\n" in text
    assert "- [in_progress] Check the Fixed entries against git log" in text
    assert text.index("### Skill:") < text.index("<summary>")


def test_codex_keeps_agents_md_a_skill_read_with_sed_and_the_plan(tmp_path: Path) -> None:
    src = _codex_session(tmp_path / "cx.jsonl", ["Apply for the grant."])
    text = _compact(src, tmp_path / "out.jsonl")
    assert "### Skill: apply-grant\n\n" + CODEX_SKILL in text
    assert "### Instructions: AGENTS.md for /home/dev/shop\n\n" + AGENTS_MD in text
    assert "(update_plan), every item with its status:\n- [completed] Export the session" in text


def test_codex_bounds_earlier_pasted_texts_keeps_the_current_request_whole_and_once(
    tmp_path: Path,
) -> None:
    spec = (
        "SPEC START " + "".join(f"{i}. requirement number {i}\n" for i in range(300)) + " SPEC END"
    )
    current = "NOW: " + "write the grant answer, section by section. " * 60 + "END OF REQUEST"
    src = _codex_session(
        tmp_path / "cx.jsonl", [spec, "Fix the header.", "Fix the header.", current]
    )
    text = _compact(src, tmp_path / "out.jsonl")
    block = text.split("<all_user_messages>")[1].split("</all_user_messages>")[0]
    assert "SPEC START" in block and "SPEC END" in block
    assert (
        "characters truncated (the full text is user message 1 of the original transcript)" in block
    )
    assert "requirement number 150" not in block
    assert block.count("Fix the header.") == 1
    assert current in block  # whole: the current request
    assert len(block) < len(spec) // 2


def test_other_formats_keep_spec_5_2_as_written(tmp_path: Path) -> None:
    """An OpenAI-chat session: no durable block, the earlier long message kept whole."""
    spec = "SPEC START " + "x " * 2000 + "SPEC END"
    lines = [
        {"role": "user", "content": spec},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "Now the header."},
        {"role": "assistant", "content": "done"},
    ]
    src = tmp_path / "chat.jsonl"
    src.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    text = _compact(src, tmp_path / "out.jsonl")
    assert spec in text and "<system-reminder>" not in text


def _skill_history(sizes: list[int]) -> list[Message]:
    msgs: list[Message] = [Message(role="user", content="go")]
    for i, size in enumerate(sizes):
        call = ToolCall(f"c{i}", "skill", json.dumps({"skill": f"s{i}"}))
        msgs.append(Message(role="assistant", content="", tool_calls=[call]))
        msgs.append(Message(role="tool", content=f"BODY{i} " + "w" * size, tool_call_id=f"c{i}"))
    return msgs


def test_the_durable_block_keeps_preserve_skills_budgets() -> None:
    """6 skills → the newest 5; one over 5,000 tokens is cut with its marker; the same budgets
    for instruction files."""
    history = _skill_history([100, 100, 100, 100, 100, 30_000])
    history.insert(
        0,
        Message(
            role="user",
            content=(
                "# AGENTS.md instructions for /a\n\n<INSTRUCTIONS>\n"
                + "r" * 30_000
                + "\n</INSTRUCTIONS>"
            ),
        ),
    )
    finalize = new_finalizer().preserve_durable(PreserveSkillsConfig()).build()
    reply = make_assistant(Message, "<summary>S</summary>")
    out = asyncio.run(finalize(history, reply))
    text = out[0].content
    assert "BODY0" not in text and all(f"### Skill: s{i}" in text for i in range(1, 6))
    assert "[… skill 's5' was cut to fit the context" in text
    assert "[… 'AGENTS.md for /a' was cut to fit the context; read the file again" in text
    assert len(text) < 3 * 5_000 * 4
    off = new_finalizer().preserve_durable(PreserveSkillsConfig(max_skills=0)).build()
    assert "<system-reminder>" not in asyncio.run(off(history, reply))[0].content


def test_skill_reads_by_shell_command_and_by_code_mode_exec() -> None:
    """A ``SKILL.md`` printed whole by ``sed``/``cat`` (also inside a Codex code-mode script) is
    a loaded skill; a command reading several files, or one that failed, is not."""
    from compactor.facts import Call, Entry, Result
    from compactor.facts.durable import skill_reads

    script = (
        'const r = await tools.exec_command({"cmd":"cat /u/.codex/skills/apply-grant/SKILL.md"});'
    )
    printed = "Script completed\nWall time 0.1 seconds\nOutput:\n# Grant\nstep 1"
    entries = [
        Entry(0, "assistant", calls=[Call("a", "exec", script, 0)]),
        Entry(1, "tool", results=[Result("a", "exec", printed)]),
        Entry(2, "assistant", calls=[Call("b", "exec_command", json.dumps(
            {"cmd": "sed -n '1,9p' /u/.codex/skills/a/SKILL.md /u/.codex/skills/b/SKILL.md"}), 2)]),
        Entry(3, "tool", results=[Result("b", "exec_command", "# A\n# B")]),
        Entry(4, "assistant", calls=[Call("c", "exec_command", json.dumps(
            {"cmd": "cat /u/.codex/skills/gone/SKILL.md"}), 4)]),
        Entry(5, "tool", results=[Result("c", "exec_command", "cat: No such file", True)]),
    ]  # fmt: skip
    assert skill_reads(entries) == [("apply-grant", "# Grant\nstep 1")]


@needs_shared
def test_real_claude_code_and_codex_sessions_keep_their_skill_body(tmp_path: Path) -> None:
    """raze (Claude Code's Skill tool, the body in an isMeta message) and soul (Codex, the
    SKILL.md read with a shell command) open with the apply-grant skill, word for word."""
    for name, body_start in (
        ("claude-code/raze-grant-session.jsonl", "Base directory for this skill:"),
        ("codex/soul-grant-rollout.jsonl", "---\nname: apply-grant"),
    ):
        text = _compact(shared_file(name), tmp_path / f"{Path(name).stem}.out.jsonl")
        block = text.split("### Skill: apply-grant\n\n", 1)[1].split("</system-reminder>")[0]
        assert block.startswith(body_start), block[:80]
        assert "Agentic Engineering Grant" in block and len(block) > 2_000
        assert text.index("### Skill: apply-grant") < text.index("<summary>")


def test_the_agent_session_finalizer_reads_the_history_without_copying_it() -> None:
    """Its handlers and the default post-processing only read the history, so the middleware
    hands it the history as it is (no deep copy of a 50 MB session); other formats keep no
    finalize at all (SPEC §5.2's default)."""
    from compactor.configfile import FileConfig, build_config
    from compactor.models.local import LocalSummarizer

    agent = build_config(FileConfig(), model=LocalSummarizer(), agent_session=True)
    assert agent.finalize is not None
    assert getattr(agent.finalize, "readonly_input", False) is True
    assert build_config(FileConfig(), model=LocalSummarizer()).finalize is None


def test_a_skill_read_combined_with_other_commands_keeps_only_the_skill_text() -> None:
    """Blind check 2: a code-mode ``exec`` printed SKILL.md, then a separator (``printf``), then
    a 200-line ``rg --files`` listing. Only the SKILL.md part is the skill; a combined output
    whose SKILL.md part cannot be told apart (no separator) is not promoted at all."""
    from compactor.facts import Call, Entry, Result
    from compactor.facts.durable import skill_reads

    def exec_of(cmd: str) -> str:
        return f"const r = await tools.exec_command({json.dumps({'cmd': cmd})});\ntext(r.output);"

    skill = "---\nname: apply-grant\n---\n# Grant\nstep 1"
    listing = "\n".join(f"src/file_{i}.ts" for i in range(200))
    separated = (
        "sed -n '1,240p' /u/.agents/skills/apply-grant/SKILL.md && printf '\\n--- repo ---\\n' "
        "&& rg --files | sed -n '1,240p'"
    )
    head = "Script completed\nWall time 0.2 seconds\nOutput:\n"
    printed = f"{head}{skill}\n\n--- repo ---\n{listing}"
    entries = [
        Entry(0, "assistant", calls=[Call("a", "exec", exec_of(separated), 0)]),
        Entry(1, "tool", results=[Result("a", "exec", printed)]),
        Entry(2, "assistant", calls=[Call("b", "exec_command", json.dumps(
            {"cmd": "cat /u/.codex/skills/other/SKILL.md; rg --files"}), 2)]),
        Entry(3, "tool", results=[Result("b", "exec_command", f"# Other\nrule\n{listing}")]),
    ]  # fmt: skip
    assert skill_reads(entries) == [("apply-grant", skill)]
