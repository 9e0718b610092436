"""Claude Code 1.0.x records after blind check 9 (issues 28/30; RELIABILITY rows 430-439).

* 1.0.x wrote its own compaction without a ``compact_boundary``: the summary is a ``user``
  record with ``isCompactSummary: true`` and ``parentUuid: null`` after the old chain, and
  Claude Code loads only the chain from there. The reader starts the history at it, so
  ``--strategy reduce|hybrid`` and summarize's ``--append`` never write the old chain again as
  live history (sw-dns: the real client resent 168 messages from the session's first one).
* 1.0.x wrote a sub-agent's conversation inline (``isSidechain: true``, its prompt without
  parent): not the main conversation, so its prompts are not the user's requests; the records
  stay in the file.

The sessions are synthetic (``tests/cc_session.py``), built in the test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage, content_type

from .cc_session import OLD_SUMMARY, SIDECHAIN_PROMPT, old_compaction_session
from .fake_server_cli import invoke


def _write(tmp_path: Path) -> tuple[Path, bytes]:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(old_compaction_session().lines()) + b"\n")
    return src, src.read_bytes()


def _records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What Claude Code loads on resume: the newest main-conversation record back through
    ``parentUuid`` to a record without parent (a boundary, a 1.0.x summary, the first)."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    current: dict[str, Any] | None = next(
        r
        for r in reversed(records)
        if r.get("type") in ("user", "assistant") and not r.get("isSidechain")
    )
    chain: list[dict[str, Any]] = []
    while current is not None:
        chain.append(current)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    return chain[::-1]


def _tool_ids(records: list[dict[str, Any]]) -> set[str]:
    ids: set[str] = set()
    for rec in records:
        content = (rec.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            ids.add(block.get("id") or block.get("tool_use_id") or "")
    return ids - {""}


def _old_ids(raw: bytes) -> set[str]:
    """Tool ids of the chain before the 1.0.x summary (what must never be live again)."""
    records = _records(raw)
    at = next(i for i, r in enumerate(records) if r.get("isCompactSummary"))
    return _tool_ids(records[:at])


def _texts(messages: list[Any]) -> list[str]:
    return [
        "\n".join(b.text or "" for b in m.blocks if b.text)
        for m in messages
        if isinstance(m, AgenticMessage)
    ]


def test_the_history_starts_at_a_1_0_summary_without_parent(tmp_path: Path) -> None:
    src, raw = _write(tmp_path)
    t = read_transcript(str(src), raw)
    first = t.messages[0]
    assert content_type(first) == "summary" and _texts([first]) == [OLD_SUMMARY]
    ids = {b.call_id for m in t.messages for b in m.blocks if b.call_id}  # type: ignore[union-attr]
    old = _old_ids(raw)
    assert len(old) == 5 and not ids & old, sorted(ids & old)
    assert "toolu_live_task" in ids
    assert not any("load claude.md" in x for x in _texts(t.messages))


@pytest.mark.parametrize(
    ("args", "config"),
    [
        (["--strategy", "reduce"], ""),
        (
            ["--strategy", "hybrid", "--threshold", "1500"],
            "keep: {messages: 6}\nloop_guard: false\n",
        ),
        ([], "keep: {messages: 6}\n"),
    ],
    ids=["reduce", "hybrid", "summarize-tail"],
)
def test_append_never_makes_the_old_chain_live_again(
    tmp_path: Path, args: list[str], config: str
) -> None:
    """``--append`` after a 1.0.x compaction: what Claude Code loads (the chain from the
    newest record) holds no tool id of the chain before the 1.0.x summary."""
    src, raw = _write(tmp_path)
    (tmp_path / "c.yaml").write_text("model: {provider: local}\n" + config, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", str(src), *args, "--force", "--append", "-c", "c.yaml", "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    data = out.read_bytes()
    assert data.startswith(raw) and len(data) > len(raw)
    assert src.read_bytes() == raw
    records = _records(data)
    chain = _chain(records)
    assert chain[0]["type"] == "system" and chain[0]["subtype"] == "compact_boundary"
    # the messages a boundary preserves in place are loaded after its summary
    preserved = (chain[0]["compactMetadata"].get("preservedMessages") or {}).get("uuids", [])
    by_uuid = {r.get("uuid"): r for r in records}
    live = _tool_ids(chain + [by_uuid[u] for u in preserved])
    assert live, "nothing of the live chain was written after the boundary"
    assert not live & _old_ids(raw), sorted(live & _old_ids(raw))
    appended = _records(data[len(raw) :])
    assert not any(r.get("isSidechain") for r in appended), "a sidechain record was made main"
    if args[:2] == ["--strategy", "reduce"]:  # every live message is copied, the summary first
        assert chain[1].get("isCompactSummary") and chain[1]["message"]["content"] == OLD_SUMMARY
        assert "toolu_live_task" in live


def test_sidechain_prompts_are_not_the_users_requests(tmp_path: Path) -> None:
    """The inline sub-agent's prompt is not read as a user message (the Task call carries it),
    the summary does not list it among the user's messages, and the records stay as they were
    in a reduction's output (every line written back)."""
    src, raw = _write(tmp_path)
    t = read_transcript(str(src), raw)
    users = [
        b.text
        for m in t.messages
        if isinstance(m, AgenticMessage) and m.role == "user" and not m.extra.get("injected")
        for b in m.blocks
        if b.type == "user_input_text"
    ]
    assert users == ["retry"]
    calls = [b for m in t.messages for b in m.blocks if b.type == "function_tool_call"]  # type: ignore[union-attr]
    assert any(SIDECHAIN_PROMPT in json.dumps(b.arguments) for b in calls)

    out = tmp_path / "out.jsonl"
    proc = invoke(["run", "--model", "local", "--force", str(src), "-o", str(out)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    summary = next(
        r["message"]["content"]
        for r in _records(out.read_bytes())
        if r.get("isCompactSummary") and r["message"]["content"] != OLD_SUMMARY
    )
    everyone = summary.split("<all_user_messages>", 1)[1].split("</all_user_messages>", 1)[0]
    assert "retry" in everyone
    assert SIDECHAIN_PROMPT not in everyone and "requests from the user" not in everyone
    assert "1 request from the user" in summary or "1 requests from the user" in summary

    reduced = tmp_path / "reduced.jsonl"
    proc = invoke(
        ["run", str(src), "--strategy", "reduce", "--force", "-o", str(reduced)],
        env={"XDG_DATA_HOME": str(tmp_path / "data")},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    side = [line for line in raw.splitlines() if b'"isSidechain":true' in line]
    assert len(side) == 4
    kept = reduced.read_bytes().splitlines()
    assert all(line in kept for line in side)


def test_a_file_of_sidechain_records_only_is_read_whole(tmp_path: Path) -> None:
    """A sub-agent's own file (every record ``isSidechain``) is its conversation: read whole."""
    records = _records(_write(tmp_path)[1])
    at = next(i for i, r in enumerate(records) if r.get("isCompactSummary"))
    live = [{**r, "isSidechain": True} for r in records[at + 1 :]]
    src = tmp_path / "agent-a1.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in live), encoding="utf-8")
    t = read_transcript(str(src), src.read_bytes())
    assert len(t.messages) > 10
    assert "retry" in _texts(t.messages)
