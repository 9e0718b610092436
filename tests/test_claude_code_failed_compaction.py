"""Claude Code's own compaction that failed (blind check 21; RELIABILITY rows 910-929).

When its summarization call hits the usage limit (or an API error, a prompt too long), Claude
Code still writes a ``compact_boundary`` and an ``isCompactSummary`` record, whose text between
the usual preamble and closing is only the CLI's error ("You've hit your limit · resets …").
It summarizes nothing: the reader reads on over it from the previous real compaction (or the
start of the file), so the user's request just before it is seen, and ``--append`` (after which
the client resumes from the newest boundary, ours) carries it. The sessions are built here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compactor.formats._claude_history import preserved_uuids
from compactor.formats.registry import read_transcript
from compactor.schema import AgenticMessage, content_type

from .cc_session import Session
from .fake_server_cli import invoke

PREAMBLE = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)
CLOSING = (
    "\n\nIf you need specific details from before compaction (like exact code snippets, error "
    "messages, or content you generated), read the full transcript at: /home/dev/s.jsonl\n"
    "Please continue the conversation from where we left it off without asking the user any "
    "further questions. Continue with the last task that you were asked to work on."
)
REAL_SUMMARY = (
    "Analysis:\nThe user asked to build the invoice exporter.\n\nSummary:\n1. Primary Request "
    "and Intent:\n   Build the CSV invoice exporter in src/export.py.\n2. Pending Tasks:\n"
    "   - Add the totals row."
)
LIMIT = "You've hit your limit · resets Jan 18, 8pm (Europe/Berlin)"
REQUEST = (
    "Design the reminder panel for overdue invoices from the existing checkout styles, and "
    "make the currency/rate display a shared component"
)
EARLY = "Export only the paid invoices, please."


def _boundary(s: Session, summary: str) -> None:
    s.parent = None
    s._add(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 155000},
        }
    )
    s.user(PREAMBLE + summary + CLOSING)
    s.records[-1]["isCompactSummary"] = True
    s.records[-1]["isVisibleInTranscriptOnly"] = True


def _limit(s: Session) -> None:
    s.assistant([{"type": "text", "text": LIMIT}])
    s.records[-1]["message"]["model"] = "<synthetic>"
    s.records[-1]["isApiErrorMessage"] = True


def failed_session(*, real_boundary: bool = True, error: str = LIMIT) -> Session:
    """Old work, a real own compaction (optional), work and the user's request, then a
    compaction whose "summary" is only ``error``, and the user's short probes answered by the
    limit text."""
    s = Session()
    s.user("Start the invoice exporter.")
    s.bash("ls src", "export.py\nmodels.py")
    if real_boundary:
        _boundary(s, REAL_SUMMARY)
    s.user(EARLY)
    for i in range(5):
        out = "\n".join(f"invoice-{i}-{k}: status paid, total {k * 3} EUR" for k in range(80))
        s.bash(f"python -m export --batch {i}", out)
        s.assistant([{"type": "text", "text": f"Batch {i} exported: 80 paid invoices."}])
    s.user(REQUEST)
    s.bash("ls src/components", "checkout.tsx\nrate.tsx")
    _limit(s)
    _boundary(s, error)
    _limit(s)
    s.user("get back my last instruction")
    _limit(s)
    return s


def _write(tmp_path: Path, s: Session) -> tuple[Path, bytes]:
    src = tmp_path / "session.jsonl"
    src.write_bytes(b"\n".join(s.lines()) + b"\n")
    return src, src.read_bytes()


def _records(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _texts(messages: list[Any]) -> str:
    return "\n".join(
        b.text or "" for m in messages if isinstance(m, AgenticMessage) for b in m.blocks
    )


def _chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What Claude Code loads on resume: the newest record back through ``parentUuid`` to a
    record without parent (the newest boundary), then the messages that boundary preserves."""
    by_uuid = {r["uuid"]: r for r in records if isinstance(r.get("uuid"), str)}
    current: dict[str, Any] | None = next(
        r for r in reversed(records) if r.get("type") in ("user", "assistant")
    )
    chain: list[dict[str, Any]] = []
    while current is not None:
        chain.append(current)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if isinstance(parent, str) else None
    chain.reverse()
    meta = chain[0].get("compactMetadata") or {}
    listed = (meta.get("preservedMessages") or {}).get("uuids", [])
    # a client that reads only preservedSegment walks it from its tail by parentUuid
    _, walked = preserved_uuids({"preservedSegment": meta.get("preservedSegment")}, by_uuid)
    assert walked == listed, "preservedSegment and preservedMessages disagree"
    return chain[:2] + [by_uuid[u] for u in walked] + chain[2:]


