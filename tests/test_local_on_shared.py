"""Issue 4: the embedded summarizer on every real transcript in ../shared/transcripts."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

import compactor as c
from compactor.formats.registry import read_transcript
from compactor.models.local import LocalSummarizer
from compactor.schema import user_text
from compactor.tokens import estimate_message

from .conftest import shared_transcript_files

FILES = shared_transcript_files()
SECTIONS = [
    "1. Primary Request and Intent",
    "2. Key Technical Concepts",
    "3. Files and Code Sections",
    "4. Errors and fixes",
    "5. Problem Solving",
    "6. All user messages",
    "7. Pending Tasks",
    "8. Current Work",
    "9. Optional Next Step",
]


def _summarize(path: Path) -> tuple[c.Middleware, list, str, int, int]:
    t = read_transcript(str(path), path.read_bytes())
    events: list = []
    mw = c.new(c.Config(model=LocalSummarizer(), emit_internal_events=True, on_event=events.append))
    state = c.AgentState(t.messages)
    out = asyncio.run(mw.summarize(state))
    reply = next(e for e in events if e.type == "generate_summary").model_response
    summary_text = c.schema.assistant_text(reply)
    input_tokens = sum(estimate_message(m) for m in t.messages)
    summary_tokens = estimate_message(reply)
    return mw, out, summary_text, input_tokens, summary_tokens


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_local_summary_is_nine_sections_small_and_deterministic(path: Path) -> None:
    _, _, text, input_tokens, summary_tokens = _summarize(path)
    assert text.startswith("<analysis>")
    body = re.search(r"<summary>(.*)</summary>", text, re.S)
    assert body is not None
    positions = [body.group(1).find(s) for s in SECTIONS]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)
    assert "<all_user_messages>" in text
    if input_tokens > 20_000:
        assert summary_tokens <= 0.3 * input_tokens, (summary_tokens, input_tokens)
    again = _summarize(path)[2]
    assert again == text  # same input, same bytes


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_finalized_output_keeps_user_messages_within_budget(path: Path) -> None:
    t = read_transcript(str(path), path.read_bytes())
    _, out, _, _, _ = _summarize(path)
    final = c.schema.user_text(out[-1])
    users = [
        user_text(m)
        for m in t.messages
        if m.role == "user"
        and user_text(m)
        and not m.extra.get("injected")
        and not c.schema.is_internal(m)
    ]
    budget = 160_000 // 3
    used = 0
    for text in reversed(users):
        cost = len(text.encode()) // 4
        if used + cost > budget:
            break
        used += cost
        assert f"    - {text}" in final
