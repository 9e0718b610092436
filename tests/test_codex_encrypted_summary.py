"""Every compaction of a Codex rollout keeps the encrypted summary of Codex's own earlier
compaction, and its ghost snapshots, as Codex does (issue 28, issue 30; blind check 24,
cx-brainbuddy, Codex 0.64).

Codex 0.64 writes the server's summary as a ``compaction_summary`` item of the ``compacted``
record's ``replacement_history`` (``ResponseItem::Compaction``, read under that alias) and puts
every ``ghost_snapshot`` of the old history after the new one ("Required to keep /undo available
after compaction"). Reduce, summarize, hybrid and ``--append`` dropped the item (and four of five
snapshots): a resumed Codex lost what its own compaction had kept. The summary could not read it
either, and said nothing of it. The rollout is built here (:func:`rollout`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .codex_rollout import read_rounds, rec
from .fake_server_cli import run_local

SUMMARY_ITEM = {"type": "compaction_summary", "encrypted_content": "gAAAAABq" + "Zr9-" * 400}
GHOSTS = [
    {"type": "ghost_snapshot", "ghost_commit": {"id": f"{n:040x}", "parent": "0" * 40}}
    for n in range(1, 5)
]
SAID = (
    "an earlier Codex compaction summary is encrypted; its content is not in this summary "
    "(it is kept for the model)"
)


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def rollout(rounds: int = 6) -> bytes:
    """A Codex 0.64 rollout resumed after its own compaction: the ``compacted`` record holds two
    user messages, the encrypted ``compaction_summary`` and three ghost snapshots; then a
    request, a fourth snapshot, ``rounds`` shell rounds and an answer."""
    history = [_user("Implement phase 1 of the tasks."), _user("commit"), SUMMARY_ITEM, *GHOSTS[:3]]
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000024", "cwd": "/work/app"}
    records = [
        rec("session_meta", meta),
        rec("compacted", {"message": "", "replacement_history": history}),
        rec("event_msg", {"type": "context_compacted"}),
        rec("turn_context", {"cwd": "/work/app", "model": "gpt-5.1-codex-max"}),
        rec("response_item", _user("Now check the checklists and run the smoke test.")),
        rec("response_item", GHOSTS[3]),
    ]
    records += read_rounds(rounds, "checklist.md", "as read in this round")
    answer: dict[str, Any] = {"type": "message", "role": "assistant"}
    answer["content"] = [{"type": "output_text", "text": "All checklists pass; smoke test OK."}]
    records.append(rec("response_item", answer))
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.split(b"\n") if line.strip()]


def _history(raw: bytes) -> list[dict[str, Any]]:
    compacted = [r for r in _records(raw) if r["type"] == "compacted"]
    assert compacted, "no compacted record"
    history: list[dict[str, Any]] = compacted[-1]["payload"]["replacement_history"]
    return history


def _resumed(raw: bytes) -> list[dict[str, Any]]:
    """What Codex resumes: the last ``compacted`` history and the response items after it."""
    records = _records(raw)
    last = max(i for i, r in enumerate(records) if r["type"] == "compacted")
    later = [r["payload"] for r in records[last + 1 :] if r["type"] == "response_item"]
    return [*_history(raw), *later]


def _keep_tail(tmp: Path) -> str:
    config = tmp / "keep.yaml"
    config.write_text("keep:\n  messages: 4\n")
    return str(config)


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),
        ("--strategy", "summarize", "--force"),
        ("--strategy", "summarize", "--force", "-c", "KEEP"),
        ("--strategy", "summarize", "--force", "--append"),
    ],
    ids=["reduce", "reduce-append", "hybrid", "summarize", "summarize-tail", "summarize-append"],
)
def test_codex_encrypted_compaction_summary_and_snapshots_are_kept(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    args = tuple(_keep_tail(tmp_path) if a == "KEEP" else a for a in args)
    raw = run_local(tmp_path, src, *args)
    resumed = _resumed(raw)
    # the encrypted summary once, byte for byte, in the history Codex resumes from
    assert [i for i in _history(raw) if i["type"] == "compaction_summary"] == [SUMMARY_ITEM]
    assert [i for i in resumed if i["type"] == "compaction_summary"] == [SUMMARY_ITEM]
    # every ghost snapshot once (Codex keeps them all for /undo), in their order
    assert [i for i in resumed if i["type"] == "ghost_snapshot"] == GHOSTS
    if "summarize" in args:  # the old summary stands before the new one (it covers what came first)
        kinds = [i["type"] for i in _history(raw)]
        texts = ["".join(c.get("text", "") for c in i.get("content", [])) for i in _history(raw)]
        summary_at = next(n for n, t in enumerate(texts) if "continues an earlier" in t)
        assert kinds.index("compaction_summary") < summary_at, kinds
        assert SAID in " ".join(texts[summary_at].split()), texts[summary_at][:2000]
        assert " ".join(texts[summary_at].split()).count(SAID) == 1


def test_compacting_the_output_again_keeps_it_once(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    again = tmp_path / "again.jsonl"
    again.write_bytes(run_local(tmp_path, src, "--strategy", "summarize", "--force"))
    raw = run_local(tmp_path, again, "--strategy", "summarize", "--force")
    assert [i for i in _resumed(raw) if i["type"] == "compaction_summary"] == [SUMMARY_ITEM]
    assert [i for i in _resumed(raw) if i["type"] == "ghost_snapshot"] == GHOSTS
    text = json.dumps(_history(raw))
    assert "encrypted; its content is not in this" in text


def test_a_rollout_without_an_encrypted_summary_says_nothing_of_one(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    plain = [r for r in _records(rollout()) if r["type"] != "compacted"]
    src.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in plain))
    raw = run_local(tmp_path, src, "--strategy", "summarize", "--force")
    assert "encrypted" not in json.dumps(_history(raw))
