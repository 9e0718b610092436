"""The ``<skill>`` body Codex injected with the current request is kept (issue 28 point 4;
blind check 23 G1, cx-landing: the summary only listed the skill as "loaded earlier … bodies not
repeated here", and reduce/hybrid dropped every ``<skill>`` message from the
``replacement_history`` as Codex's own compaction does, so the skill's rule survived nowhere).

Codex writes a skill's body once, as a user message right after the request that names it, and
does not inject it again on resume. The embedded summary keeps the newest body of each skill the
current request loaded in its system reminder (PreserveSkills' budgets); an older skill is one
line naming its SKILL.md. A history with no summary (reduce, hybrid that only reduced) keeps
every ``<skill>`` message where it was (blind check 29: a reduce keeps every user-role
record). The rollout is synthetic (:func:`rollout`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .codex_rollout import STAMP, read_rounds, rec
from .test_codex_instructions_kept import _message, _replacement, _run, _texts


def _skill(name: str, rule: str) -> str:
    return (
        f"<skill>\n<name>{name}</name>\n<path>/home/u/.codex/skills/{name}/SKILL.md</path>\n"
        f"---\nname: {name}\ndescription: what {name} is for\n---\n\n# {name}\n\n{rule}\n"
        + "- keep each section short and traceable\n" * 20
        + "</skill>"
    )


OLD = _skill("release-notes", "Always write release notes in the past tense.")
CURRENT = _skill("doc-writer", "Default document output language to Vietnamese.")


def rollout() -> bytes:
    """An earlier request with skill ``release-notes``, then the current one with
    ``doc-writer`` (each body injected right after its request), shell rounds after each."""
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000023", "timestamp": STAMP, "cwd": "/w"}
    records = [
        rec("session_meta", meta),
        rec("turn_context", {"cwd": "/w", "model": "gpt-5.5"}),
        _message("user", "[$release-notes](/home/u/.codex/skills/release-notes/SKILL.md) notes"),
        _message("user", OLD),
    ]
    records += read_rounds(4, "CHANGES.md", "for the notes")
    records.append(_message("assistant", "The release notes are written."))
    records += [
        _message("user", "[$doc-writer](/home/u/.codex/skills/doc-writer/SKILL.md) rewrite docs"),
        _message("user", CURRENT),
    ]
    records += [
        {**r, "payload": {**r["payload"], "call_id": "d" + r["payload"]["call_id"]}}
        if "call_id" in r["payload"]
        else r
        for r in read_rounds(4, "landing.md", "for the rewrite")
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(rollout())
    return path


def test_the_summary_keeps_the_current_requests_skill_body(tmp_path: Path, src: Path) -> None:
    texts = _texts(_replacement(_run(tmp_path, src, "--force")))
    summary = "\n".join(text for _, text in texts)
    assert "Default document output language to Vietnamese." in summary  # the body, verbatim
    assert "Always write release notes in the past tense." not in summary  # an older skill:
    assert "- release-notes: /home/u/.codex/skills/release-notes/SKILL.md" in summary  # named


@pytest.mark.parametrize(
    "args",
    [("--strategy", "reduce", "--force"), ("--strategy", "hybrid", "--force")],
    ids=["reduce", "hybrid"],
)
def test_a_reduced_history_keeps_the_current_requests_skill_message(
    tmp_path: Path, src: Path, args: tuple[str, ...]
) -> None:
    history = _replacement(_run(tmp_path, src, *args))
    texts = _texts(history)
    # every skill body, each once, in order (blind check 29: a reduce keeps every record)
    assert [t for _, t in texts if t.startswith("<skill>")] == [OLD, CURRENT]
    at = [t for _, t in texts].index(CURRENT)
    assert texts[at - 1][1].endswith("rewrite docs")  # where it was: after its request
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert sum("saved to:" in o for o in outputs) >= 4  # really reduced
