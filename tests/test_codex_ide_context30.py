"""Codex Desktop's IDE context is not the user's request (blind check 30, W2: cx-travel).

Codex Desktop puts ``# Context from my IDE setup:`` (active file, open tabs) before every user
message and the user's words after ``## My request for Codex:``. Nine different messages shared
that ~500-character block and were reported as one message "sent 9 times, edited", the quoted
requests mostly the block. The requests are compared and quoted on the user's own text. The
rollout is built here."""

from __future__ import annotations

import json
from pathlib import Path

from compactor.formats.registry import read_transcript
from compactor.models.local import summarize_transcript

from .codex_rollout import STAMP, read_rounds, rec
from .test_codex_instructions_kept import _message

TABS = "".join(f"- page{i}.tsx: src/app/page{i}.tsx\n" for i in range(20))
IDE = (
    "# Context from my IDE setup:\n\n## Active file: docs/sprint-status.yaml\n\n"
    f"## Open tabs:\n- sprint-status.yaml: docs/sprint-status.yaml\n{TABS}\n"
    "## My request for Codex:\n"
)
ASKS = [
    "review the next story in the sprint plan",
    "How did you pick these stories? In the sprint plan all of them are done",
    "then review story 3-5 instead",
]


def rollout() -> bytes:
    meta = {"id": "1a2b3c4d-0000-4000-8000-000000000030", "timestamp": STAMP, "cwd": "/work/trip"}
    records = [rec("session_meta", meta), rec("turn_context", {"cwd": "/work/trip"})]
    for n, ask in enumerate(ASKS):
        records.append(_message("user", IDE + ask))
        records += [
            {**r, "payload": {**r["payload"], "call_id": f"{n}{r['payload']['call_id']}"}}
            if "call_id" in r["payload"]
            else r
            for r in read_rounds(2, f"docs/story-{n}.md", "for the review")
        ]
        records.append(_message("assistant", f"Done with step {n}."))
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_requests_behind_one_ide_prefix_are_different_requests(tmp_path: Path) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout())
    parsed = read_transcript(str(src), src.read_bytes())
    text = summarize_transcript(parsed.messages)
    assert "sent 3 times" not in text and "edited; the last" not in text, text
    for ask in ASKS:
        assert ask in text, ask
    assert "## Open tabs" not in text and "page7.tsx" not in text, text
