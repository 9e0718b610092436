"""Properties over generated transcripts in every format (``tests/transcript_strategies.py``).

* reading a valid file detects its format; writing the unchanged history gives back the same bytes;
* a damaged file (one value of one record replaced by random JSON) is read or refused with our own
  error type, never a crash, whether the format is detected or forced;
* compacting with the embedded local model (``--force``: the summary is always made) writes a file
  that reads back in the same format, passes the one-format check and ends with the summary, in
  ``shrink`` and (Claude Code, Codex) ``append`` mode.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.formats import _jsonl
from compactor.formats.base import CompactionInfo
from compactor.formats.registry import read_transcript, write_transcript
from compactor.models.local import LocalSummarizer
from compactor.schema import AgenticMessage, Message, content_type

from .read_property import check_read
from .transcript_strategies import FORMAT_NAMES, RECORDS, encode, transcripts

SETTINGS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@SETTINGS
@given(transcripts())
def test_read_detects_the_format_and_round_trips(case: tuple[str, bytes]) -> None:
    name, raw = case
    t = read_transcript("gen.jsonl", raw)
    assert t.format == name
    assert t.messages, "every generated file has at least one message"
    assert write_transcript(t, t.messages) == raw
    assert write_transcript(t, list(t.messages), mode="append") == raw


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path inside a record (dict keys and list indexes)."""
    out: list[tuple[Any, ...]] = []
    items = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else []
    )
    for key, value in items:
        out.append((*prefix, key))
        out.extend(_paths(value, (*prefix, key)))
    return out


def _replace(record: Any, path: tuple[Any, ...], value: Any) -> None:
    node = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


@SETTINGS
@given(
    st.sampled_from(FORMAT_NAMES).flatmap(lambda n: st.tuples(st.just(n), RECORDS[n])), st.data()
)
def test_damaged_records_never_crash_the_reader(
    case: tuple[str, list[dict[str, Any]]], data: st.DataObject
) -> None:
    name, records = case
    records = copy.deepcopy(records)  # strategies may share dict objects between examples
    index = data.draw(st.integers(0, len(records) - 1))
    paths = _paths(records[index])
    if paths:
        _replace(records[index], data.draw(st.sampled_from(paths)), data.draw(json_values))
    raw = encode(records)
    for forced in (None, name):
        check_read("bad.jsonl", raw, forced)


def _compact(t: Any) -> list[Any]:
    mw = c.new(c.Config(model=LocalSummarizer()))
    return asyncio.run(mw.summarize(c.AgentState(messages=list(t.messages), tools=list(t.tools))))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(transcripts(), st.sampled_from(["shrink", "append"]))
def test_compaction_output_always_parses(case: tuple[str, bytes], mode: str) -> None:
    name, raw = case
    if mode == "append" and name not in ("claude-code", "codex"):
        mode = "shrink"  # --append is for session logs only
    t = read_transcript("gen.jsonl", raw)
    new = _compact(t)
    summaries = [m for m in new if content_type(m) == "summary"]
    assert len(summaries) == 1
    info = CompactionInfo(tokens_before=1000, tokens_after=100, trigger="manual")
    out = write_transcript(t, new, mode=mode, info=info)  # type: ignore[arg-type]

    back = read_transcript("gen.compact.jsonl", out)
    if name == "anthropic" and back.format == "openai":
        # Plain-text turns are the common subset of both formats; a file left with nothing else
        # is plain chat (FORMATS.md §3) and reads the same messages.
        assert all(
            set(r) <= {"role", "content"} and isinstance(r["content"], str) for r in back.records
        )
    else:
        assert back.format == name
    assert out.endswith(b"\n")
    for line in out.splitlines():
        if line.strip():
            assert isinstance(json.loads(line), dict)
    assert back.messages, "the compacted file has no messages"
    assert _jsonl.message_text(back.messages[-1]) == _jsonl.message_text(summaries[0])
    if mode == "append":
        assert out.startswith(_jsonl.with_final_newline(raw))
    # compacting again works on the compacted file as well
    again = write_transcript(back, _compact(back), info=info)
    assert read_transcript("again.jsonl", again).format == back.format


