"""Formats write back messages that a custom ``finalize`` adds (blocks the reader never saw):
multi-part text, tool calls and their outputs, Anthropic image blocks.

Every format, every kind of message (:data:`tests.finalize_plugin.ADDED`), in either message
type, before or after the summary, in shrink and append mode: the file written reads back with
the same roles, texts, images, tool calls and tool results (:func:`~tests.finalize_plugin.entries`,
which looks through the format's own shape: Codex writes each tool call as an item of its own,
Anthropic and Claude Code carry a tool result in a user turn). Through the library
(``middleware`` with a ``finalize`` callable) and ``run_file`` with ``finalize: pkg.mod:func`` in a
config file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import compactor as c
from compactor.formats.base import Transcript, WriteMode
from compactor.formats.registry import read_transcript, write_transcript
from compactor.runs.runner import RunOptions, run_file
from compactor.schema import CONTENT_TYPE_KEY, AgenticMessage, Block, Message, make_user

from . import finalize_plugin
from .finalize_plugin import ADDED as KINDS
from .finalize_plugin import Added, build, entries
from .transcript_strategies import RECORDS, encode

ROOT = Path(__file__).resolve().parent.parent
FILES = {
    "openai": ROOT / "sample_transcripts" / "coding-session.jsonl",
    "eino": ROOT / "tests" / "fixtures" / "formats" / "eino.jsonl",
    "anthropic": ROOT / "tests" / "fixtures" / "formats" / "anthropic.jsonl",
    "codex": ROOT / "tests" / "fixtures" / "formats" / "codex.jsonl",
    "claude-code": ROOT / "sample_transcripts" / "claude-code-session.jsonl",
}
APPEND = ("claude-code", "codex")
"""The formats that can record a compaction after the file's own records."""
SUMMARY_TEXT = "SUMMARY: the finalizer test session."

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


# -- every kind of added message, every format ----------------------------------------------------


def _summary_index(t: Transcript) -> int:
    messages: list[Message | AgenticMessage] = list(t.messages)
    where = [i for i, m in enumerate(messages) if SUMMARY_TEXT in _text_of(m) and m.role == "user"]
    assert len(where) == 1, entries(messages)
    return where[0]


def _text_of(m: Message | AgenticMessage) -> str:
    return " ".join(str(e[2]) for e in entries([m]) if e[0] == "text")


def _around_summary(out: bytes, name: str, count: int, before: bool) -> list[tuple[Any, ...]]:
    """The entries of the ``count`` entries just before (or all after) the summary in ``out``."""
    back = read_transcript("out.jsonl", out, format=name)
    s = _summary_index(back)
    if not before:
        return entries(back.messages[s + 1 :])
    got = entries(back.messages[:s])
    return got[len(got) - count :]


def _summary(kind: type[Any]) -> Message | AgenticMessage:
    summary: Message | AgenticMessage = make_user(kind, SUMMARY_TEXT)
    summary.extra[CONTENT_TYPE_KEY] = "summary"
    return summary


def _modes(name: str) -> list[WriteMode]:
    return ["shrink", "append"] if name in APPEND else ["shrink"]


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("before", [False, True], ids=["after-summary", "before-summary"])
@pytest.mark.parametrize("same_type", [True, False], ids=["own-type", "other-type"])
def test_every_added_message_reads_back(name: str, before: bool, same_type: bool) -> None:
    t = read_transcript(str(FILES[name]), FILES[name].read_bytes())
    own = type(t.messages[0])
    kind = own if same_type else (Message if own is AgenticMessage else AgenticMessage)
    added = [build(spec, kind) for spec in KINDS]
    summary = _summary(own)
    new = [*added, summary] if before else [summary, *added]
    expected = entries([build(spec, own) for spec in KINDS])
    for mode in _modes(name):
        out = write_transcript(t, new, mode=mode)
        assert _around_summary(out, name, len(expected), before) == expected, mode