@pytest.mark.parametrize(
    "error",
    [
        LIMIT,
        "API Error: 500 Internal server error",
        "Prompt is too long",
        "Conversation too long. Press esc twice to go up a few messages and try again.",
    ],
    ids=["limit", "api-error", "prompt-too-long", "conversation-too-long"],
)
def test_a_failed_own_compaction_starts_no_history(tmp_path: Path, error: str) -> None:
    """The history starts after the previous real boundary: the request before the failed one
    is read, its error "summary" is no message, the real summary is the first."""
    src, raw = _write(tmp_path, failed_session(error=error))
    t = read_transcript(str(src), raw)
    text = _texts(t.messages)
    assert REQUEST in text and EARLY in text
    assert "Start the invoice exporter." not in text  # before the real boundary
    summaries = [m for m in t.messages if content_type(m) == "summary"]
    assert len(summaries) == 1 and REAL_SUMMARY in _texts(summaries)
    assert error not in _texts(summaries)


def test_without_a_real_compaction_the_whole_file_is_read(tmp_path: Path) -> None:
    src, raw = _write(tmp_path, failed_session(real_boundary=False))
    t = read_transcript(str(src), raw)
    text = _texts(t.messages)
    assert "Start the invoice exporter." in text and REQUEST in text
    assert not [m for m in t.messages if content_type(m) == "summary"]


def test_a_real_summary_that_names_the_limit_is_a_summary(tmp_path: Path) -> None:
    """A summary that only mentions the limit (or starts with an error's words inside a long
    text) still starts the history."""
    summary = LIMIT + "\n\n" + REAL_SUMMARY + "\n" + "   - More detail of the work.\n" * 20
    src, raw = _write(tmp_path, failed_session(error=summary))
    t = read_transcript(str(src), raw)
    assert REQUEST not in _texts(t.messages)
    assert "get back my last instruction" in _texts(t.messages)


@pytest.mark.parametrize("config", ["", "keep: {messages: 6}\n"], ids=["summary", "tail"])
def test_append_carries_the_request_before_the_failed_compaction(
    tmp_path: Path, config: str
) -> None:
    """``run --append``: the client resumes from the newest boundary (the appended one); its
    summary holds the request from before the failed compaction, and kept messages from
    before it are written again (the client could not chain them from there), each once."""
    src, raw = _write(tmp_path, failed_session())
    (tmp_path / "c.yaml").write_text("model: {provider: local}\n" + config, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", str(src), "--force", "--no-cache", "--append", "-c", "c.yaml", "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    data = out.read_bytes()
    assert data.startswith(raw) and src.read_bytes() == raw
    chain = _chain(_records(data))
    assert chain[0]["subtype"] == "compact_boundary" and chain[1].get("isCompactSummary")
    summary = chain[1]["message"]["content"]
    assert REQUEST[:60] in summary
    assert (
        "From the earlier summary" not in summary
        or LIMIT not in summary.split("From the earlier summary", 1)[1].split("\n", 1)[0]
    )
    loaded = json.dumps([r.get("message") for r in chain[2:]], ensure_ascii=False)
    if config:
        assert loaded.count("get back my last instruction") == 1
        assert loaded.count("ls src/components") == 1
        assert loaded.count(REQUEST) <= 1
    # the client reads this back the same way: the appended boundary starts the history
    again = read_transcript(str(out), data)
    assert content_type(again.messages[0]) == "summary"
    assert _texts(again.messages[:1]) == summary


def test_a_forced_run_on_a_history_smaller_than_its_summary_says_so(tmp_path: Path) -> None:
    """``run --force`` on a live window of a few hundred tokens: the summary would be larger
    (loop_guard.max_growth), so exit 4 with a message that says the history is already
    smaller than any summary of it; nothing written, the input unchanged."""
    s = Session()
    s.user("Rename the helper.")
    s.assistant([{"type": "text", "text": "Renamed."}])
    del s.records[-1]["message"]["usage"]  # counted from its text: a few tokens
    src, raw = _write(tmp_path, s)
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", "--model", "local", "--force", "--no-cache", str(src), "-o", str(out)],
        env={"XDG_DATA_HOME": str(tmp_path / "data"), "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 4, proc.stderr.decode()
    err = proc.stderr.decode()
    assert err.startswith("compact: loop guard: ") and err.count("\n") == 1
    assert "the history is already smaller than its summary would be" in err
    assert "nothing to compact" in err and "nothing was written" in err
    assert not out.exists() and src.read_bytes() == raw