# Found by the property below (2026-12-06): a kept segment whose tool result comes before its
# call. The appended boundary preserves the segment in place; its call was read as one made
# before the live history, so the reader of the output dropped the result the input kept.
_RESULT_BEFORE_CALL = b"\n".join(
    json.dumps(r).encode()
    for r in [
        {"type": "permission-mode", "permissionMode": "default", "sessionId": "s"},
        {
            "parentUuid": None,
            "sessionId": "s",
            "type": "user",
            "uuid": "u1",
            "message": {"role": "user", "content": "a"},
        },
        {
            "parentUuid": "u1",
            "sessionId": "s",
            "type": "user",
            "uuid": "u2",
            "isMeta": True,
            "message": {"role": "user", "content": "<local-command-stdout>x"},
        },
        {
            "parentUuid": "u2",
            "sessionId": "s",
            "type": "user",
            "uuid": "u3",
            "toolUseResult": "ok",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": ""}],
            },
        },
        {
            "parentUuid": "u3",
            "sessionId": "s",
            "type": "assistant",
            "uuid": "u4",
            "requestId": "r",
            "message": {
                "model": "claude-x",
                "id": "msg_2",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "call_0", "name": "_", "input": {}}],
                "usage": {"input_tokens": 3, "cache_read_input_tokens": 100},
            },
        },
    ]
)


def _any_kind(messages: Sequence[Message | AgenticMessage]) -> list[Any]:
    """A transcript's messages for an AgentState: chat or agentic, as the format reads them
    (the generated transcripts are of both kinds)."""
    return list(messages)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
@given(transcripts(formats=("claude-code", "codex")), st.integers(1, 6))
@example(case=("claude-code", _RESULT_BEFORE_CALL), keep=3)
def test_append_with_a_kept_tail_resumes_as_summary_then_tail_once(
    case: tuple[str, bytes], keep: int
) -> None:
    """Issue 17: what a client resumes from ``--append`` output is the summary, then each kept
    message once (Claude Code: left in place and listed; Codex: after the compaction markers),
    and none of them brings its stale usage back."""
    name, raw = case
    t = read_transcript("gen.jsonl", raw)
    mw = c.new(c.Config(model=LocalSummarizer(), keep=c.KeepTail(messages=keep)))
    outcome = asyncio.run(
        mw.summarize_detailed(c.AgentState(messages=_any_kind(t.messages), tools=list(t.tools)))
    )
    new = outcome.messages
    info = CompactionInfo(tokens_before=1000, tokens_after=100)
    out = write_transcript(t, new, mode="append", info=info)
    assert out.startswith(_jsonl.with_final_newline(raw))
    back = read_transcript("gen.compact.jsonl", out)
    resumed: Sequence[Message | AgenticMessage] = back.messages
    where = max(i for i, m in enumerate(resumed) if content_type(m) == "summary")
    tail = back.messages[where + 1 :]
    expected = new[len(new) - outcome.tail_messages :] if outcome.tail_messages else []
    assert [_jsonl.message_text(m) for m in tail] == [_jsonl.message_text(m) for m in expected]
    assert [m.role for m in tail] == [m.role for m in expected]
    # no stale usage; Codex: the newest kept assistant may carry the compaction's own count
    fresh = [m.usage.total_tokens for m in tail if m.usage is not None]
    assert not fresh or (name == "codex" and len(fresh) == 1 and fresh[0] <= 100)
    if name == "claude-code":
        added = [json.loads(line) for line in out[len(raw) :].splitlines() if line.strip()]
        assert [r["type"] for r in added][:2] == ["system", "user"]
        assert all(r["type"] != "assistant" for r in added)  # no copy of a kept response
