"""Issue 4: the embedded summarizer on every real transcript in ../shared/transcripts."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import pytest

import compactor as c
from compactor.counting.tokens import estimate_message
from compactor.facts.noise import user_words
from compactor.formats.registry import read_transcript
from compactor.models.local import LocalSummarizer
from compactor.pipeline.user_block import CURRENT_NOTE
from compactor.schema import user_text

from .conftest import shared_file, shared_transcript_files

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


def _summarize(path: Path) -> tuple[c.Middleware[Any], list[Any], str, int, int]:
    t = read_transcript(str(path), path.read_bytes())
    events: list[Any] = []
    mw = c.new(c.Config(model=LocalSummarizer(), emit_internal_events=True, on_event=events.append))
    messages: list[Any] = list(t.messages)  # chat or agentic, as the format reads them
    state = c.AgentState(messages)
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
    users = [  # local-command markup is shown as "/exit (a CLI command)" (blind check 9)
        user_words(m)
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
        if text is users[-1] and f"    - {CURRENT_NOTE}" in final:  # quoted in section 1
            assert " ".join(text.split()).replace('"', "'") in final.replace('"', "'")
            continue
        assert f"    - {text}" in final


# -- golden summaries of the shared transcripts (issue 20) -----------------------------------------

GOLDEN = Path(__file__).resolve().parent / "golden"


def _context(messages: list[Any]) -> list[Any]:
    """The summarizer's context (SPEC §4): everything after the leading system messages."""
    first = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
    return messages[first:]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_local_summary_golden(path: Path) -> None:
    """What the embedded summarizer writes for each shared transcript, reviewed by hand (the
    pending tasks and next step as the agent that resumes would need them). Refresh with
    UPDATE_GOLDEN=1 and review the diff."""
    from compactor.models.local import summarize_transcript

    t = read_transcript(str(path), path.read_bytes())
    actual = summarize_transcript(_context(t.messages)) + "\n"
    golden = GOLDEN / f"local_summary_shared_{path.stem}.txt"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(actual, encoding="utf-8")
    assert golden.exists(), f"{golden} is missing; run with UPDATE_GOLDEN=1 to create it"
    assert actual == golden.read_text(encoding="utf-8")


# -- Claude Code's own summary of fasthooks as the yardstick ---------------------------------------

# The facts of the summary Claude Code wrote at fasthooks' compact boundary: the commands, the
# files created, the error texts and exit codes, the numbers printed, the user's requests. Each
# is (name, strings of which the embedded summary must contain every one).
FASTHOOKS_ANCHORS: list[tuple[str, tuple[str, ...]]] = [
    ("command ls -la", ("Bash: ls -la",)),
    ("hello_world.py created", ("hello_world.py (created",)),
    ("its content", ('print("Hello, World!")',)),
    ("number_generator.py created", ("number_generator.py (created",)),
    ("data.txt created", ("data.txt (created",)),
    ("cat error text", ("cat: nonexistent.txt: No such file or directory",)),
    ("cat exit code 1", ("`Bash: cat nonexistent.txt` failed (exit code 1)",)),
    ("python error text", ("python: command not found",)),
    ("python exit code 127", ("exit code 127",)),
    ("fixed by python3", ("python3 /workspace/number_generator.py` succeeded",)),
    ("numbers printed", ("[94, 17, 68, 80, 48]",)),
    ("sum and average", ("Sum: 307", "Average: 61.4")),
    (
        "every user request",
        (
            "    - can you run a command ls -la\n",
            "    - ok can you create a hello_world.py file and add a minimal code in it?\n",
            "    - can you read it back with Read tool?\n",
            "    - can you run `cat nonexistent.txt`\n",
            "    - do something requiring multiple tools in one turn,\n",
        ),
    ),
]


def test_fasthooks_keeps_the_facts_of_claude_codes_own_summary() -> None:
    """The part of fasthooks before its compact boundary, summarized by the embedded model,
    keeps at least 12 of the 13 anchor facts of the summary Claude Code wrote for it."""
    from compactor.models.local import summarize_transcript

    path = shared_file("claude-code/fasthooks-sample-main-compacted.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    boundary = next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    claude = b"".join(lines[boundary:]).decode()
    assert "python: command not found" in claude and "[94, 17, 68, 80, 48]" in claude
    t = read_transcript(str(path), b"".join(lines[:boundary]))
    text = summarize_transcript(_context(t.messages))
    kept = [name for name, needles in FASTHOOKS_ANCHORS if all(n in text for n in needles)]
    missing = [name for name, _ in FASTHOOKS_ANCHORS if name not in kept]
    assert len(FASTHOOKS_ANCHORS) == 13
    assert len(kept) >= 12, missing
    assert "No errors" not in text
    # nothing pending: the demo was finished, and the summary says so in so many words
    assert "None: the last request was answered; nothing is pending; wait for the user" in text
