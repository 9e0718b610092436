"""Issue 27: nothing is lost at the formats' edges.

* Point 3: content parts and blocks the readers do not model (chat ``input_text``,
  ``output_text``, ``refusal``; Anthropic ``document``, ``server_tool_use``,
  ``web_search_tool_result``, ``search_result``, any unknown block) keep their text: the
  summarizer receives it, and a part written back is byte for byte the part read.
* Point 15: an earlier summary in an openai or anthropic file (no key marks it there) is known by
  our preamble, so compacting again never quotes it back as the user's own words.

Runs go through the real command line (in-process) with the embedded summarizer, or with the fake
OpenAI server on 127.0.0.1 whose recorded requests show what the summarizer was sent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from compactor.formats._jsonl import with_final_newline
from compactor.formats.registry import read_transcript, write_transcript
from compactor.pipeline.rendering import render_transcript
from compactor.prompts import PREAMBLE
from compactor.schema import content_type, make_user, user_text, with_content_type
from compactor.testing.fake_openai import FakeOpenAI

from .fake_server_cli import REPO, invoke
from .transcript_strategies import transcripts

# -- point 15: re-compacting never re-inserts an earlier summary as the user's words ------------

_REQUESTS = [
    "Please find out why the nightly backup on db-2 did not run.",
    "Check the timer unit file and the journal for backup-nightly.",
    "Fix the OnCalendar line and reload systemd.",
    "Now run the backup once by hand and show me the log.",
    "Write a short note in OPERATIONS.md about what went wrong.",
]


def _chat_turns(fmt: str) -> list[dict[str, Any]]:
    """A conversation with long tool output (so a summary is much smaller than it), as openai or
    anthropic records."""
    records: list[dict[str, Any]] = [{"role": "system", "content": "You are an operator."}]
    for i, request in enumerate(_REQUESTS):
        output = "\n".join(f"journal line {i}.{j}: backup-nightly step {j} ok" for j in range(60))
        args = {"command": f"journalctl -u backup-nightly --lines 60 # step {i}"}
        records.append({"role": "user", "content": request})
        if fmt == "openai":
            function = {"name": "bash", "arguments": json.dumps(args)}
            call = {"id": f"call_{i}", "type": "function", "function": function}
            records.append({"role": "assistant", "content": None, "tool_calls": [call]})
            records.append({"role": "tool", "tool_call_id": f"call_{i}", "content": output})
        else:
            use = {"type": "tool_use", "id": f"toolu_{i}", "name": "bash", "input": args}
            records.append({"role": "assistant", "content": [use]})
            result = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": output}
            records.append({"role": "user", "content": [result]})
        records.append({"role": "assistant", "content": f"Done with step {i}."})
    return records


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _user_block(text: str) -> list[str]:
    """The lines inside the ``<all_user_messages>`` block of a summary."""
    start = text.index("<all_user_messages>") + len("<all_user_messages>")
    end = text.index("</all_user_messages>")
    return [line for line in text[start:end].splitlines() if line.strip()]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_recompacting_three_rounds_keeps_one_summary_and_no_summary_as_user_words(
    tmp_path: Path, fmt: str
) -> None:
    src = tmp_path / "r0.jsonl"
    _write_jsonl(src, _chat_turns(fmt))
    for round_ in (1, 2, 3):
        out = tmp_path / f"r{round_}.jsonl"
        proc = invoke(
            [
                *("run", str(tmp_path / f"r{round_ - 1}.jsonl"), "--force", "--model", "local"),
                *("--format", fmt, "-o", str(out), "-q"),
            ],
            env={"NO_COLOR": "1", "XDG_CACHE_HOME": str(tmp_path / "xdg")},
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        raw = out.read_text(encoding="utf-8")
        assert raw.count(PREAMBLE) == 1, (round_, raw.count(PREAMBLE))
        messages = read_transcript(str(out), out.read_bytes()).messages
        summaries = [m for m in messages if content_type(m) == "summary"]
        assert len(summaries) == 1  # the reader knows our own summary by its preamble
        (summary,) = summaries
        lines = _user_block(user_text(summary))
        quoted = "\n".join(lines)
        assert PREAMBLE not in quoted
        assert "<summary>" not in quoted
        # Round 1 quotes the five requests; later rounds have no user message of their own to
        # quote (the requests live on inside the earlier summary the summarizer read).
        assert len(lines) == (len(_REQUESTS) if round_ == 1 else 0), lines
        # Only the system prompt and the summary: the earlier summary was summarized away.
        assert [m.role for m in messages] == ["system", "user"]
    # The file as written is still what the provider's API takes: no marker key in any record.
    for line in (tmp_path / "r3.jsonl").read_text(encoding="utf-8").splitlines():
        assert set(json.loads(line)) == {"role", "content"}


# -- point 3: parts and blocks the readers do not model keep their text -------------------------

_CHAT_PARTS: list[dict[str, Any]] = [
    {"type": "input_text", "text": "PLANTED-INPUT-TEXT: rename foo() to bar() in util.py"},
    {"type": "output_text", "text": "PLANTED-OUTPUT-TEXT: renamed it", "annotations": []},
    {"type": "refusal", "refusal": "PLANTED-REFUSAL: I will not delete the database"},
    {"type": "text", "text": "PLANTED-CACHED-TEXT", "cache_control": {"type": "ephemeral"}},
    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
    {"type": "quote_2027", "quote_2027": {"source": "a.md", "text": "PLANTED-NESTED-TEXT"}},
]

_ANTHROPIC_BLOCKS: list[dict[str, Any]] = [
    {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "PLANTED-DOC-BODY: 30 days"},
        "title": "contract.txt",
        "citations": {"enabled": True},
    },
    {
        "type": "server_tool_use",
        "id": "srvtoolu_01",
        "name": "web_search",
        "input": {"query": "PLANTED-QUERY notice period"},
    },
    {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://law.example/notice",
                "title": "PLANTED-RESULT-TITLE: notice periods",
                "encrypted_content": "EqgfCioIARgBIiQ3YTAw",
                "page_age": "2 days ago",
            }
        ],
    },
    {"type": "mystery_block_2027", "payload": {"note": "PLANTED-UNKNOWN-BLOCK"}},
]

_RESULT_ITEMS: list[dict[str, Any]] = [
    {
        "type": "search_result",
        "source": "https://s.example/a",
        "title": "A",
        "content": [{"type": "text", "text": "PLANTED-SEARCH-RESULT"}],
    },
    {"type": "tool_reference", "tool_name": "PLANTED-TOOL-REFERENCE"},
]


def _dump(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))  # the bytes orjson writes back


def _planted(items: list[dict[str, Any]]) -> list[str]:
    return sorted({w for w in _dump(items).replace('"', " ").split() if w.startswith("PLANTED")})


def _openai_records() -> list[dict[str, Any]]:
    user, assistant, refusal, cached, audio, nested = _CHAT_PARTS
    return [
        {"role": "system", "content": "You are a careful coding assistant."},
        {"role": "user", "content": [user, audio, nested]},
        {"role": "assistant", "content": [assistant]},
        {"role": "user", "content": [cached]},
        {"role": "assistant", "content": [refusal]},
        {"role": "user", "content": "Then leave it as it is."},
        {"role": "assistant", "content": "Left as it is."},
    ]


def _anthropic_records() -> list[dict[str, Any]]:
    document, server_use, search_result, unknown = _ANTHROPIC_BLOCKS
    use = {"type": "tool_use", "id": "toolu_01", "name": "lookup", "input": {"q": "x"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_01", "content": _RESULT_ITEMS}
    usage = {"input_tokens": 900, "output_tokens": 40}
    # the API checks a thinking block's signature when the turn is sent back
    thinking = {"type": "thinking", "thinking": "", "signature": "EqQBCkgIARABGAIiQ"}
    return [
        {"role": "user", "content": [document, {"type": "text", "text": "What notice applies?"}]},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [result, unknown]},
        {
            "role": "assistant",
            "content": [thinking, server_use, search_result, {"type": "text", "text": "30 days."}],
            "usage": usage,
        },
    ]


def _jsonl_bytes(records: list[dict[str, Any]]) -> bytes:
    return "".join(_dump(r) + "\n" for r in records).encode()


@pytest.mark.parametrize(
    ("fmt", "records", "planted"),
    [
        ("openai", _openai_records(), _planted(_CHAT_PARTS)),
        ("anthropic", _anthropic_records(), _planted(_ANTHROPIC_BLOCKS + _RESULT_ITEMS)),
    ],
)
def test_unknown_parts_and_blocks_reach_the_summarizer(
    tmp_path: Path, fake: FakeOpenAI, fmt: str, records: list[dict[str, Any]], planted: list[str]
) -> None:
    assert len(planted) >= 4
    src = tmp_path / "in.jsonl"
    src.write_bytes(_jsonl_bytes(records))
    cfg = tmp_path / "compact.yaml"
    cfg.write_text(
        f"model: {{provider: openai, name: m, base_url: '{fake.base_url}', timeout: 5}}\n"
        "cache: false\nloop_guard: false\n",
        encoding="utf-8",
    )
    proc = invoke(
        ["run", "-c", str(cfg), str(src), "--force", "-o", str(tmp_path / "out.jsonl"), "-q"],
        env={"OPENAI_API_KEY": "sk-test-content", "OPENAI_BASE_URL": None, "NO_COLOR": "1"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    sent = "\n".join(json.dumps(r.json, ensure_ascii=False) for r in fake.requests)
    assert len(fake.requests) == 1
    missing = [word for word in planted if word not in sent]
    assert missing == []  # every text the model read, the summarizer read too
    assert "EqgfCioIARgBIiQ3YTAw" not in sent  # opaque encrypted content stays out
    assert src.read_bytes() == _jsonl_bytes(records)


def _content_of(line: bytes) -> bytes:
    """The bytes of a record's ``content`` value, as written (the record is compact JSON)."""
    start = line.index(b'"content":') + len(b'"content":')
    record = json.loads(line)
    return line[start : start + len(_dump(record["content"]).encode())]


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_unknown_parts_and_blocks_are_written_back_byte_for_byte(fmt: str) -> None:
    records = _openai_records() if fmt == "openai" else _anthropic_records()
    raw = _jsonl_bytes(records)
    transcript = read_transcript("in.jsonl", raw, fmt)
    kind: Any = type(transcript.messages[0])
    summary = with_content_type(make_user(kind, "the summary"), "summary")
    # append renders every message afresh (shrink does too for a kept message that had usage)
    out = write_transcript(transcript, [summary, *transcript.messages], mode="append")
    rendered = out[len(raw) :].splitlines()[1:]
    assert len(rendered) == len(records)
    for original, line in zip(raw.splitlines(), rendered, strict=True):
        assert _content_of(line) == _content_of(original)


