"""Reduce and hybrid write the items of a Codex rollout back as they were (issue 30 point 4:
reduced output is written in the input's own format; blind check 43, a Codex 0.114 rollout that
already held a remote compaction: the retained ``replacement_history`` lost ``phase`` on 27
assistant messages and two two-part context messages, permissions + ``<collaboration_mode>`` and
AGENTS.md + ``<environment_context>``, were joined into one part each).

Every kept item must come back with all its keys (``phase``, ``id``, a key we do not know) and its
content parts in count and order; a cleared result changes its ``output`` only. The rollout is
built here, by shape, with invented content.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .codex_rollout import STAMP, read_rounds, rec
from .fake_server_cli import run_local

COMPACTION = {"type": "compaction", "encrypted_content": "gAAAAABq" + "Zk9-" * 200}


def _parts(role: str, *texts: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {
        "type": "message",
        "role": role,
        "content": [{"type": kind, "text": t} for t in texts],
    }


def _said(text: str, phase: str, n: int) -> dict[str, Any]:
    item = _parts("assistant", text)
    return {"id": f"msg_0a{n:04d}", **item, "phase": phase, "x_later_key": {"n": n}}


CONTEXT = [
    _parts(
        "developer",
        "<permissions instructions>\nsandbox: workspace-write\n</permissions instructions>",
        "<collaboration_mode>\npair\n</collaboration_mode>",
    ),
    _parts(
        "user",
        "# AGENTS.md instructions for /work/kiln\n\n<INSTRUCTIONS>\nUse tabs.\n</INSTRUCTIONS>",
        "<environment_context>\n  <cwd>/work/kiln</cwd>\n</environment_context>",
    ),
]


def _rounds(first: int, count: int, file: str) -> list[dict[str, Any]]:
    items = [r["payload"] for r in read_rounds(first + count, file, "of the kiln")]
    items = [i for i in items if i.get("type") != "token_count"][2 * first :]
    for i in items:
        if i["type"] == "function_call":
            i["id"] = f"fc_{i['call_id']}"
    return items


def _earlier() -> list[dict[str, Any]]:
    """A replacement_history as Codex 0.114 writes it: context, requests, answers with phase,
    calls with their outputs, the encrypted compaction item."""
    return [
        *CONTEXT,
        _parts("user", "Port the kiln scheduler to the new queue."),
        _said("Looking at the scheduler first.", "commentary", 1),
        *_rounds(0, 3, "sched.py"),
        _said("The scheduler is ported; the queue tests pass.", "final_answer", 2),
        _parts("user", "Now the retry policy."),
        COMPACTION,
    ]


def _later() -> list[dict[str, Any]]:
    reasoning = {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAABr" + "q" * 80}
    return [
        _said("Reading the retry code.", "commentary", 3),
        reasoning,
        *_rounds(3, 4, "retry.py"),
        _said("Retries now back off; 9 tests pass.", "final_answer", 4),
    ]


def rollout(compacted: bool) -> bytes:
    """With ``compacted``: the earlier items in a ``compacted`` record; without: as response
    items (the plain case)."""
    meta = {"id": "5e6f7a8b-0000-4000-8000-000000000043", "timestamp": STAMP, "cwd": "/work/kiln"}
    records = [rec("session_meta", meta), rec("turn_context", {"cwd": "/work/kiln"})]
    earlier = [i for i in _earlier() if compacted or i is not COMPACTION]
    if compacted:
        records += [
            rec("compacted", {"message": "", "replacement_history": earlier}),
            rec("event_msg", {"type": "context_compacted"}),
            rec("turn_context", {"cwd": "/work/kiln"}),
        ]
    else:
        records += [rec("response_item", i) for i in earlier]
    records += [rec("response_item", i) for i in _later()]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def _written(raw: bytes, append: bool, src: bytes) -> list[dict[str, Any]]:
    """The history the output hands Codex: the last ``compacted`` record's, then the items."""
    if append:
        raw = raw[len(src) :]
    records = [json.loads(line) for line in raw.split(b"\n") if line.strip()]
    at = max(i for i, r in enumerate(records) if r["type"] == "compacted")
    items: list[dict[str, Any]] = list(records[at]["payload"]["replacement_history"])
    items += [r["payload"] for r in records[at + 1 :] if r["type"] == "response_item"]
    return items


