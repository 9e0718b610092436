"""A reduced Codex history keeps the encrypted ``compaction`` item of its ``replacement_history``
(issue 30; blind check 15, kn-commit: reduce and hybrid rewrote the ``replacement_history``
without it, so a resumed Codex lost the server's summary of everything before the compaction).

Codex's remote compaction keeps ``ResponseItem::Compaction`` items in the history it rebuilds
(``codex-rs/core/src/compact_remote.rs``) and sends them to the model; a reduction keeps it where
it was. The rollout is built here (:func:`rollout`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .codex_rollout import STAMP, read_rounds, rec
from .fake_server_cli import invoke

SECRET = "gAAAAABpZ" + "x7Q-" * 300  # an encrypted server-side summary (opaque to us)
COMPACTION = {"type": "compaction", "encrypted_content": SECRET}


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def rollout(compaction_first: bool = False, rounds: int = 5) -> bytes:
    """A Codex rollout resumed after a remote compaction: its ``compacted`` record holds two user
    messages and the encrypted ``compaction`` item (last, as Codex 0.77 writes it, or first),
    then a request, ``rounds`` shell rounds with long outputs and an answer."""
    users = [_user("Write the migration plan for the orders table."), _user("yes proceed")]
    history = [COMPACTION, *users] if compaction_first else [*users, COMPACTION]
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000002", "timestamp": STAMP, "cwd": "/work/shop"}
    records = [
        rec("session_meta", meta),
        rec("compacted", {"message": "", "replacement_history": history}),
        rec("event_msg", {"type": "context_compacted"}),
        rec("turn_context", {"cwd": "/work/shop", "model": "gpt-5.5"}),
        rec("response_item", _user("Now apply the migration and run the tests.")),
    ]
    records += read_rounds(rounds, "migrate.py", "as read in this round")
    answer: dict[str, Any] = {"type": "message", "role": "assistant"}
    answer["content"] = [{"type": "output_text", "text": "Applied; 12 tests pass."}]
    records.append(rec("response_item", answer))
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _replacement(raw: bytes) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    compacted = [r for r in records if r["type"] == "compacted"]
    assert compacted, "no compacted record"
    history: list[dict[str, Any]] = compacted[-1]["payload"]["replacement_history"]
    return history


def _run(tmp: Path, src: Path, *args: str) -> bytes:
    out = tmp / "out.jsonl"
    out.unlink(missing_ok=True)
    proc = invoke(
        ["run", str(src), "--model", "local", *args, "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp / "data"), "NO_COLOR": "1"},
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return out.read_bytes()


def _kinds(history: list[dict[str, Any]]) -> list[str]:
    return [
        "compaction"
        if i["type"] == "compaction"
        else "".join(c.get("text", "") for c in i.get("content", []))[:12] or i["type"]
        for i in history
    ]


@pytest.mark.parametrize("compaction_first", [False, True], ids=["last", "first"])
@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),  # under its trigger: it only reduces
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_reduced_codex_history_keeps_the_compaction_item(
    tmp_path: Path, args: tuple[str, ...], compaction_first: bool
) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout(compaction_first))
    history = _replacement(_run(tmp_path, src, *args))
    kept = [i for i in history if i["type"] == "compaction"]
    assert kept == [COMPACTION]  # once, byte for byte
    kinds = _kinds(history)
    where = kinds.index("compaction")
    # where Codex had it: after the user messages it summarised them with, or before them
    assert where == (0 if compaction_first else 2), kinds
    assert kinds[:3].count("Write the mi") == 1 and kinds[:3].count("yes proceed") == 1
    outputs = [i["output"] for i in history if i["type"] == "function_call_output"]
    assert len(outputs) == 5 and sum("saved to:" in o for o in outputs) == 4  # really reduced


def test_reducing_twice_keeps_it_once(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    again = tmp_path / "again.jsonl"
    again.write_bytes(_run(tmp_path, src, "--strategy", "reduce", "--force"))
    history = _replacement(_run(tmp_path, again, "--strategy", "reduce", "--force"))
    assert [i for i in history if i["type"] == "compaction"] == [COMPACTION]