def test_a_kept_anthropic_turn_keeps_its_server_tool_blocks(tmp_path: Path) -> None:
    """``keep`` a tail whose assistant turn carried usage: that turn is rendered again (its stale
    usage dropped), and its thinking signature and server-tool blocks must come back as they
    were."""
    src = tmp_path / "in.jsonl"
    raw = _jsonl_bytes(_anthropic_records())
    src.write_bytes(raw)
    cfg = tmp_path / "compact.yaml"
    cfg.write_text("keep: {messages: 1}\nloop_guard: false\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    proc = invoke(
        ["run", "-c", str(cfg), str(src), "--force", "--model", "local", "-o", str(out), "-q"],
        env={"NO_COLOR": "1", "XDG_CACHE_HOME": str(tmp_path / "xdg")},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    last = out.read_bytes().splitlines()[-1]
    assert "usage" not in json.loads(last)
    assert _content_of(last) == _content_of(raw.splitlines()[-1])


def test_codex_refusal_and_claude_code_document_keep_their_text(tmp_path: Path) -> None:
    codex = (REPO / "tests" / "fixtures" / "formats" / "codex.jsonl").read_bytes()
    refusal = {"type": "refusal", "refusal": "PLANTED-CODEX-REFUSAL"}
    item = {"type": "message", "role": "assistant", "content": [refusal]}
    line = {"timestamp": "2026-03-02T10:00:06.000Z", "type": "response_item", "payload": item}
    codex += _dump(line).encode() + b"\n"
    texts = render_transcript(read_transcript("c.jsonl", codex, "codex").messages)
    assert "PLANTED-CODEX-REFUSAL" in texts

    claude = (REPO / "sample_transcripts" / "claude-code-session.jsonl").read_bytes()
    lines = claude.splitlines()
    first = json.loads(lines[0])
    document, *_ = _ANTHROPIC_BLOCKS
    first["message"]["content"] = [document, {"type": "text", "text": first["message"]["content"]}]
    lines[0] = _dump(first).encode()
    transcript = read_transcript("s.jsonl", b"\n".join(lines) + b"\n", "claude-code")
    assert "PLANTED-DOC-BODY" in render_transcript(transcript.messages)
    assert "PLANTED-DOC-BODY" in user_text(transcript.messages[0])  # the user's own attachment


_MODELLED_BLOCKS = {"text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result"}


@settings(max_examples=150, deadline=None, database=None)
@given(transcripts(formats=("openai", "anthropic")))
def test_every_generated_part_survives_a_fresh_rendering(case: tuple[str, bytes]) -> None:
    """Hypothesis: every message rendered afresh (``append`` renders the whole history again)
    gives back each part list, and each block the reader does not model, as it was read."""
    name, raw = case
    transcript = read_transcript("gen.jsonl", raw, name)
    kind: Any = type(transcript.messages[0])
    summary = with_content_type(make_user(kind, "the summary"), "summary")
    out = write_transcript(transcript, [summary, *transcript.messages], mode="append")
    appended = out[len(with_final_newline(raw)) :]
    rendered = [json.loads(line) for line in appended.splitlines()[1:]]
    assert len(rendered) == len(transcript.records)
    for original, again in zip(transcript.records, rendered, strict=True):
        content = original.get("content")
        if not isinstance(content, list) or original.get("role") == "system":
            continue
        if name == "openai":
            assert again["content"] == content
            continue
        for item in content:
            if item["type"] not in _MODELLED_BLOCKS:
                assert item in again["content"]
