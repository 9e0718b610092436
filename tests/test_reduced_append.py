"""``--strategy reduce|hybrid --append``: what the clients load is the reduced history.

No client needed (``tests/test_resume_clients.py`` runs the real ones): each test loads our
output the way the client loads a session (the reference compactions in
``../shared/transcripts/reference-compactions/`` and FORMATS.md say how) and compares it with
the input's history, every cleared result replaced by its placeholder.

* Claude Code: the chain from the newest message back through ``parentUuid`` stops at the
  ``compact_boundary`` (``parentUuid: null``); what follows it is the history. A reduce-only
  append writes the boundary and then the reduced history re-emitted: no ``isCompactSummary``
  record (nothing was summarized; the format does not need one, and Claude Code 2.1.197 resumes
  without it: ``test_resume_clients.py::test_claude_code_resumes_reduced_append_output``).
* Codex: the last ``compacted`` record's ``replacement_history``, then later response items.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, TRANSCRIPTS
from .fake_server_cli import invoke

SAMPLES = REPO / "sample_transcripts"
CLAUDE_SESSION = SAMPLES / "claude-code-session.jsonl"
CODEX_SESSION = REPO / "tests" / "fixtures" / "formats" / "codex.jsonl"
SHARED_CLAUDE = [TRANSCRIPTS / "claude-code" / "raze-grant-session.jsonl"]
SHARED_CODEX = [TRANSCRIPTS / "codex" / "soul-grant-rollout.jsonl"]
USAGE_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _run(tmp: Path, src: Path, *args: str, config: str = "") -> tuple[bytes, bytes, Path]:
    """``compact run`` with ``--append``: (input bytes, output bytes, offload folder)."""
    (tmp / "c.yaml").write_text("model: {provider: local}\n" + config, encoding="utf-8")
    out = tmp / "out.jsonl"
    proc = invoke(
        ["run", str(src), *args, "--append", "-c", "c.yaml", "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp / "data"), "NO_COLOR": "1"},
        cwd=tmp,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    before = src.read_bytes()
    raw = out.read_bytes()
    assert raw.startswith(before) and len(raw) > len(before)
    return before, raw, tmp / "out.offload"


def _records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _offloaded(folder: Path) -> dict[str, str]:
    """Call id → the text its offload file holds (bytes as they are: CRLF kept)."""
    files = sorted((folder / "clear").iterdir())
    assert files, f"nothing was cleared into {folder}"
    return {f.name: f.read_bytes().decode("utf-8") for f in files}


def _placeholder(folder: Path, call_id: str, read: str) -> str:
    """SPEC §10's clearing placeholder with an offload backend."""
    path = folder.resolve() / "clear" / call_id
    return f"<persisted-output>Tool result saved to: {path}\nUse {read} to view</persisted-output>"


# -- Claude Code --------------------------------------------------------------------------------


def _claude_chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records Claude Code loads on resume: from the newest user/assistant record back
    through ``parentUuid`` to a record without parent (a compact boundary, or the first)."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    current: dict[str, Any] | None = next(
        r for r in reversed(records) if r.get("type") in ("user", "assistant") and "uuid" in r
    )
    chain: list[dict[str, Any]] = []
    while current is not None:
        chain.append(current)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    return chain[::-1]


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.get("type") == "tool_result":
            block = {**block, "content": _blocks(block.get("content") or "")}
            block.setdefault("is_error", False)
        blocks.append(block)
    return blocks


