"""A reduced Codex history keeps the injected instruction files (issue 28 point 4, issue 30
point 4; blind check 11: reduce and hybrid dropped the developer ``<permissions instructions>``
message and the ``# AGENTS.md instructions`` message from the ``replacement_history``, which
Codex's own ``compacted`` record keeps: 35 → 32, 68 → 65, 148 → 145, 99 → 98 messages).

Codex's compaction rebuilds its history as the initial context (developer instructions, the
AGENTS.md message) followed by the kept items (``build_compacted_history`` / the mid-turn
``InitialContextInjection::BeforeLastUserMessage`` in ``codex-rs/core/src/compact.rs``; a Codex
0.118 ``compacted`` record holds both). A reduction keeps them where they were. The
``<environment_context>`` is left out as before: Codex writes the current one at its next turn.
A summary quotes AGENTS.md in its system reminder, so a summarized history leaves them out, as
before. The rollout here is synthetic (:func:`rollout`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript

from .codex_rollout import STAMP, read_rounds, rec
from .fake_server_cli import invoke

PERMISSIONS = "<permissions instructions>\nFilesystem sandboxing: workspace-write.\n"
AGENTS = (
    "# AGENTS.md instructions for /work/shop\n\n<INSTRUCTIONS>\nAlways run `make lint` before "
    "committing; never touch vendor/.\n</INSTRUCTIONS>"
)
ENV = "<environment_context>\n  <cwd>/work/shop</cwd>\n</environment_context>"


def _message(role: str, text: str) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    return rec(
        "response_item",
        {"type": "message", "role": role, "content": [{"type": part, "text": text}]},
    )


def rollout(rounds: int = 5) -> bytes:
    """A Codex rollout: metadata, the developer instructions, AGENTS.md, the environment
    context, a request, ``rounds`` shell rounds with outputs longer than a placeholder, with a
    token count after each, and an answer."""
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000001", "timestamp": STAMP, "cwd": "/work/shop"}
    records = [
        rec("session_meta", meta),
        _message("developer", PERMISSIONS),
        _message("user", AGENTS),
        _message("user", ENV),
        rec("turn_context", {"cwd": "/work/shop", "model": "gpt-5.5"}),
        _message("user", "Fix the coupon total in cart.py and run the tests."),
    ]
    records += read_rounds(rounds, "cart.py", "as it was read in this round")
    records.append(_message("assistant", "Fixed: the coupon is applied once; 8 tests pass."))
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _texts(history: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(role, text) of the message items of a ``replacement_history``."""
    return [
        (item["role"], "".join(c.get("text", "") for c in item["content"]))
        for item in history
        if item.get("type") == "message"
    ]


def _replacement(raw: bytes) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    compacted = [r for r in records if r["type"] == "compacted"]
    assert compacted, "no compacted record"
    history: list[dict[str, Any]] = compacted[-1]["payload"]["replacement_history"]
    return history


def _run(tmp: Path, src: Path, *args: str) -> bytes:
    out = tmp / "out.jsonl"
    proc = invoke(
        ["run", str(src), "--model", "local", *args, "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp / "data"), "NO_COLOR": "1"},
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return out.read_bytes()


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
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_reduced_codex_history_keeps_the_instruction_files(
    tmp_path: Path, src: Path, args: tuple[str, ...]
) -> None:
    raw = _run(tmp_path, src, *args)
    history = _replacement(raw)
    texts = _texts(history)
    assert texts[:2] == [("developer", PERMISSIONS), ("user", AGENTS)]  # first, as in the file
    assert sum(ENV in text for _, text in texts) == 1  # kept where it was (blind check 29)
    assert sum(1 for _, text in texts if text == AGENTS) == 1
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert len(outputs) == 5 and sum("saved to:" in o for o in outputs) == 4  # really reduced


def test_reducing_a_reduced_codex_history_keeps_them_once(tmp_path: Path, src: Path) -> None:
    first = _run(tmp_path, src, "--strategy", "reduce", "--force")
    again = tmp_path / "again.jsonl"
    again.write_bytes(first)
    (tmp_path / "out.jsonl").unlink()
    texts = _texts(_replacement(_run(tmp_path, again, "--strategy", "reduce", "--force")))
    assert [t for t in texts if t[1] in (PERMISSIONS, AGENTS)] == [
        ("developer", PERMISSIONS),
        ("user", AGENTS),
    ]
    parsed = read_transcript(str(again), first)
    assert parsed.messages[0].role == "system" and parsed.messages[1].extra.get("injected")


def test_summarized_codex_history_leaves_them_to_the_summary(tmp_path: Path, src: Path) -> None:
    """Unchanged: a summary's system reminder quotes AGENTS.md; the replacement history holds
    no old copy of the instructions (Codex's pre-turn compaction re-injects its own)."""
    texts = _texts(_replacement(_run(tmp_path, src, "--force")))
    assert all(role != "developer" for role, _ in texts)
    assert not any(text.startswith("# AGENTS.md instructions") for _, text in texts)
    assert any("make lint" in text for _, text in texts)  # in the summary