@pytest.mark.parametrize("compacted", [True, False], ids=["after-compaction", "plain"])
@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "reduce", "--force"),
        ("--strategy", "reduce", "--force", "--append"),
        ("--strategy", "hybrid", "--force"),  # under its trigger: it only reduces
    ],
    ids=["reduce", "reduce-append", "hybrid"],
)
def test_kept_codex_items_are_written_as_they_were(
    tmp_path: Path, args: tuple[str, ...], compacted: bool
) -> None:
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(rollout(compacted))
    items = _written(run_local(tmp_path, src, *args), "--append" in args, src.read_bytes())
    originals = [i for i in [*_earlier(), *_later()] if compacted or i is not COMPACTION]
    cleared = 0
    cursor = 0
    for item in items:
        if item.get("type") == "function_call_output":
            same = [o for o in originals if o.get("call_id") == item["call_id"] and o is not item]
            own = next(o for o in same if o["type"] == "function_call_output")
            assert list(item) == list(own)  # its keys, in order
            if item["output"] != own["output"]:
                cleared += 1
                assert {**item, "output": own["output"]} == own
            found = originals.index(own)
        else:
            assert item in originals, item  # the very item: phase, id, unknown keys, parts
            found = originals.index(item)
            assert list(item) == list(originals[found])
        assert found >= cursor, "order changed"
        cursor = found
    assert cleared >= 3  # really reduced
    said = [i for i in items if i.get("role") == "assistant"]
    assert [i["phase"] for i in said] == [
        "commentary",
        "final_answer",
        "commentary",
        "final_answer",
    ]
    assert [len(i["content"]) for i in items if i.get("role") == "developer"] == [2]
    assert [i for i in items if i.get("type") == "reasoning"] == [_later()[1]]


SUMMARY = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. The kiln scheduler is ported; the retry policy is next."
)


def _with_plain_summary() -> bytes:
    """Codex 0.117's own compaction (blind check 45, cx-collect): no encrypted item; its
    ``replacement_history`` holds the context messages and its summary as a user message, and
    ``message`` holds that summary too."""
    meta = {"id": "5e6f7a8b-0000-4000-8000-000000000045", "timestamp": STAMP, "cwd": "/work/kiln"}
    earlier = [i for i in _earlier() if i is not COMPACTION] + [_parts("user", SUMMARY)]
    records = [
        rec("session_meta", meta),
        rec("turn_context", {"cwd": "/work/kiln"}),
        rec("compacted", {"message": SUMMARY, "replacement_history": earlier}),
        rec("event_msg", {"type": "context_compacted"}),
        rec("turn_context", {"cwd": "/work/kiln"}),
        *[rec("response_item", i) for i in _later()],
    ]
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


@pytest.mark.parametrize("strategy", ["reduce", "hybrid"])
def test_a_reduce_keeps_the_context_a_plain_codex_compaction_kept(
    tmp_path: Path, strategy: str
) -> None:
    """Blind check 45: the raw's own summary (a user message) made the writer take the history
    for a summarized one and leave out the developer and AGENTS.md messages, which Codex 0.117
    had put in its replacement_history; a reduce (no summary of ours) keeps every one."""
    src = tmp_path / "rollout.jsonl"
    src.write_bytes(_with_plain_summary())
    items = _written(run_local(tmp_path, src, "--strategy", strategy, "--force"), False, b"")
    assert CONTEXT[0] in items and CONTEXT[1] in items, [i.get("role") for i in items]
    assert _parts("user", SUMMARY) in items
