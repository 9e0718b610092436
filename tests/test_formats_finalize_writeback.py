"""Formats write back messages that a custom ``finalize`` adds (blocks the reader never saw):
multi-part text, tool calls and their outputs, Anthropic image blocks."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactor.formats.registry import read_transcript, write_transcript
from compactor.schema import AgenticMessage, Block, Message

from .transcript_strategies import RECORDS, encode

ADDED = [
    AgenticMessage(
        role="assistant",
        blocks=[
            Block("assistant_gen_text", text="part one"),
            Block("assistant_gen_text", text="part two"),
            Block("function_tool_call", call_id="call_zz1", name="grep", arguments='{"q": "x"}'),
        ],
    ),
    AgenticMessage(
        role="tool",
        blocks=[
            Block(
                "function_tool_result",
                call_id="call_zz1",
                content=[Block("assistant_gen_text", text="found x")],
            )
        ],
    ),
]


def _facts(messages: list[Any]) -> tuple[list[str], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """(texts, tool calls, tool results) of ``messages``, whatever their shape."""
    texts: list[str] = []
    calls: list[tuple[Any, ...]] = []
    results: list[tuple[Any, ...]] = []
    for m in messages:
        if isinstance(m, AgenticMessage):
            for b in m.blocks:
                if b.type == "function_tool_call":
                    calls.append((b.call_id, b.name, b.arguments))
                elif b.type == "function_tool_result":
                    results.append((b.call_id, " ".join(c.text or "" for c in b.content)))
                elif b.text:
                    texts.append(b.text)
        else:
            assert isinstance(m, Message)
            if m.role == "tool":
                results.append((m.tool_call_id, m.content))
            elif m.content:
                texts.append(str(m.content))
            calls += [(c.id, c.name, c.arguments) for c in m.tool_calls]
    return texts, calls, results


@settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.sampled_from(["openai", "eino"]).flatmap(lambda n: st.tuples(st.just(n), RECORDS[n])))
def test_added_multi_part_text_tool_call_and_output_are_written_back(
    case: tuple[str, list[dict[str, Any]]],
) -> None:
    name, records = case
    t = read_transcript("t.jsonl", encode(records), format=name)
    back = read_transcript("t.jsonl", write_transcript(t, [*t.messages, *ADDED]), format=name)
    assert back.messages[: len(t.messages)] == t.messages
    added = back.messages[len(t.messages) :]
    assert len(added) == len(ADDED)
    texts, calls, results = _facts(added)
    assert "part one" in "\n".join(texts) and "part two" in "\n".join(texts)
    assert calls == [("call_zz1", "grep", '{"q": "x"}')]
    assert results == [("call_zz1", "found x")]


def test_anthropic_image_blocks_are_read_and_written_back() -> None:
    records = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "a picture"},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
            ],
        },
    ]
    raw = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    t = read_transcript("a.jsonl", raw)
    assert t.format == "anthropic"
    assert all(isinstance(m, AgenticMessage) for m in t.messages)
    urls = [
        b.url
        for m in t.messages
        if isinstance(m, AgenticMessage)
        for b in m.blocks
        if b.type == "user_input_image"
    ]
    assert urls == ["data:image/png;base64,iVBORw0KGgo=", "https://example.com/a.png"]
    assert write_transcript(t, t.messages) == raw  # unchanged: the same bytes
    added = AgenticMessage(
        role="user",
        blocks=[
            Block("user_input_text", text="look"),
            Block("user_input_image", url="https://example.com/b.png"),
        ],
    )
    out = write_transcript(t, [*t.messages, added])
    assert json.loads(out.splitlines()[-1]) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/b.png"}},
        ],
    }
    back = read_transcript("a.jsonl", out)
    assert back.format == "anthropic" and back.messages[:2] == t.messages
    last = back.messages[2]
    assert isinstance(last, AgenticMessage)
    assert [b.url for b in last.blocks if b.type == "user_input_image"] == [
        "https://example.com/b.png"
    ]