def _run_middleware(t: Transcript, finalize: Any) -> list[Any]:
    config = c.Config(model=c.ScriptedModel([SUMMARY_TEXT] * 5), finalize=finalize)
    out: list[Any] = asyncio.run(c.new(config).summarize(c.AgentState(list[Any](t.messages))))
    return out


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("where", ["add_after", "add_before"])
def test_a_custom_finalize_in_the_library_writes_back_what_it_adds(name: str, where: str) -> None:
    t = read_transcript(str(FILES[name]), FILES[name].read_bytes())
    new = _run_middleware(t, getattr(finalize_plugin, where))
    expected = entries([build(spec, type(t.messages[0])) for spec in KINDS])
    for mode in _modes(name):
        out = write_transcript(t, new, mode=mode)
        assert _around_summary(out, name, len(expected), where == "add_before") == expected, mode


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("where", ["add_after", "add_before"])
def test_a_config_file_finalize_survives_run_file(tmp_path: Path, name: str, where: str) -> None:
    """``finalize: tests.finalize_plugin:add_after`` in a config file, through ``run_file`` (what
    ``compact run`` calls): the written file holds every message the finalizer added."""
    config = tmp_path / "c.yaml"
    # The added messages outweigh these small files: no loop guard.
    text = f"finalize: tests.finalize_plugin:{where}\nloop_guard: false\n"
    config.write_text(text, encoding="utf-8")
    original = FILES[name].read_bytes()
    kind = type(read_transcript(name, original).messages[0])
    expected = entries([build(spec, kind) for spec in KINDS])
    for mode in _modes(name):
        src = tmp_path / f"in-{mode}.jsonl"
        src.write_bytes(original)
        out = tmp_path / f"out-{mode}.jsonl"
        options = RunOptions(
            input=str(src),
            output=str(out),
            config=str(config),
            threshold=1,
            append=mode == "append",
        )
        result = run_file(options, model=c.ScriptedModel([SUMMARY_TEXT] * 5))
        assert result.exit_code == 0, result.error
        assert src.read_bytes() == original
        got = _around_summary(out.read_bytes(), name, len(expected), where == "add_before")
        assert got == expected, mode


_texts = st.lists(st.text("abcdefghij klmnop", min_size=1, max_size=12), min_size=1, max_size=2)
_args = st.dictionaries(st.sampled_from(["q", "path", "n"]), st.text("xyz", max_size=3)).map(
    json.dumps
)


@st.composite
def _added_sequences(draw: st.DrawFn) -> list[Added]:
    """User, assistant (text, parts, tool calls) and tool-result messages in any order."""
    out: list[Added] = []
    for i in range(draw(st.integers(1, 6))):
        role = draw(st.sampled_from(["user", "assistant", "tool"]))
        if role == "tool":
            out.append(Added("tool", result=(f"call_r{i}", draw(st.text("abc xyz", max_size=10)))))
        elif role == "user":
            images = draw(st.sampled_from([(), ("https://example.com/i.png",)]))
            out.append(Added("user", tuple(draw(_texts)), images=images))
        else:
            calls = tuple(
                (f"call_p{i}_{k}", draw(st.sampled_from(["grep", "ls", "read"])), draw(_args))
                for k in range(draw(st.integers(0, 2)))
            )
            texts = tuple(draw(_texts)) if not calls or draw(st.booleans()) else ()
            out.append(Added("assistant", texts, calls=calls))
    return out


@settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    name=st.sampled_from(list(FILES)),
    added=_added_sequences(),
    before=st.booleans(),
    same_type=st.booleans(),
    append=st.booleans(),
)
def test_random_added_sequences_round_trip(
    name: str, added: list[Added], before: bool, same_type: bool, append: bool
) -> None:
    t = read_transcript(str(FILES[name]), FILES[name].read_bytes())
    own = type(t.messages[0])
    kind = own if same_type else (Message if own is AgenticMessage else AgenticMessage)
    summary = _summary(own)
    msgs = [build(spec, kind) for spec in added]
    new = [*msgs, summary] if before else [summary, *msgs]
    expected = entries([build(spec, own) for spec in added])
    mode: WriteMode = "append" if append and name in APPEND else "shrink"
    out = write_transcript(t, new, mode=mode)
    assert _around_summary(out, name, len(expected), before) == expected


def test_codex_keeps_a_system_message_the_finalizer_adds() -> None:
    """Codex writes its own developer instructions anew after a compaction, so the file's are
    left out of ``replacement_history``; a system message a finalizer adds is its own and is
    kept (it was dropped with them)."""
    first, rest = FILES["codex"].read_bytes().split(b"\n", 1)
    item = {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "rules"}],
    }
    record = {"timestamp": "2026-03-02T10:00:00.200Z", "type": "response_item", "payload": item}
    t = read_transcript("c.jsonl", first + b"\n" + json.dumps(record).encode() + b"\n" + rest)
    developer = [m for m in t.messages if m.role == "system"]
    assert entries(developer) == [("text", "system", "rules", [])]  # Codex writes it anew
    added = Message(role="system", content="Always answer in French.")
    new = [*developer, added, _summary(Message)]
    for mode in _modes("codex"):
        back = read_transcript("out.jsonl", write_transcript(t, new, mode=mode), format="codex")
        systems = entries([m for m in back.messages if m.role == "system"])
        assert systems == [("text", "system", "Always answer in French.", [])], mode