def _claude_messages(chain: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(role, blocks) per message, split assistant lines merged by ``message.id``."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    last_id = None
    for rec in chain:
        kind = rec.get("type")
        if kind == "attachment":
            out.append(("attachment", [rec["attachment"]]))
            last_id = None
            continue
        if kind not in ("user", "assistant"):
            continue
        body = rec["message"]
        blocks = _blocks(body["content"])
        if kind == "assistant" and body.get("id") == last_id:
            out[-1][1].extend(blocks)
        else:
            out.append((kind, blocks))
        last_id = body.get("id") if kind == "assistant" else None
    return out


def _cleared(
    messages: list[tuple[str, list[dict[str, Any]]]], texts: dict[str, str]
) -> list[tuple[str, list[dict[str, Any]]]]:
    """``messages`` with the results named in ``texts`` replaced by that text."""
    out = []
    for role, blocks in messages:
        new = []
        for block in blocks:
            call = block.get("tool_use_id")
            if block.get("type") == "tool_result" and call in texts:
                block = {**block, "content": [{"type": "text", "text": texts[call]}]}
            new.append(block)
        out.append((role, new))
    return out


def _claude_results(messages: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, str]:
    return {
        b["tool_use_id"]: "\n".join(c.get("text", "") for c in b["content"])
        for _, blocks in messages
        for b in blocks
        if b.get("type") == "tool_result"
    }


# (raze-grant-session is not among them: its two results are shorter than a placeholder,
# so a reduction keeps them and writes nothing)
@pytest.mark.parametrize("src", [CLAUDE_SESSION], ids=lambda p: Path(p).stem)
def test_claude_code_reduce_append_loads_as_the_reduced_history(tmp_path: Path, src: Path) -> None:
    """A boundary, then the reduced history re-emitted as one fresh chain; no summary record;
    the copies' usage zeroed; what Claude Code loads is the input's history with each cleared
    result its placeholder, and each offload file holds exactly the original."""
    if not src.is_file():
        pytest.skip(f"{src} is not beside the checkout")
    before, raw, folder = _run(tmp_path, src, "--strategy", "reduce", "--force")
    old_records = _records(before)
    appended = _records(raw[len(before) :])

    boundary = appended[0]
    assert boundary["type"] == "system" and boundary["subtype"] == "compact_boundary"
    assert boundary["parentUuid"] is None
    old_chain = _claude_chain(old_records)
    assert boundary["logicalParentUuid"] == old_chain[-1]["uuid"]
    meta = boundary["compactMetadata"]
    assert meta["trigger"] == "manual" and meta["preTokens"] > meta["postTokens"] > 0
    assert "preservedSegment" not in meta  # nothing is left in place: every message is copied
    assert not any(r.get("isCompactSummary") for r in appended), "reduce summarizes nothing"
    session = {r["sessionId"] for r in old_records if "sessionId" in r}
    assert {r["sessionId"] for r in appended} == session

    new_chain = _claude_chain(records=_records(raw))
    assert new_chain[0] == boundary and new_chain[1:] == appended[1:], "one chain after it"
    old_uuids = {r.get("uuid") for r in old_records}
    old_ids = {(r.get("message") or {}).get("id") for r in old_records}
    for rec in appended:
        assert rec["uuid"] not in old_uuids
        body = rec.get("message") or {}
        if rec["type"] == "assistant":
            assert body["id"] not in old_ids  # else Claude Code merges it with the original
            assert all(body.get("usage", {}).get(k, 0) == 0 for k in USAGE_KEYS), body["usage"]

    offloaded = _offloaded(folder)
    old_messages = _claude_messages(old_chain)
    originals = _claude_results(old_messages)
    for call_id, text in offloaded.items():
        assert text == originals[call_id], call_id
    placeholders = {c: _placeholder(folder, c, "Read") for c in offloaded}
    assert _claude_messages(new_chain[1:]) == _cleared(old_messages, placeholders)


def test_claude_code_hybrid_append_copies_carry_no_stale_usage(tmp_path: Path) -> None:
    """Hybrid keeps reduced rounds after its summary, so the unchanged records around them are
    copied after the boundary: their usage is zeroed (Claude Code takes the last assistant
    usage as the context size; a copy's old one made it compact again at once)."""
    # longer assistant texts (never cleared; their usage says so): a summary of them is smaller
    # than the reduced history, so hybrid summarizes (never a summary larger than reduction)
    recs = _records(CLAUDE_SESSION.read_bytes())
    for rec in (r for r in recs if r.get("type") == "assistant"):
        if rec["message"].get("usage"):
            rec["message"]["usage"]["input_tokens"] += 10_000
        for block in rec["message"].get("content", []):
            if block.get("type") == "text":
                block["text"] += " The reasoning behind this step goes on." * 150
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    before, raw, folder = _run(
        tmp_path,
        src,
        *("--strategy", "hybrid", "--threshold", "6700"),
        config="keep: {messages: 12}\nloop_guard: false\n",
    )
    old = [r for r in _records(before) if r.get("type") == "assistant"]
    assert all(any(r["message"]["usage"].get(k) for k in USAGE_KEYS) for r in old)
    appended = _records(raw[len(before) :])
    assert sum(bool(r.get("isCompactSummary")) for r in appended) == 1
    copies = [r for r in appended if r.get("type") == "assistant"]
    assert copies, "no assistant record was copied after the boundary"
    for rec in copies:
        assert all(rec["message"]["usage"].get(k, 0) == 0 for k in USAGE_KEYS), rec["uuid"]
    kept = _claude_messages(_claude_chain(_records(raw))[2:])  # after boundary and summary
    offloaded = _offloaded(folder)
    sent = _claude_results(kept)
    assert any(sent.get(c) == _placeholder(folder, c, "Read") for c in offloaded)


# -- Codex --------------------------------------------------------------------------------------


def _codex_history(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items Codex resumes with: the last ``replacement_history``, then later items."""
    history: list[dict[str, Any]] = []
    for rec in records:
        if rec.get("type") == "compacted":
            history = list(rec["payload"]["replacement_history"])
        elif rec.get("type") == "response_item":
            history.append(rec["payload"])
    return history


@pytest.mark.parametrize("src", [CODEX_SESSION, *SHARED_CODEX], ids=lambda p: Path(p).stem)
def test_codex_reduce_append_replacement_history_is_the_reduced_history(
    tmp_path: Path, src: Path
) -> None:
    """A ``compacted`` record (no summary message) whose ``replacement_history`` is the input's
    items with each cleared output its placeholder, then the size after it and
    ``context_compacted``, as Codex writes them."""
    if not src.is_file():
        pytest.skip(f"{src} is not beside the checkout")
    before, raw, folder = _run(tmp_path, src, "--strategy", "reduce", "--force")
    appended = _records(raw[len(before) :])
    assert [r["type"] for r in appended] == ["compacted", "event_msg", "event_msg"]
    compacted, count, event = (r["payload"] for r in appended)
    assert compacted["message"] == ""  # as Codex's own remote compaction writes it
    assert count["type"] == "token_count" and event == {"type": "context_compacted"}
    assert 0 < count["info"]["last_token_usage"]["total_tokens"]

    old = _codex_history(_records(before))  # every item: nothing is dropped (blind check 29)
    offloaded = _offloaded(folder)
    expected = []
    for item in old:
        if item.get("type", "").endswith("_call_output") and item["call_id"] in offloaded:
            assert offloaded[item["call_id"]] == item["output"]
            cid = item["call_id"]
            path = folder.resolve() / "clear" / cid
            item = {**item, "output": _placeholder(folder, cid, f"shell (`cat {path}`)")}
        expected.append(item)
    assert _codex_history(_records(raw)) == expected
