"""Transcript formats: detection, reading, round trips and compacted output (SPEC §9.6)."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest
from _pytest.mark import ParameterSet

from compactor.errors import ConfigError, InputChangedError, TranscriptError
from compactor.formats.base import CompactionInfo, WriteMode
from compactor.formats.registry import (
    FORMATS,
    KNOWN_FORMATS,
    detect_format,
    read_transcript,
    write_transcript,
)
from compactor.io import FileSource, open_input
from compactor.schema import (
    CONTENT_TYPE_KEY,
    MAX_JSON_DEPTH,
    AgenticMessage,
    Message,
    is_system,
    make_user,
    message_kind,
)

from .conftest import TRANSCRIPTS as SHARED
from .conftest import needs_shared, shared_file

T = TypeVar("T")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "formats"

# file → (format, records, tool calls, tool results, usage baseline expected)
REAL = {
    "claude-code/raze-grant-session.jsonl": ("claude-code", 25, 3, 2, True),
    "claude-code/fasthooks-sample-main-compacted.jsonl": ("claude-code", 63, 10, 10, False),
    "claude-code/bastion-glm47-skill-lock.jsonl": ("claude-code", 47, 5, 5, False),
    "claude-code/tokenforge-grant-session.jsonl": ("claude-code", 90, 21, 21, True),
    "codex/soul-grant-rollout.jsonl": ("codex", 48, 11, 7, True),
    "codex/empire-of-bits-desktop-rollout.jsonl": ("codex", 108, 22, 18, True),
    "openai-chat/tau-bench-gpt4o-airline-task48-trial1-small.jsonl": ("openai", 10, 2, 2, False),
    "openai-chat/swe-agent-marshmallow-1867-function-calling.jsonl": ("openai", 28, 13, 13, False),
}
FIXTURE_FORMATS = {"eino.jsonl": "eino", "anthropic.jsonl": "anthropic"}

SUMMARY = "Summary of the conversation so far: the user asked for X; Y was done."
INFO = CompactionInfo(tokens_before=12345, tokens_after=678, timestamp="2026-01-01T00:00:00.000Z")


def _all_files() -> list[ParameterSet]:
    files = [
        pytest.param(SHARED / name, spec[0], marks=needs_shared) for name, spec in REAL.items()
    ]
    files += [pytest.param(FIXTURES / name, fmt) for name, fmt in FIXTURE_FORMATS.items()]
    return files


ALL = _all_files()
IDS = [Path(name).name for name in (*REAL, *FIXTURE_FORMATS)]  # the order of ALL


def _text(msg: Message | AgenticMessage) -> str:
    if isinstance(msg, Message):
        return msg.content
    return "\n".join(b.text or "" for b in msg.blocks if b.text)


def _summary_history(
    messages: list[Message] | list[AgenticMessage], tail: int = 0
) -> list[Message | AgenticMessage]:
    kind = message_kind(messages)
    lead: list[Message | AgenticMessage] = []
    for m in messages:
        if not is_system(m):
            break
        lead.append(m)
    summary = make_user(kind, SUMMARY)
    summary.extra[CONTENT_TYPE_KEY] = "summary"
    kept = list(messages[len(messages) - tail :]) if tail else []
    return [*lead, summary, *kept]


def _tool_counts(path: Path, fmt: str) -> tuple[int, int]:
    """Tool calls and results counted from the raw records (whole file)."""
    calls = results = 0
    for line in path.read_bytes().splitlines():
        if not line.strip():
            continue
        rec = orjson.loads(line)
        if fmt == "claude-code":
            content = (rec.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                calls += block.get("type") == "tool_use"
                results += block.get("type") == "tool_result"
        elif fmt == "codex":
            payload = rec.get("payload") or {}
            if rec.get("type") == "response_item":
                calls += payload.get("type") in ("function_call", "custom_tool_call")
                results += payload.get("type") in (
                    "function_call_output",
                    "custom_tool_call_output",
                )
    return calls, results


def _message_tool_counts(messages: list[Message] | list[AgenticMessage]) -> tuple[int, int]:
    calls = results = 0
    for m in messages:
        if isinstance(m, Message):
            calls += len(m.tool_calls)
            results += m.role == "tool"
        else:
            calls += sum(b.type == "function_tool_call" for b in m.blocks)
            results += sum(b.type == "function_tool_result" for b in m.blocks)
    return calls, results


def test_registry_order_and_names() -> None:
    """Detection order: the specific formats first, plain chat messages (openai) last."""
    known = ["claude-code", "codex", "anthropic", "eino", "openai"]
    assert [name for name in FORMATS if name in known] == known
    assert list(FORMATS)[-1] == "openai"
    for name, fmt in FORMATS.items():
        assert fmt.name == name


@pytest.mark.parametrize(("path", "fmt"), ALL, ids=IDS)
def test_detect_and_pass_through(path: Path, fmt: str) -> None:
    raw = path.read_bytes()
    assert detect_format(str(path), raw) == fmt
    t = read_transcript(str(path), raw)
    assert t.format == fmt
    assert t.messages
    assert write_transcript(t, t.messages) == raw
    assert write_transcript(t, list(t.messages)) == raw


@pytest.mark.parametrize("name", list(REAL))
def test_counts_match_readme(name: str) -> None:
    fmt, records, calls, results, _ = REAL[name]
    path = shared_file(name)
    t = read_transcript(str(path), path.read_bytes())
    assert len(t.records) == records
    if fmt == "claude-code" and "compacted" in name:
        # The visible history starts after the compact boundary; count the whole file.
        assert _tool_counts(path, fmt) == (calls, results)
        assert t.messages[0].extra.get(CONTENT_TYPE_KEY) == "summary"
    else:
        assert _message_tool_counts(t.messages) == (calls, results)


def test_codex_web_search_calls_are_kept_records() -> None:
    path = shared_file("codex/empire-of-bits-desktop-rollout.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    searches = [r for r in t.records if (r.get("payload") or {}).get("type") == "web_search_call"]
    assert len(searches) == 6


@pytest.mark.parametrize("name", list(REAL))
def test_usage_baseline(name: str) -> None:
    path = shared_file(name)
    t = read_transcript(str(path), path.read_bytes())
    usages = [m.usage for m in t.messages if m.usage is not None]
    if REAL[name][4]:
        assert usages
        last = usages[-1]
        assert last.prompt_tokens > 1000
        assert last.total_tokens == last.prompt_tokens + last.completion_tokens
        assert all(m.role == "assistant" for m in t.messages if m.usage is not None)
    else:
        assert not usages


def test_claude_code_usage_includes_cache() -> None:
    path = shared_file("claude-code/raze-grant-session.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    last = [m.usage for m in t.messages if m.usage][-1]
    assert last is not None
    assert last.prompt_tokens == 39895
    assert last.completion_tokens == 150


def test_codex_usage_is_last_token_usage() -> None:
    path = shared_file("codex/soul-grant-rollout.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    last = [m.usage for m in t.messages if m.usage][-1]
    assert last is not None
    assert (last.prompt_tokens, last.completion_tokens, last.total_tokens) == (22128, 495, 22623)


def test_claude_code_merges_split_assistant_lines_and_marks_injected() -> None:
    path = shared_file("claude-code/tokenforge-grant-session.jsonl")
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    ids = [
        r["message"]["id"]
        for r in t.records
        if r.get("type") == "assistant" and isinstance(r["message"].get("id"), str)
    ]
    assert sum(m.role == "assistant" for m in t.messages) == len(set(ids))
    injected = [m for m in t.messages if m.extra.get("injected")]
    assert any(_text(m).startswith("Base directory for this skill") for m in injected)
    real = [
        m
        for m in t.messages
        if m.role == "user"
        and not m.extra.get("injected")
        and isinstance(m, AgenticMessage)
        and any(b.type == "user_input_text" for b in m.blocks)
    ]
    assert real


def test_codex_marks_injected_context() -> None:
    path = shared_file("codex/soul-grant-rollout.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    users = [m for m in t.messages if m.role == "user"]
    assert any(m.extra.get("injected") for m in users)
    real = [m for m in users if not m.extra.get("injected")]
    assert _text(real[0]) == "help me apply for the agentic engineering grant by Superteam"
    assert any(m.role == "system" for m in t.messages)


@pytest.mark.parametrize(("path", "fmt"), ALL, ids=IDS)
@pytest.mark.parametrize("tail", [0, 2])
def test_compacted_output_round_trips(path: Path, fmt: str, tail: int) -> None:
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    new = _summary_history(t.messages, tail)
    out = write_transcript(t, new, info=INFO)
    assert out != raw
    if fmt == "anthropic" and not tail:
        # System + one plain-text user turn is valid chat-completions too; openai wins there.
        assert detect_format("out", out) in (fmt, "openai")
    else:
        assert detect_format("out", out) == fmt
    again = read_transcript("out", out, fmt)
    assert again.format == fmt
    if tail:
        assert again.messages[-tail:] == t.messages[-tail:] or [
            _text(m) for m in again.messages[-tail:]
        ] == [_text(m) for m in t.messages[-tail:]]
        summary = again.messages[-tail - 1]
    else:
        summary = again.messages[-1]
    assert summary.role == "user"
    assert _text(summary) == SUMMARY
    # Writing the re-read file unchanged is byte-identical again.
    assert write_transcript(again, again.messages) == out


@pytest.mark.parametrize(("path", "fmt"), ALL, ids=IDS)
def test_append_mode_keeps_original_lines(path: Path, fmt: str) -> None:
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    out = write_transcript(t, _summary_history(t.messages), mode="append", info=INFO)
    prefix = raw if raw.endswith(b"\n") else raw + b"\n"
    assert out.startswith(prefix)
    assert len(out) > len(prefix)
    if fmt in ("claude-code", "codex"):
        again = read_transcript("out", out)
        assert _text(again.messages[-1]) == SUMMARY


def test_claude_code_shrink_layout() -> None:
    path = shared_file("claude-code/tokenforge-grant-session.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    new = _summary_history(t.messages, 2)
    out = write_transcript(t, new, info=INFO)
    records = [orjson.loads(line) for line in out.splitlines()]
    boundary = next(r for r in records if r.get("subtype") == "compact_boundary")
    assert boundary["parentUuid"] is None
    assert boundary["logicalParentUuid"] == [r for r in t.records if "uuid" in r][-1]["uuid"]
    summary = records[records.index(boundary) + 1]
    kept = [r["uuid"] for r in records[records.index(summary) + 1 :]]
    assert boundary["compactMetadata"] == {
        "trigger": "auto",
        "preTokens": 12345,
        "preservedSegment": {
            "headUuid": kept[0],
            "anchorUuid": summary["uuid"],
            "tailUuid": kept[-1],
        },
        "preservedMessages": {"anchorUuid": summary["uuid"], "uuids": kept, "allUuids": kept},
        "postTokens": 678,
    }
    assert summary["isCompactSummary"] is True
    assert summary["isVisibleInTranscriptOnly"] is True
    assert summary["parentUuid"] == boundary["uuid"]
    assert (
        summary["sessionId"]
        == boundary["sessionId"]
        == t.records[-1].get("sessionId", summary["sessionId"])
    )
    chain = records[records.index(boundary) :]
    for prev, rec in itertools.pairwise(chain):
        assert rec["parentUuid"] == prev["uuid"]
    # Deterministic ids: the same compaction writes the same bytes.
    assert write_transcript(t, new, info=INFO) == out


def test_codex_shrink_layout() -> None:
    path = shared_file("codex/soul-grant-rollout.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    out = write_transcript(t, _summary_history(t.messages), info=INFO)
    records = [orjson.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in records] == [
        "session_meta",
        "turn_context",
        "compacted",
        "event_msg",
        "event_msg",
    ]
    payload = records[2]["payload"]
    assert payload["message"] == SUMMARY
    assert payload["replacement_history"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": SUMMARY}]}
    ]
    assert records[3]["payload"]["type"] == "token_count"
    assert records[3]["payload"]["info"]["last_token_usage"]["total_tokens"] == 678
    assert records[4]["payload"] == {"type": "context_compacted"}


def test_openai_summary_and_unchanged_lines() -> None:
    path = shared_file("openai-chat/swe-agent-marshmallow-1867-function-calling.jsonl")
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    out = write_transcript(t, _summary_history(t.messages, 3))
    lines = out.splitlines()
    original = raw.splitlines()
    assert lines[0] == original[0]
    assert orjson.loads(lines[1]) == {"role": "user", "content": SUMMARY}
    assert lines[2:] == original[-3:]


def test_openai_swe_agent_extra_keys_survive_rendering() -> None:
    path = shared_file("openai-chat/swe-agent-marshmallow-1867-function-calling.jsonl")
    t = read_transcript(str(path), path.read_bytes())
    tool = next(m for m in t.messages if isinstance(m, Message) and m.role == "tool")
    assert tool.tool_call_id
    assert "tool_call_ids" in tool.extra
    tool.content = "changed"
    out = write_transcript(t, [tool])
    rec = orjson.loads(out)
    assert rec["content"] == "changed"
    assert rec["tool_call_ids"] == tool.extra["tool_call_ids"]


def test_eino_fixture_fields() -> None:
    path = FIXTURES / "eino.jsonl"
    t = read_transcript(str(path), path.read_bytes())
    msgs = [m for m in t.messages if isinstance(m, Message)]
    assert len(msgs) == len(t.messages)
    assert msgs[2].usage is not None and msgs[2].usage.total_tokens == 144
    assert msgs[3].tool_name == "search_flights"
    assert msgs[4].parts[1].url == "https://example.com/seats.png"
    out = write_transcript(t, _summary_history(msgs))
    last = orjson.loads(out.splitlines()[-1])
    assert last["extra"] == {"_eino_summarization_content_type": "summary"}
    assert read_transcript("x", out).messages[-1].extra[CONTENT_TYPE_KEY] == "summary"


def test_anthropic_fixture_blocks() -> None:
    path = FIXTURES / "anthropic.jsonl"
    t = read_transcript(str(path), path.read_bytes())
    msgs = t.messages
    assert all(isinstance(m, AgenticMessage) for m in msgs)
    first = msgs[2]
    assert isinstance(first, AgenticMessage)
    assert [b.type for b in first.blocks] == [
        "reasoning",
        "assistant_gen_text",
        "function_tool_call",
    ]
    assert first.blocks[2].arguments == '{"path": "README.md"}'
    assert first.usage is not None and first.usage.prompt_tokens == 1312
    result = msgs[3]
    assert isinstance(result, AgenticMessage)
    assert result.blocks[0].type == "function_tool_result"
    assert result.blocks[0].name == "read_file"


def test_plain_chat_lines_are_openai_not_eino() -> None:
    raw = b'{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}'
    assert detect_format("x", raw) == "openai"
    assert detect_format("x", raw + b'\n{"role":"assistant","content":"","response_meta":{}}') == (
        "eino"
    )


def test_tolerates_crlf_bom_blank_lines_and_missing_newline() -> None:
    raw = b'\xef\xbb\xbf{"role":"user","content":"hi"}\r\n\r\n{"role":"assistant","content":"yo"}'
    t = read_transcript("x", raw)
    assert [m.role for m in t.messages] == ["user", "assistant"]
    assert write_transcript(t, t.messages) == raw
    out = write_transcript(t, [t.messages[1]])
    assert out == b'\xef\xbb\xbf{"role":"assistant","content":"yo"}\r\n'


@pytest.mark.parametrize(("path", "fmt"), ALL, ids=IDS)
def test_malformed_line_reports_line_number(path: Path, fmt: str) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    lines[2] = b"{not json\n"
    with pytest.raises(TranscriptError) as info:
        read_transcript(str(path), b"".join(lines), fmt)
    assert info.value.line == 3
    assert f"{path}:3:" in str(info.value)


@pytest.mark.parametrize(
    ("raw", "fmt", "line", "field"),
    [
        (b'{"role":"user","content":"a"}\n{"role":5,"content":"b"}\n', "openai", 2, "role"),
        (b'{"role":"user","content":{"x":1}}\n', "openai", 1, "content"),
        (b'{"role":"user","content":"a"}\n{"role":"user","extra":3}\n', "eino", 2, "extra"),
        (b'{"role":"user","content":7}\n', "anthropic", 1, "content"),
        (
            b'{"type":"user","uuid":"u","message":{"role":"user","content":5}}\n',
            "claude-code",
            1,
            "message.content",
        ),
        (
            b'{"type":"response_item","payload":{"type":"message","role":null}}\n',
            "codex",
            1,
            "payload.role",
        ),
    ],
)
def test_malformed_records(raw: bytes, fmt: str, line: int, field: str) -> None:
    with pytest.raises(TranscriptError) as info:
        read_transcript("t.jsonl", raw, fmt)
    assert (info.value.line, info.value.field) == (line, field)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "empty transcript"),
        (b"\n\n", "empty transcript"),
        (
            b'{"hello":"world"}\n',
            f"not a transcript format compact knows; it reads {KNOWN_FORMATS} "
            "(use --format to force one)",
        ),
    ],
)
def test_detection_errors(raw: bytes, message: str) -> None:
    with pytest.raises(TranscriptError) as info:
        detect_format("t.jsonl", raw)
    assert info.value.message == message
    assert info.value.line is None


def test_non_object_and_bad_utf8_lines() -> None:
    with pytest.raises(TranscriptError, match=r"t:2: expected a JSON object"):
        read_transcript("t", b'{"role":"user","content":"a"}\n[1,2]\n', "openai")
    with pytest.raises(TranscriptError, match=r"t:1: invalid UTF-8"):
        read_transcript("t", b'{"role":"user","content":"\xff"}\n', "openai")


def test_unknown_format_is_config_error() -> None:
    with pytest.raises(ConfigError, match="known formats: claude-code, codex"):
        read_transcript("t", b'{"role":"user","content":"a"}\n', "yaml")


def test_known_metadata_records_are_kept_unknown_ones_read_by_shape() -> None:
    user = (
        b'{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s",'
        b'"message":{"role":"user","content":"hi"}}\n'
    )
    t = read_transcript("t", b'{"type":"last-prompt","sessionId":"s","x":1}\n' + user)
    assert t.format == "claude-code"
    assert t.records[0]["type"] == "last-prompt"
    assert len(t.messages) == 1
    # an unknown type without a message is metadata, kept and reported; with one, refused
    t = read_transcript("t", b'{"type":"future-thing","sessionId":"s","x":1}\n' + user)
    assert (t.format, len(t.messages), list(t.meta.unknown)) == (
        "claude-code",
        1,
        [("future-thing", 1, 1)],
    )
    future = b'{"type":"future-thing","sessionId":"s","message":{"role":"user","content":"x"}}\n'
    with pytest.raises(TranscriptError, match="t:1: field 'type': unknown claude-code record"):
        read_transcript("t", future + user)


# -- one file, one format (a record of another format is an error at its line) ---------------------

CC_RECORD = {
    "type": "user",
    "uuid": "u1",
    "sessionId": "s",
    "message": {"role": "user", "content": "hi"},
}
CODEX_RECORD = {"timestamp": "t", "type": "event_msg", "payload": {"type": "task_started"}}
CHAT = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]


def _jl(*records: object) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


@pytest.mark.parametrize(
    ("raw", "fmt", "line", "says"),
    [
        (_jl(*CHAT, CC_RECORD), "openai", 3, "a claude-code record, not openai"),
        (_jl(*CHAT, CODEX_RECORD), "openai", 3, "a codex record, not openai"),
        (_jl(CC_RECORD, *CHAT), "openai", 1, "a claude-code record, not openai"),
        (_jl(CC_RECORD, CC_RECORD, CHAT[0]), "claude-code", 3, "a chat message, not claude-code"),
        (_jl(CODEX_RECORD, CC_RECORD, CODEX_RECORD), "codex", 2, "a claude-code record, not codex"),
        # an untyped record holding a message's key (untyped metadata is kept: blind check 10)
        (_jl(CC_RECORD, {"content": "hi"}), "claude-code", 2, "'type': must be a string"),
        (_jl(CC_RECORD, {}), "claude-code", 2, "'type': must be a string"),
        # the file's majority wins detection; a late odd record is found beyond the sniffed head
        (_jl(*(CHAT * 40), CC_RECORD), "openai", 81, "a claude-code record, not openai"),
    ],
)
def test_mixed_formats_are_an_error_at_the_first_odd_line(
    raw: bytes, fmt: str, line: int, says: str
) -> None:
    assert detect_format("m.jsonl", raw) == fmt
    with pytest.raises(TranscriptError) as info:
        read_transcript("m.jsonl", raw)
    assert info.value.line == line
    assert f"m.jsonl:{line}: " in str(info.value)
    assert says in str(info.value)
    with pytest.raises(TranscriptError):  # forcing the detected format does not help
        read_transcript("m.jsonl", raw, fmt)


@pytest.mark.parametrize(("path", "fmt"), ALL, ids=IDS)
@pytest.mark.parametrize("forced", list(FORMATS))
def test_forcing_a_format_of_another_family_fails_at_line_1(
    path: Path, fmt: str, forced: str
) -> None:
    raw = path.read_bytes()
    if FORMATS[forced].spec.family == FORMATS[fmt].spec.family:
        # same family: chat formats read each other's lines (what fits the fields is kept)
        if forced == fmt:
            assert read_transcript(str(path), raw, forced).format == fmt
        return
    with pytest.raises(TranscriptError) as info:
        read_transcript(str(path), raw, forced)
    assert info.value.line == 1
    assert f", not {forced}; " in str(info.value)


def test_known_metadata_records_of_claude_code_and_codex_fit() -> None:
    raw = _jl(CC_RECORD, {"type": "queue-operation", "operation": "enqueue"})
    assert len(read_transcript("t", raw).records) == 2
    for kind in ("token_usage_record", "world_state", "event_msg"):
        raw = _jl(CODEX_RECORD, {"timestamp": "t", "type": kind, "payload": {"type": "x"}})
        assert read_transcript("t", raw).format == "codex"
    item = {"type": "ghost_snapshot", "ghost_commit": {}}
    raw = _jl(CODEX_RECORD, {"timestamp": "t", "type": "response_item", "payload": item})
    assert len(read_transcript("t", raw).records) == 2


@pytest.mark.parametrize(
    ("first", "odd", "field", "says"),
    [
        (  # with a message: it may be what the model saw (without one: metadata, kept)
            CC_RECORD,
            {"type": "some-future-record", "message": {"role": "user", "content": "x"}},
            "type",
            "claude-code record type",
        ),
        (  # no payload object: not shaped as Codex writes a record (with one: kept, warned)
            CODEX_RECORD,
            {"timestamp": "t", "type": "future_item", "content": "x"},
            "type",
            "codex record type",
        ),
        (  # an item of no type (one of an unknown type is kept and warned: blind check 56 F1)
            CODEX_RECORD,
            {"timestamp": "t", "type": "response_item", "payload": {"name": "x"}},
            "payload.type",
            "codex response item None",
        ),
    ],
)
def test_unknown_records_of_claude_code_and_codex_are_refused(
    first: dict[str, Any], odd: dict[str, Any], field: str, says: str
) -> None:
    # Rule 7: an unknown record may be something the model saw; it is never dropped silently.
    with pytest.raises(TranscriptError) as info:
        read_transcript("t", _jl(first, odd))
    assert (info.value.line, info.value.field) == (2, field)
    assert f"unknown {says}" in str(info.value)


@pytest.mark.parametrize(
    ("fmt", "record", "role"),
    [
        ("openai", {"role": "wizard", "content": "x"}, "wizard"),
        ("openai", {"role": "agent", "content": "x"}, "agent"),
        ("eino", {"role": "developer", "content": "x"}, "developer"),
        ("anthropic", {"role": "tool", "content": "x"}, "tool"),
    ],
)
def test_a_role_outside_the_formats_set_is_exit_2_naming_the_line(
    fmt: str, record: dict[str, Any], role: str
) -> None:
    raw = _jl({"role": "user", "content": "hi"}, record)
    with pytest.raises(TranscriptError) as info:
        read_transcript("t.jsonl", raw, fmt)
    assert (info.value.path, info.value.line, info.value.field) == ("t.jsonl", 2, "role")
    assert f"unknown {fmt} role {role!r}" in str(info.value)


def test_every_openai_role_reads() -> None:
    roles = ["system", "developer", "user", "assistant", "tool", "function"]
    raw = _jl(*({"role": r, "content": "x"} for r in roles))
    assert [m.role for m in read_transcript("t", raw).messages] == roles


# -- format trust (issue 15, rule 7) ---------------------------------------------------------------

MANAGED_AGENTS = Path(__file__).resolve().parent / "fixtures" / "unsupported"
MANAGED_AGENTS_LOG = MANAGED_AGENTS / "managed-agents-events.jsonl"


def test_a_managed_agents_event_log_is_refused_listing_the_formats_compact_reads() -> None:
    raw = MANAGED_AGENTS_LOG.read_bytes()
    for call in (lambda: detect_format("ma.jsonl", raw), lambda: read_transcript("ma.jsonl", raw)):
        with pytest.raises(TranscriptError) as info:
            call()
        assert info.value.path == "ma.jsonl"
        assert "Managed-Agents event log" in info.value.message
        assert f"it reads {KNOWN_FORMATS} transcripts" in info.value.message


def test_a_managed_agents_log_forced_as_openai_fails_at_its_first_agent_line() -> None:
    raw = MANAGED_AGENTS_LOG.read_bytes()
    first_agent = next(
        n for n, line in enumerate(raw.splitlines(), 1) if orjson.loads(line)["role"] == "agent"
    )
    with pytest.raises(TranscriptError) as info:
        read_transcript("ma.jsonl", raw, "openai")
    assert (info.value.line, info.value.field) == (first_agent, "role")
    assert "unknown openai role 'agent'" in info.value.message


def test_an_odd_role_beyond_the_sniffed_head_is_still_an_error_at_its_line() -> None:
    chat = [{"role": "user" if i % 2 else "system", "content": f"m{i}"} for i in range(60)]
    odd = orjson.loads(MANAGED_AGENTS_LOG.read_bytes().splitlines()[4])
    raw = _jl(*chat, odd)
    with pytest.raises(TranscriptError) as info:
        read_transcript("t.jsonl", raw)
    assert (info.value.line, info.value.field) == (61, "role")


def _every_shared_file() -> list[Path]:
    if not SHARED.is_dir():
        return []
    return sorted(SHARED.glob("*/*.jsonl"))


@needs_shared
@pytest.mark.parametrize("path", _every_shared_file(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shared_file_reads_with_every_record_accepted(path: Path) -> None:
    # Rule 7 refuses unknown records: every real file (the reference compactions that Claude
    # Code 2.1.197 and Codex 0.171 wrote included) still reads, in the format of its folder.
    expected = {"openai-chat": "openai"}.get(path.parent.name, path.parent.name)
    raw = path.read_bytes()
    t = read_transcript(str(path), raw)
    if path.parent.name == "reference-compactions":
        expected = "codex" if path.name.startswith("codex") else "claude-code"
    assert t.format == expected
    assert len(t.records) == len([line for line in raw.splitlines() if line.strip()])


@pytest.mark.parametrize(
    ("later", "line", "says"),
    [
        (b'{"role": "user",', 5, "JSON Lines expected"),  # not JSON: first of all
        (b'{"type": "session_meta", "payload": {}}', 5, "a codex record, not openai"),
        (b'{"role": "user", "content": "c"}', 2, "'tool_calls': must be a list"),
    ],
)
def test_a_chat_file_read_as_it_is_parsed_fails_where_parsing_everything_first_did(
    later: bytes, line: int, says: str
) -> None:
    """Issue 28 point 7: the openai reader builds each message as its line is parsed (the
    records are never all held), and still raises the error of a read that parsed every line,
    then checked every record, then built the messages."""
    raw = b"\n".join(
        [
            b'{"role": "user", "content": "a"}',
            b'{"role": "assistant", "content": "", "tool_calls": 5}',  # fits, is no message
            b'{"role": "user", "content": "b"}',
            b'{"role": "assistant", "content": "c"}',
            later,
        ]
    )
    with pytest.raises(TranscriptError) as info:
        read_transcript("t.jsonl", raw + b"\n", "openai")
    assert (info.value.path, info.value.line) == ("t.jsonl", line)
    assert says in str(info.value)
    good = read_transcript("t.jsonl", raw.replace(b"5}", b"[]}", 1).rsplit(b"\n", 1)[0], None)
    assert [m.content for m in good.messages if isinstance(m, Message)] == ["a", "", "b", "c"]


def test_a_chat_file_lets_its_records_go_and_reads_them_again_from_its_bytes(
    tmp_path: Path,
) -> None:
    """Issue 28 point 7: the openai reader keeps its messages, not a parsed record per line;
    a record asked for afterwards (``records``, a line's ``obj``) is the line parsed again, from
    bytes or from a streamed file, and a file changed since reading is refused."""
    from compactor.formats import _jsonl

    lines = [
        b'{"role": "system", "content": "S"}',
        b'{"role": "user", "content": "ok", "x": [1, {"y": null}]}',
        b"",
        b'{"role": "assistant", "content": "Done."}',
    ]
    raw = b"\r\n".join(lines) + b"\r\n"
    expected = [orjson.loads(line) for line in lines if line]
    path = tmp_path / "chat.jsonl"
    path.write_bytes(raw)
    info = open_input(str(path), stream=True)
    src = info.source
    assert isinstance(src, FileSource)
    try:
        streamed = read_transcript(str(path), src)
        for t in (read_transcript("chat.jsonl", raw), streamed):
            assert t.format == "openai"
            assert isinstance(t.meta.lines, _jsonl.LineTable)
            assert isinstance(t.records, _jsonl.Records)  # not a list of held records
            assert list(t.records) == expected and t.records == expected
            assert t.records[-1] == expected[-1] and t.records[1:] == expected[1:]
            assert [ln.number for ln in t.meta.lines] == [1, 2, 4]
            assert [ln.obj for ln in reversed(t.meta.lines)] == expected[::-1]
            assert t.meta.lines[2].text == lines[3]
        path.write_bytes(raw.replace(b"Done.", b"DONE."))
        with pytest.raises(InputChangedError, match="changed"):
            _ = streamed.records[2]
    finally:
        info.close()


# -- what shrink mode drops (issue 15, rule 8) -----------------------------------------------------


def _shrink_dropped(path: Path, mode: WriteMode = "shrink") -> dict[str, int]:
    from compactor.formats.records import dropped_records

    t = read_transcript(str(path), path.read_bytes())
    summary = make_user(message_kind(t.messages), SUMMARY)
    summary.extra[CONTENT_TYPE_KEY] = "summary"
    new = [*(m for m in t.messages if is_system(m)), summary]
    out = write_transcript(t, new, mode=mode, info=INFO)
    return dropped_records(t, new, out, mode)


@needs_shared
@pytest.mark.parametrize(
    ("name", "dropped"),
    [
        ("claude-code/raze-grant-session.jsonl", {"file-history-snapshot": 1, "progress": 12}),
        (
            "claude-code/tokenforge-grant-session.jsonl",
            {
                "attachment": 2,
                "file-history-snapshot": 12,
                "last-prompt": 1,
                "system/turn_duration": 2,
            },
        ),
        (
            "claude-code/fasthooks-sample-main-compacted.jsonl",
            {
                "assistant (before the earlier compaction)": 28,
                "file-history-snapshot": 10,
                "system/compact_boundary": 1,
                "system/stop_hook_summary": 5,
                "user (before the earlier compaction)": 15,
            },
        ),
        (
            "codex/soul-grant-rollout.jsonl",
            {
                "event_msg/agent_message": 3,
                "event_msg/exec_command_end": 5,
                "event_msg/task_started": 1,
                "event_msg/token_count": 6,
                "event_msg/user_message": 1,
                "response_item/reasoning": 5,
            },
        ),
        ("openai-chat/tau-bench-gpt4o-airline-task48-trial1-small.jsonl", {}),
    ],
)
def test_shrink_reports_every_record_kind_it_drops(name: str, dropped: dict[str, int]) -> None:
    path = shared_file(name)
    assert _shrink_dropped(path) == dropped
    assert _shrink_dropped(path, "append") == {}  # append keeps the file byte for byte


def test_shrink_keeps_claude_code_session_metadata_and_drops_the_rest(tmp_path: Path) -> None:
    envelope = {"sessionId": "s", "parentUuid": None}
    records = [
        {"type": "permission-mode", "permissionMode": "plan", "sessionId": "s"},
        {"type": "progress", "uuid": "p1", "data": {"type": "hook_progress"}, **envelope},
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}, **envelope},
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s"},
        {"type": "ai-title", "aiTitle": "t", "sessionId": "s"},
    ]
    path = tmp_path / "cc.jsonl"
    path.write_bytes(_jl(*records))
    assert _shrink_dropped(path) == {"progress": 1, "queue-operation": 1}


# -- deep JSON (issue 16) -------------------------------------------------------------------------


def _deep_record(depth: int, field: str = "unknown") -> bytes:
    """A chat record whose ``field`` holds objects nested so the record is ``depth`` deep."""
    inner = b"{}"
    for _ in range(depth - 2):  # the record is level 1, the value of ``field`` level 2
        inner = b'{"x": ' + inner + b"}"
    return b'{"role": "assistant", "content": "hi", "' + field.encode() + b'": ' + inner + b"}"


@pytest.mark.parametrize("fmt", [None, "openai", "eino"])
def test_a_record_nested_too_deep_is_refused_at_read_naming_line_and_field(fmt: str | None) -> None:
    """~700 levels parse (orjson takes 1,024) but crashed deepcopy with a RecursionError."""
    raw = b'{"role": "user", "content": "hello"}\n' + _deep_record(700) + b"\n"
    with pytest.raises(TranscriptError) as info:
        read_transcript("deep.jsonl", raw, format=fmt)
    assert (info.value.line, info.value.field) == (2, "unknown")
    assert str(info.value) == (
        "deep.jsonl:2: field 'unknown': JSON nested more than 128 levels deep; compact handles "
        "at most 128"
    )


def test_records_up_to_the_depth_limit_read_copy_and_write_back() -> None:
    import copy

    raw = b'{"role": "user", "content": "hello"}\n' + _deep_record(MAX_JSON_DEPTH) + b"\n"
    t = read_transcript("edge.jsonl", raw)
    copy.deepcopy(t.messages)
    assert write_transcript(t, t.messages, mode="shrink") == raw
    rendered = write_transcript(t, [t.messages[1], t.messages[0]], mode="shrink")
    assert orjson.loads(rendered.splitlines()[0]) == orjson.loads(_deep_record(MAX_JSON_DEPTH))
    with pytest.raises(TranscriptError, match="more than 128 levels"):
        read_transcript("edge.jsonl", _deep_record(MAX_JSON_DEPTH + 1) + b"\n")


@pytest.mark.parametrize("name", list(FIXTURE_FORMATS))
def test_kept_line_without_its_stale_usage_is_rendered_without_it(name: str) -> None:
    """A compaction drops a kept message's usage (it measured the old history); a line format
    writes that message afresh, so a re-read does not find the stale usage again."""
    path = FIXTURES / name
    t = read_transcript(str(path), path.read_bytes())
    originals: list[Message | AgenticMessage] = list(t.messages)
    last = max(i for i, m in enumerate(originals) if m.usage is not None)
    kept = copy.deepcopy(originals[last:])
    for m in kept:
        m.usage = None
    out = write_transcript(t, [*_summary_history(t.messages), *kept], info=INFO)
    again = read_transcript("out", out, FIXTURE_FORMATS[name])
    assert [_text(m) for m in again.messages[-len(kept) :]] == [_text(m) for m in kept]
    assert all(m.usage is None for m in again.messages)
    # Kept messages that never had usage keep their original bytes.
    lines = set(out.splitlines())
    for j in range(last + 1, len(originals)):
        if originals[j].usage is None:
            assert all(t.meta.lines[i].text in lines for i in t.meta.origin[j])


# ---------------------------------------------------------------------------------------------
# Reading a file as it is streamed (compactor.io.FileSource) is reading its bytes

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .transcript_strategies import transcripts  # noqa: E402

_LINE_KINDS = st.sampled_from(
    [
        b'{"role":"user","content":"hi \\u00e9"}',
        b'{"role": "assistant", "content": "ok", "x": [1, {"y": null}]}',
        b"",
        b"   ",
        b"\t",
        b"[1, 2]",
        b'{"role": "user", "content": ',
        b'{"role":"user","content":"\xff"}',
        b"null",
    ]
)


def _stream_read(raw: bytes, block: int, fn: Callable[[FileSource], T]) -> T:
    """``fn(source)`` over ``raw`` written to a file and opened as a streamed FileSource."""
    import os
    import tempfile

    fd, name = tempfile.mkstemp(suffix=".jsonl")
    try:
        os.write(fd, raw)
        os.close(fd)
        info = open_input(name, stream=True)
        assert isinstance(info.source, FileSource)
        info.source.BLOCK = block
        try:
            return fn(info.source)
        finally:
            info.close()
    finally:
        os.unlink(name)


def _outcome(fn: Callable[[], T]) -> T | tuple[str, str, int | None]:
    try:
        return fn()
    except TranscriptError as err:
        return ("error", str(err).replace("<src>", ""), err.line)


@settings(max_examples=300, deadline=None, database=None)
@given(
    lines=st.lists(_LINE_KINDS, max_size=8),
    newline=st.sampled_from([b"\n", b"\r\n"]),
    bom=st.booleans(),
    final=st.booleans(),
    block=st.integers(1, 40),
)
def test_parse_lines_of_a_streamed_file_equal_those_of_its_bytes(
    lines: list[bytes], newline: bytes, bom: bool, final: bool, block: int
) -> None:
    from compactor.formats import _jsonl

    raw = (_jsonl.BOM if bom else b"") + newline.join(lines) + (newline if final else b"")

    def view(parsed: Sequence[_jsonl.Line]) -> list[tuple[int, bytes, dict[str, Any]]]:
        return [(ln.number, ln.text, ln.obj) for ln in parsed]

    expected = _outcome(lambda: view(_jsonl.parse_lines("<src>", raw)))
    got = _stream_read(
        raw, block, lambda src: _outcome(lambda: view(_jsonl.parse_lines("<src>", src)))
    )
    assert got == expected


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=transcripts(), bom=st.booleans(), block=st.integers(1, 300))
def test_a_streamed_transcript_reads_and_writes_as_its_bytes(
    case: tuple[str, bytes], bom: bool, block: int
) -> None:
    from compactor.formats import _jsonl
    from compactor.schema import make_user, message_kind, with_content_type

    name, raw = case
    raw = (_jsonl.BOM if bom else b"") + raw
    whole = read_transcript("gen.jsonl", raw, snapshot=False)

    def check(src: FileSource) -> None:
        t = read_transcript("gen.jsonl", src, snapshot=False)
        assert t.format == whole.format == name
        assert t.messages == whole.messages and t.records == whole.records
        assert (t.newline, t.has_bom, t.raw) == (whole.newline, whole.has_bom, raw)
        summary = with_content_type(make_user(message_kind(t.messages), "S"), "summary")
        new = [summary, *t.messages[-2:]]
        for mode in ("shrink", "append") if name in ("claude-code", "codex") else ("shrink",):
            assert write_transcript(t, new, mode=mode) == write_transcript(whole, new, mode=mode)

    _stream_read(raw, block, check)
