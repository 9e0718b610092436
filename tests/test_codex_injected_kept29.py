"""A reduced Codex history keeps every user-role record the harness injected (blind check 29,
format gap: cx-nexus, Codex 0.118, lost three ``<skill>`` bodies (``$deep-interview``, ``$plan``,
``$team``), three ``<subagent_notification>`` messages (one the only trace of a subagent's
shutdown) and a second ``<environment_context>`` to reduce and hybrid, "263 → 263 messages").

Reduce replaces tool outputs only: nothing summarizes what it would drop, so every user-role
record stays in the ``compacted`` record's ``replacement_history``, verbatim and in order. The
rollout is built here (:func:`rollout`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .codex_rollout import STAMP, read_rounds, rec
from .test_codex_instructions_kept import _message, _replacement, _run, _texts

ENV_1 = (
    "<environment_context>\n  <cwd>/work/nexus</cwd>\n  <shell>zsh</shell>\n</environment_context>"
)
ENV_2 = (
    "<environment_context>\n  <cwd>/work/nexus</cwd>\n  <current_date>2026-04-03</current_date>\n"
    "</environment_context>"
)
NOETHER = "019d52ee-1111-7aaa-8bbb-0123456789ab"


def _skill(name: str, rule: str) -> str:
    return (
        f"<skill>\n<name>{name}</name>\n<path>/home/u/.codex/skills/{name}/SKILL.md</path>\n"
        f"---\nname: {name}\n---\n\n# {name}\n\n{rule}\n</skill>"
    )


def _notification(agent: str, status: object) -> str:
    body = json.dumps({"agent_id": agent, "status": status})
    return f"<subagent_notification>\n{body}\n</subagent_notification>"


INTERVIEW = _skill("deep-interview", "Ask one question per round; score the ambiguity.")
TEAM = _skill("team", "Launch the team in tmux worktrees; the leader integrates.")
DONE = _notification("019d52fd-2222-7ccc-8ddd-0123456789cd", {"completed": "Plan finished"})
SHUTDOWN = _notification(NOETHER, "shutdown")
INJECTED = [ENV_1, INTERVIEW, DONE, SHUTDOWN, ENV_2, TEAM]


def rollout() -> bytes:
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000029", "timestamp": STAMP, "cwd": "/work/nexus"}
    records = [
        rec("session_meta", meta),
        rec("turn_context", {"cwd": "/work/nexus", "model": "gpt-5.4"}),
        _message("user", ENV_1),
        _message("user", "[$deep-interview](/home/u/.codex/skills/deep-interview/SKILL.md) roles"),
        _message("user", INTERVIEW),
    ]
    records += read_rounds(4, "docs/prd.md", "for the interview")
    records += [_message("user", DONE), _message("user", SHUTDOWN)]
    records.append(_message("assistant", "The plan is approved; the architect Noether shut down."))
    records += [
        _message("user", ENV_2),
        _message("user", "[$team](/home/u/.codex/skills/team/SKILL.md) implement it"),
        _message("user", TEAM),
    ]
    records += [
        {**r, "payload": {**r["payload"], "call_id": "t" + r["payload"]["call_id"]}}
        if "call_id" in r["payload"]
        else r
        for r in read_rounds(4, "src/roles.ts", "for the team")
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(rollout())
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),  # under its trigger: it only reduces
        ("--strategy", "hybrid", "--force", "--append"),
    ],
    ids=["reduce", "reduce-append", "hybrid", "hybrid-append"],
)
def test_a_reduced_history_keeps_every_injected_user_record_in_order(
    tmp_path: Path, src: Path, args: tuple[str, ...]
) -> None:
    history = _replacement(_run(tmp_path, src, *args))
    users = [text for role, text in _texts(history) if role == "user"]
    assert [t for t in users if t.startswith("<")] == INJECTED  # verbatim, each once, in order
    assert users.index(TEAM) == users.index(ENV_2) + 2  # where it was: after its request
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert sum("saved to:" in o for o in outputs) >= 4  # really reduced


def test_the_summary_says_a_subagent_shut_down(src: Path) -> None:
    parsed = read_transcript(str(src), src.read_bytes())
    text = summarize_transcript(parsed.messages)
    assert NOETHER in text and "shutdown" in text, text
