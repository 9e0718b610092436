"""``_jsonl.match_messages`` looks a chat message up among the originals of the same content
(``_indexed``, from ``_INDEXED_FROM`` originals on): the matches are those of comparing the
message with every original in turn."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.formats import _jsonl
from compactor.schema import AgenticMessage, Block, Message, Usage

_MESSAGES = st.builds(
    Message,
    role=st.sampled_from(["user", "assistant", "tool"]),
    content=st.sampled_from(["", "ok", "yes", "go on"]),
    usage=st.one_of(st.none(), st.just(Usage(total_tokens=7))),
)


def _agentic(text: str) -> AgenticMessage:
    return AgenticMessage("user", [Block("user_input_text", text)])


def _transcript(originals: list[Any]) -> Any:
    return SimpleNamespace(messages=originals, meta=SimpleNamespace(matches=None, snapshot=None))


def _both(
    monkeypatch: pytest.MonkeyPatch, originals: list[Any], new: list[Any]
) -> tuple[list[int | None], list[int | None]]:
    with monkeypatch.context() as m:
        m.setattr(_jsonl, "_INDEXED_FROM", 10**9)  # every original compared in turn
        walked = _jsonl.match_messages(_transcript(originals), new)
    with monkeypatch.context() as m:
        m.setattr(_jsonl, "_INDEXED_FROM", 0)
        indexed = _jsonl.match_messages(_transcript(originals), new)
    return walked, indexed


@settings(max_examples=300, deadline=None, database=None)
@given(
    originals=st.lists(_MESSAGES, max_size=12),
    picks=st.lists(st.tuples(st.integers(0, 11), st.booleans(), st.booleans()), max_size=8),
    fresh=st.lists(st.one_of(_MESSAGES, st.just(_agentic("ok"))), max_size=3),
    agentic_original=st.booleans(),
)
def test_matches_by_content_are_those_of_the_walk(
    originals: list[Message],
    picks: list[tuple[int, bool, bool]],
    fresh: list[Any],
    agentic_original: bool,
) -> None:
    history: list[Any] = [*originals, _agentic("ok")] if agentic_original else list(originals)
    new: list[Any] = list(fresh)
    for i, same_object, drop_usage in picks:
        if i < len(originals):
            msg = originals[i] if same_object else copy.deepcopy(originals[i])
            if drop_usage and not same_object:
                msg.usage = None  # a kept message whose stale usage a compaction dropped
            new.insert(i % (len(new) + 1), msg)
    with pytest.MonkeyPatch.context() as mp:
        walked, indexed = _both(mp, history, new)
    assert indexed == walked


def test_a_summary_before_the_kept_tail_of_a_long_history() -> None:
    originals = [Message("user" if i % 2 else "assistant", f"m{i}") for i in range(3_000)]
    summary = Message("user", "the summary")
    tail = [copy.deepcopy(m) for m in originals[-3:]]
    got = _jsonl.match_messages(_transcript(originals), [summary, *tail])
    assert got == [None, 2_997, 2_998, 2_999]
