"""compactor.pipeline.planning: tool-pair-safe cuts, the verbatim tail and the overflow chunk plan.

Hand-written cases for both message types first, then hypothesis properties over generated
agent histories, then the same invariants over every real transcript in ``../shared``.

The properties check the module against oracles written here from ids alone (never through
``tool_links``), so a wrong pairing rule shows up as a failed property.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.counting.tokens import estimate_message
from compactor.formats.registry import read_transcript
from compactor.pipeline.planning import (
    CUT_MARKER,
    Chunk,
    carries_tool_result,
    fits,
    plan_chunks,
    safe_cuts,
    tail_start,
    tool_links,
    truncate_to_budget,
)
from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall, split_system

from .conftest import shared_transcript_files

AnyMessage = Message | AgenticMessage
PROPS = settings(max_examples=100, deadline=None, database=None, derandomize=True)


def one(msg: Any) -> int:
    return 1


# --------------------------------------------------------------------------------------------------
# Builders: one history shape, written in either message type.


def user(kind: type, text: str) -> Any:
    if kind is Message:
        return Message("user", text)
    return AgenticMessage("user", [Block("user_input_text", text)])


def assistant(kind: type, text: str = "", calls: Sequence[tuple[str, str, str]] = ()) -> Any:
    """``calls``: (id, name, arguments)."""
    if kind is Message:
        return Message(
            "assistant", text, tool_calls=[ToolCall(i, name, args) for i, name, args in calls]
        )
    blocks = [Block("assistant_gen_text", text)] if text else []
    blocks += [
        Block("function_tool_call", call_id=i, name=name, arguments=args) for i, name, args in calls
    ]
    return AgenticMessage("assistant", blocks)


def results(kind: type, *ids: str | None, text: str = "out", extra: str | None = None) -> list[Any]:
    """Tool results for ``ids``: one ``tool`` message each (chat), or one user message holding
    them all (agentic, Claude Code style), optionally followed by a text block."""
    if kind is Message:
        return [Message("tool", text, tool_call_id=i) for i in ids]
    blocks = [
        Block("function_tool_result", call_id=i, name="t", content=[Block("user_input_text", text)])
        for i in ids
    ]
    if extra is not None:
        blocks.append(Block("user_input_text", extra))
    return [AgenticMessage("user", blocks)]


def call(i: str) -> tuple[str, str, str]:
    return (i, "read", json.dumps({"path": f"/{i}"}))


KINDS = pytest.mark.parametrize("kind", [Message, AgenticMessage], ids=["chat", "agentic"])


# --------------------------------------------------------------------------------------------------
# carries_tool_result


def test_is_tool_result_chat() -> None:
    assert carries_tool_result(Message("tool", "x", tool_call_id="a"))
    assert carries_tool_result(Message("tool", "x"))  # orphan, no id: still a result
    assert not carries_tool_result(Message("user", "x"))
    assert not carries_tool_result(Message("assistant", tool_calls=[ToolCall("a", "f")]))


def test_is_tool_result_agentic_counts_mixed_messages() -> None:
    mixed = results(AgenticMessage, "a", extra="and a question")[0]
    assert carries_tool_result(mixed)  # a part may not start on it: the result needs its call
    assert carries_tool_result(results(AgenticMessage, "a")[0])
    assert not carries_tool_result(user(AgenticMessage, "hi"))
    assert not carries_tool_result(AgenticMessage("user", []))


# --------------------------------------------------------------------------------------------------
# tool_links and safe_cuts: hand-written shapes


@KINDS
def test_parallel_calls_keep_one_block(kind: type) -> None:
    # user | assistant(3 calls) results... | assistant | user
    msgs = [
        user(kind, "go"),
        assistant(kind, "three at once", [call("a"), call("b"), call("c")]),
        *results(kind, "b"),
        *results(kind, "a"),
        *results(kind, "c"),
        assistant(kind, "done"),
        user(kind, "thanks"),
    ]
    if kind is Message:
        assert tool_links(msgs) == [(1, 2), (1, 3), (1, 4)]
        assert safe_cuts(msgs) == [0, 1, 5, 6, 7]
    else:
        agentic = [
            user(kind, "go"),
            assistant(kind, "three at once", [call("a"), call("b"), call("c")]),
            *results(kind, "b", "a", "c"),
            assistant(kind, "done"),
            user(kind, "thanks"),
        ]
        assert tool_links(agentic) == [(1, 2)]
        assert safe_cuts(agentic) == [0, 1, 3, 4, 5]
        # One result per user message (Codex style) gives the chat shape.
        assert tool_links(msgs) == [(1, 2), (1, 3), (1, 4)]
        assert safe_cuts(msgs) == [0, 1, 5, 6, 7]


@KINDS
def test_interleaved_calls_lock_the_span_between_them(kind: type) -> None:
    msgs = [
        user(kind, "go"),
        assistant(kind, "", [call("a")]),  # 1
        assistant(kind, "", [call("b")]),  # 2
        *results(kind, "b"),  # 3
        user(kind, "meanwhile"),  # 4: inside a's span, not a safe cut
        *results(kind, "a"),  # 5
        user(kind, "next"),  # 6
    ]
    assert tool_links(msgs) == [(2, 3), (1, 5)]
    assert safe_cuts(msgs) == [0, 1, 6, 7]


@KINDS
def test_orphan_results_never_start_a_part(kind: type) -> None:
    msgs = [*results(kind, "gone"), user(kind, "u"), *results(kind, "lost"), assistant(kind, "a")]
    assert tool_links(msgs) == []
    assert safe_cuts(msgs) == [0, 1, 3, 4]  # 0 always; 2 starts on an orphan result


@KINDS
def test_result_without_id_is_an_orphan(kind: type) -> None:
    msgs = [assistant(kind, "", [call("a")]), *results(kind, None), user(kind, "u")]
    assert tool_links(msgs) == []
    assert safe_cuts(msgs) == [0, 2, 3]


@KINDS
def test_result_before_its_call_stays_with_it(kind: type) -> None:
    msgs = [
        user(kind, "u"),
        *results(kind, "a"),  # 1: written before the call
        user(kind, "between"),  # 2
        assistant(kind, "", [call("a")]),  # 3
        user(kind, "after"),  # 4
    ]
    assert tool_links(msgs) == [(3, 1)]
    assert safe_cuts(msgs) == [0, 4, 5]


@KINDS
def test_dangling_calls_do_not_constrain_cuts(kind: type) -> None:
    msgs = [
        user(kind, "u"),
        assistant(kind, "", [call("a"), call("b")]),
        *results(kind, "a"),
        user(kind, "u2"),
        assistant(kind, "", [call("c")]),  # never answered
    ]
    assert tool_links(msgs) == [(1, 2)]
    assert safe_cuts(msgs) == [0, 1, 3, 4, 5]


@KINDS
def test_reused_ids_pair_turn_by_turn(kind: type) -> None:
    msgs = [
        assistant(kind, "", [call("call_0")]),  # 0: never answered
        user(kind, "u"),  # 1
        assistant(kind, "", [call("call_0")]),  # 2
        *results(kind, "call_0"),  # 3
        user(kind, "u"),  # 4
        assistant(kind, "", [call("call_0")]),  # 5
        *results(kind, "call_0"),  # 6
    ]
    # The newest unpaired call answers: turn 0's dangling call does not tie 0..3 together.
    assert tool_links(msgs) == [(2, 3), (5, 6)]
    assert safe_cuts(msgs) == [0, 1, 2, 4, 5, 7]


@KINDS
def test_repeated_result_stays_with_its_call(kind: type) -> None:
    msgs = [
        assistant(kind, "", [call("a")]),
        *results(kind, "a"),
        user(kind, "u"),  # 2
        *results(kind, "a"),  # 3: a second result for the same call
        user(kind, "v"),
    ]
    assert tool_links(msgs) == [(0, 1), (0, 3)]
    assert safe_cuts(msgs) == [0, 4, 5]


def test_agentic_call_and_result_in_one_message() -> None:
    both = AgenticMessage(
        "assistant",
        [
            Block("function_tool_call", call_id="a", name="f", arguments="{}"),
            Block("function_tool_result", call_id="a", content=[Block("user_input_text", "r")]),
        ],
    )
    msgs = [user(AgenticMessage, "u"), both, user(AgenticMessage, "v")]
    assert tool_links(msgs) == [(1, 1)]
    assert safe_cuts(msgs) == [0, 2, 3]  # 1 starts on a result


def test_chat_tool_calls_on_other_roles_still_pair() -> None:
    odd = Message("user", "", tool_calls=[ToolCall("a", "f", "{}")])
    msgs = [odd, Message("tool", "r", tool_call_id="a"), Message("user", "u")]
    assert tool_links(msgs) == [(0, 1)]


def test_safe_cuts_of_empty_and_single() -> None:
    assert safe_cuts([]) == [0]
    assert safe_cuts([Message("tool", "x")]) == [0, 1]
    assert tool_links([]) == []


# --------------------------------------------------------------------------------------------------
# tail_start: hand-written


def _session(kind: type) -> list[Any]:
    return [
        user(kind, "u0"),  # 0
        assistant(kind, "", [call("a"), call("b")]),  # 1
        *results(kind, "a"),  # 2 (agentic: "a" and "b" travel together below)
        *results(kind, "b"),  # 3
        assistant(kind, "a0"),  # 4
        user(kind, "u1"),  # 5
        assistant(kind, "a1"),  # 6
    ]


def test_tail_start_by_messages() -> None:
    msgs = _session(Message)  # safe cuts 0, 1, 4, 5, 6, 7
    assert tail_start(msgs, keep_messages=2) == 5
    assert tail_start(msgs, keep_messages=4) == 4  # nominal 3 is a result: forward to 4
    assert tail_start(msgs, keep_messages=5) == 4  # nominal 2 is inside a pair
    assert tail_start(msgs, keep_messages=6) == 1
    assert tail_start(msgs, keep_messages=0) == 7  # no tail
    # Everything would stay verbatim: keep the next safe cut so something is summarized.
    assert tail_start(msgs, keep_messages=7) == 1
    assert tail_start(msgs, keep_messages=100) == 1


def test_tail_start_never_zero_even_when_only_zero_and_len_are_safe() -> None:
    msgs = [
        Message("assistant", tool_calls=[ToolCall("a", "f")]),
        Message("tool", "r", tool_call_id="a"),
    ]
    assert safe_cuts(msgs) == [0, 2]
    assert tail_start(msgs, keep_messages=2) == 2
    assert tail_start([Message("user", "only")], keep_messages=5) == 1


def test_tail_start_by_tokens() -> None:
    msgs = [Message("user", "x" * 40) for _ in range(5)]  # 10 tokens each
    assert tail_start(msgs, keep_tokens=25) == 3
    assert tail_start(msgs, keep_tokens=30) == 2
    assert tail_start(msgs, keep_tokens=9) == 5
    assert tail_start(msgs, keep_tokens=0) == 5
    assert tail_start(msgs, keep_tokens=10**6) == 1
    assert tail_start(msgs, keep_tokens=2, count=one) == 3


def test_tail_start_by_tokens_moves_forward_past_a_pair() -> None:
    msgs = _session(Message)
    counts = [1, 1, 1, 1, 1, 1, 1]
    assert tail_start(msgs, keep_tokens=4, count=one) == 4  # nominal 3: forward to 4
    assert sum(counts[4:]) <= 4


def test_tail_start_both_limits_take_the_smaller_tail() -> None:
    msgs = [Message("user", "x" * 40) for _ in range(6)]
    assert tail_start(msgs, keep_messages=4, keep_tokens=20) == 4
    assert tail_start(msgs, keep_messages=1, keep_tokens=20) == 5
    assert tail_start(msgs) == 6  # neither: no tail


def test_tail_start_empty_context() -> None:
    assert tail_start([], keep_messages=3) == 0
    assert tail_start([], keep_tokens=3) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"keep_messages": -1}, "keep_messages must be a non-negative integer, got -1"),
        ({"keep_tokens": -5}, "keep_tokens must be a non-negative integer, got -5"),
        ({"keep_messages": True}, "keep_messages must be a non-negative integer, got True"),
    ],
)
def test_tail_start_rejects_negative(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        tail_start([Message("user", "u")], **kwargs)


def test_tail_start_agentic_default_counter() -> None:
    msgs = [
        user(AgenticMessage, "x" * 400),  # 100 tokens
        assistant(AgenticMessage, "", [call("a")]),
        *results(AgenticMessage, "a", text="y" * 400),
        assistant(AgenticMessage, "z" * 40),  # 10 tokens
    ]
    assert tail_start(msgs, keep_tokens=50) == 3  # nominal 2 is the result
    assert tail_start(msgs, keep_tokens=150) == 1


# --------------------------------------------------------------------------------------------------
# plan_chunks and fits: hand-written


def test_plan_chunks_greedy_at_safe_cuts() -> None:
    msgs = _session(Message)  # runs: [0,1) [1,4) [4,5) [5,6) [6,7)
    assert plan_chunks(msgs, 4, one) == [
        Chunk(0, 4, 4, False),
        Chunk(4, 7, 3, False),
    ]
    assert plan_chunks(msgs, 3, one) == [
        Chunk(0, 1, 1, False),
        Chunk(1, 4, 3, False),
        Chunk(4, 7, 3, False),
    ]
    assert plan_chunks(msgs, 100, one) == [Chunk(0, 7, 7, False)]


def test_plan_chunks_oversized_run_is_its_own_chunk() -> None:
    msgs = _session(Message)
    assert plan_chunks(msgs, 2, one) == [
        Chunk(0, 1, 1, False),
        Chunk(1, 4, 3, True),
        Chunk(4, 6, 2, False),
        Chunk(6, 7, 1, False),
    ]


def test_plan_chunks_single_huge_message() -> None:
    msgs = [Message("user", "a"), Message("user", "x" * 4000), Message("user", "b")]
    assert plan_chunks(msgs, 100, estimate_message) == [
        Chunk(0, 1, 0, False),
        Chunk(1, 2, 1000, True),
        Chunk(2, 3, 0, False),
    ]


def test_plan_chunks_agentic_parallel_results() -> None:
    msgs = [
        user(AgenticMessage, "go"),
        assistant(AgenticMessage, "", [call("a"), call("b"), call("c")]),
        *results(AgenticMessage, "c", "a", "b"),
        user(AgenticMessage, "more"),
    ]
    assert [(c.start, c.end) for c in plan_chunks(msgs, 2, one)] == [(0, 1), (1, 3), (3, 4)]


def test_plan_chunks_empty_and_bad_budget() -> None:
    assert plan_chunks([], 10, one) == []
    for bad in (0, -3):
        with pytest.raises(ValueError, match=f"budget must be a positive integer, got {bad}"):
            plan_chunks([Message("user", "u")], bad, one)


def test_fits() -> None:
    msgs = [Message("user", "x" * 40), Message("assistant", "y" * 40)]
    assert fits(msgs, 20, estimate_message)
    assert not fits(msgs, 19, estimate_message)
    assert fits([], 1, estimate_message)
    with pytest.raises(ValueError, match="budget"):
        fits(msgs, 0, estimate_message)


# --------------------------------------------------------------------------------------------------
# truncate_to_budget: hand-written

MARKER_RE = re.compile(r"…\[(\d+) characters cut to fit the summarizer's context\]…")


def _total(msgs: Sequence[AnyMessage]) -> int:
    return sum(estimate_message(m) for m in msgs)


def test_marker_text() -> None:
    assert CUT_MARKER.format(n=12) == "…[12 characters cut to fit the summarizer's context]…"


def test_truncate_cuts_the_middle_of_the_longest_text_only() -> None:
    long = "HEAD" + "m" * 8000 + "TAIL"
    msgs = [Message("user", "short question"), Message("tool", long, tool_call_id="a")]
    before = copy.deepcopy(msgs)
    out = truncate_to_budget(msgs, 500, estimate_message)
    assert msgs == before  # input untouched
    assert out[0] == msgs[0] and out[0] is not msgs[0]
    text = out[1].content
    assert text.startswith("HEAD") and text.endswith("TAIL")
    found = MARKER_RE.search(text)
    assert found is not None
    assert len(text) - len(found.group(0)) + int(found.group(1)) == len(long)
    assert _total(out) <= 500
    assert _total(out) >= 490  # water-filling keeps as much as fits, not a fixed stub


def test_truncate_water_fills_across_messages() -> None:
    msgs = [Message("user", "a" * 4000), Message("user", "b" * 2000), Message("user", "c" * 400)]
    out = truncate_to_budget(msgs, 1000, estimate_message)
    assert out[2].content == "c" * 400  # shorter than the cap: untouched
    assert len(out[0].content) == len(out[1].content)  # both cut to the same cap
    assert 990 <= _total(out) <= 1000


def test_truncate_fitting_input_is_an_equal_copy() -> None:
    msgs = [Message("user", "hello"), Message("assistant", "hi")]
    out = truncate_to_budget(msgs, 100, estimate_message)
    assert out == msgs
    assert all(a is not b for a, b in zip(out, msgs, strict=True))


def test_truncate_keeps_tool_call_arguments_valid_json() -> None:
    args = json.dumps({"path": "/a", "content": "z" * 6000, "n": [1, 2, 3], "ok": True})
    msgs = [Message("assistant", "", tool_calls=[ToolCall("a", "write", args)])]
    out = truncate_to_budget(msgs, 200, estimate_message)
    parsed = json.loads(out[0].tool_calls[0].arguments)
    assert parsed["path"] == "/a" and parsed["n"] == [1, 2, 3] and parsed["ok"] is True
    assert MARKER_RE.search(parsed["content"])
    assert (out[0].tool_calls[0].id, out[0].tool_calls[0].name) == ("a", "write")
    assert _total(out) <= 200


def test_truncate_unparsable_arguments_become_a_json_string() -> None:
    raw = "{not json " + "q" * 4000
    msgs = [AgenticMessage("assistant", [Block("function_tool_call", "", None, "a", "f", raw)])]
    out = truncate_to_budget(msgs, 100, estimate_message)
    args = out[0].blocks[0].arguments
    assert args is not None
    value = json.loads(args)
    assert isinstance(value, str) and value.startswith("{not json") and MARKER_RE.search(value)
    assert _total(out) <= 100


def test_truncate_agentic_tool_result_and_text_blocks() -> None:
    msgs = [
        user(AgenticMessage, "u" * 3000),
        assistant(AgenticMessage, "", [call("a")]),
        *results(AgenticMessage, "a", text="r" * 9000, extra="e" * 30),
    ]
    out = truncate_to_budget(msgs, 800, estimate_message)
    assert [m.role for m in out] == ["user", "assistant", "user"]
    result = out[2].blocks[0]
    assert (result.type, result.call_id) == ("function_tool_result", "a")
    assert MARKER_RE.search(result.content[0].text or "")
    assert out[2].blocks[1].text == "e" * 30
    assert _total(out) <= 800


def test_truncate_leaves_fields_the_counter_ignores() -> None:
    # With text parts present, the estimate ignores ``content``: cutting it would gain nothing.
    msg = Message("user", "c" * 5000, parts=[Part("text", "p" * 5000)])
    out = truncate_to_budget([msg], 100, estimate_message)
    assert out[0].content == "c" * 5000
    assert MARKER_RE.search(out[0].parts[0].text or "")


def test_truncate_best_effort_when_nothing_more_can_be_cut() -> None:
    msgs = [
        Message("user", "x" * 4000),
        Message("user", parts=[Part("image_url", url="http://img")]),  # 2,000 tokens, no text
    ]
    out = truncate_to_budget(msgs, 100, estimate_message)
    assert out[0].content == CUT_MARKER.format(n=4000)
    assert out[1] == msgs[1]
    assert _total(out) > 100
    # A counter that ignores text: nothing to gain, copies unchanged.
    assert truncate_to_budget(msgs, 1, lambda m: 5000) == msgs


def test_truncate_rejects_bad_budget() -> None:
    with pytest.raises(ValueError, match="budget must be a positive integer, got 0"):
        truncate_to_budget([Message("user", "u")], 0, estimate_message)


# --------------------------------------------------------------------------------------------------
# Oracles (from ids only)


def call_ids(msg: AnyMessage) -> list[str]:
    if isinstance(msg, Message):
        return [c.id for c in msg.tool_calls if c.id]
    return [b.call_id for b in msg.blocks if b.type == "function_tool_call" and b.call_id]


def result_ids(msg: AnyMessage) -> list[str]:
    if isinstance(msg, Message):
        return [msg.tool_call_id] if msg.role == "tool" and msg.tool_call_id else []
    return [b.call_id for b in msg.blocks if b.type == "function_tool_result" and b.call_id]


def holds_result(msg: AnyMessage) -> bool:
    if isinstance(msg, Message):
        return msg.role == "tool"
    return any(b.type == "function_tool_result" for b in msg.blocks)


def orphans_nothing(msgs: Sequence[AnyMessage], t: int) -> bool:
    """The split ``msgs[:t] | msgs[t:]`` keeps each result with the call it answers.

    A result's call is the newest call of its id at or before it; a result with no such call
    answers a later call, which is then in the tail too. With unique call ids this is exactly
    "every result in the tail whose call exists has it in the tail, and no call in the head has
    its result in the tail"; with reused ids it reads "its call" as the turn's own call.
    """
    last_call: dict[str, int] = {}
    for r, msg in enumerate(msgs):
        for i in result_ids(msg):
            if r >= t and i in last_call and last_call[i] < t:
                return False
        for i in call_ids(msg):
            last_call[i] = r
    return True


def exact_safe_cuts(msgs: Sequence[AnyMessage]) -> list[int]:
    """Brute force for histories whose call ids are unique: a cut may not separate any call from
    any result of its id (in either order) nor start a part on a tool result."""
    n = len(msgs)
    calls = {i: r for r, m in enumerate(msgs) for i in call_ids(m)}
    pairs = [(calls[i], r) for r, m in enumerate(msgs) for i in result_ids(m) if i in calls]
    cuts = []
    for t in range(n + 1):
        if 0 < t < n and holds_result(msgs[t]):
            continue
        if 0 < t < n and any(min(a, b) < t <= max(a, b) for a, b in pairs):
            continue
        cuts.append(t)
    return cuts


# --------------------------------------------------------------------------------------------------
# Generated histories


word = st.text("abcdefghij klmnop", min_size=1, max_size=12)
texts = st.one_of(
    word,
    word,
    st.builds(lambda w, k: (w * k)[:3000], word, st.integers(10, 400)),
    st.just(""),
)


@st.composite
def arguments(draw: st.DrawFn) -> str:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return "{not json " + draw(texts)  # models do emit broken JSON
    if choice == 1:
        return ""
    return json.dumps({"path": draw(word), "body": draw(texts), "n": [1, 2], "ok": True})


@st.composite
def histories(draw: st.DrawFn, kind: type, *, reuse_ids: bool = False) -> list[Any]:
    """A realistic session: system messages only at the start, then user/assistant text and
    assistant turns with 1–3 tool calls followed by their results: sometimes out of order,
    missing, deferred past later messages, repeated, written before the call, or orphaned."""
    msgs: list[Any] = []
    for _ in range(draw(st.integers(0, 2))):
        if kind is Message:
            msgs.append(Message("system", draw(texts)))
        else:
            msgs.append(AgenticMessage("system", [Block("user_input_text", draw(texts))]))
    fresh = itertools.count()
    deferred: list[Any] = []
    for _ in range(draw(st.integers(0, 12))):
        step = draw(st.sampled_from(["user", "assistant", "tools", "tools", "tools", "orphan"]))
        if step == "user":
            msgs.append(user(kind, draw(texts)))
        elif step == "assistant":
            msgs.append(assistant(kind, draw(texts)))
        elif step == "orphan":
            msgs += results(kind, f"orphan{next(fresh)}", text=draw(texts))
        else:
            k = draw(st.integers(1, 3))
            ids = [f"call_{j}" if reuse_ids else f"c{next(fresh)}" for j in range(k)]
            calls = [(i, draw(st.sampled_from(["read", "bash"])), draw(arguments())) for i in ids]
            order = draw(st.permutations(ids))
            answered = [i for i in order if draw(st.integers(0, 5)) > 0]  # some never answered
            fate = draw(st.sampled_from(["now", "now", "now", "deferred", "early"]))
            outs: list[Any] = []
            if kind is Message or draw(st.booleans()):
                for i in answered:
                    outs += results(kind, i, text=draw(texts))
            elif answered:
                extra = draw(st.one_of(st.none(), word))
                outs += results(kind, *answered, text=draw(texts), extra=extra)
            if outs and draw(st.integers(0, 7)) == 0:
                deferred.append(copy.deepcopy(outs[0]))  # a repeated result, arriving later
            turn = assistant(kind, draw(texts), calls)
            if fate == "early" and not reuse_ids:
                msgs += [*outs, turn]
            elif fate == "deferred":
                msgs.append(turn)
                deferred += outs
            else:
                msgs += [turn, *outs]
        if deferred and draw(st.integers(0, 2)) == 0:
            msgs += deferred
            deferred = []
    if draw(st.booleans()):
        msgs += deferred  # else: left unanswered (dangling at the end)
    return msgs


def any_history(*, reuse_ids: bool = False) -> st.SearchStrategy[list[Any]]:
    return st.one_of(
        histories(Message, reuse_ids=reuse_ids), histories(AgenticMessage, reuse_ids=reuse_ids)
    )


small_counts = st.sampled_from([estimate_message, one])


# --------------------------------------------------------------------------------------------------
# Properties: safe_cuts


@PROPS
@given(any_history())
def test_safe_cuts_match_brute_force_with_unique_ids(msgs: list[Any]) -> None:
    assert safe_cuts(msgs) == exact_safe_cuts(msgs)


@PROPS
@given(any_history(reuse_ids=True))
def test_safe_cuts_orphan_nothing_with_reused_ids(msgs: list[Any]) -> None:
    cuts = safe_cuts(msgs)
    assert cuts[0] == 0 and cuts[-1] == len(msgs) and cuts == sorted(set(cuts))
    for t in cuts:
        assert orphans_nothing(msgs, t)
        assert t in (0, len(msgs)) or not holds_result(msgs[t])


# --------------------------------------------------------------------------------------------------
# Properties: tail_start


def nominal_start(
    n: int, counts: list[int], keep_messages: int | None, keep_tokens: int | None
) -> int:
    start = n
    if keep_messages is not None:
        start = max(0, n - keep_messages)
    if keep_tokens is not None:
        by_tokens = min(i for i in range(n + 1) if sum(counts[i:]) <= keep_tokens)
        start = by_tokens if keep_messages is None else max(start, by_tokens)
    return start


limits = st.one_of(st.none(), st.integers(0, 15))
token_limits = st.one_of(st.none(), st.integers(0, 3000))


@PROPS
@given(
    st.one_of(any_history(), any_history(reuse_ids=True)),
    limits,
    token_limits,
    small_counts,
)
def test_tail_start_properties(
    msgs: list[Any],
    keep_messages: int | None,
    keep_tokens: int | None,
    count: Callable[[Any], int],
) -> None:
    context = split_system(msgs)[1]
    n = len(context)
    t = tail_start(context, keep_messages=keep_messages, keep_tokens=keep_tokens, count=count)
    assert 0 <= t <= n
    if n:
        assert t >= 1  # something is left to summarize
    if t < n:
        assert not holds_result(context[t])
    assert orphans_nothing(context, t)
    if keep_messages is not None:
        assert n - t <= keep_messages
    if keep_tokens is not None:
        assert sum(count(m) for m in context[t:]) <= keep_tokens
    # Not just safe but the largest safe tail: the first safe cut at or after the nominal start.
    nominal = nominal_start(n, [count(m) for m in context], keep_messages, keep_tokens)
    ids = [i for m in context for i in call_ids(m)]
    cuts = exact_safe_cuts(context) if len(ids) == len(set(ids)) else safe_cuts(context)
    assert t == min((c for c in cuts if c >= nominal and c > 0), default=n)


# --------------------------------------------------------------------------------------------------
# Properties: plan_chunks


def check_plan(
    msgs: Sequence[Any], budget: int, count: Callable[[Any], int], chunks: list[Chunk]
) -> None:
    n = len(msgs)
    cuts = safe_cuts(msgs)
    counts = [count(m) for m in msgs]
    if n == 0:
        assert chunks == []
        return
    assert chunks[0].start == 0 and chunks[-1].end == n
    for a, b in itertools.pairwise(chunks):
        assert a.end == b.start
    for k, chunk in enumerate(chunks):
        assert chunk.start < chunk.end
        assert chunk.start in cuts and chunk.end in cuts
        assert orphans_nothing(msgs, chunk.start) and orphans_nothing(msgs, chunk.end)
        if chunk.start > 0:
            assert not holds_result(msgs[chunk.start])
        assert chunk.tokens == sum(counts[chunk.start : chunk.end])
        assert chunk.oversized == (chunk.tokens > budget)
        if chunk.oversized:  # one run between consecutive safe cuts, nothing more
            assert cuts[cuts.index(chunk.start) + 1] == chunk.end
        elif k + 1 < len(chunks):  # maximal: the next run would not have fitted
            after = cuts[cuts.index(chunk.end) + 1]
            assert chunk.tokens + sum(counts[chunk.end : after]) > budget


@PROPS
@given(
    st.one_of(any_history(), any_history(reuse_ids=True)),
    st.integers(1, 3000),
    small_counts,
)
def test_plan_chunks_properties(msgs: list[Any], budget: int, count: Callable[[Any], int]) -> None:
    check_plan(msgs, budget, count, plan_chunks(msgs, budget, count))
    assert fits(msgs, budget, count) == (sum(count(m) for m in msgs) <= budget)


@PROPS
@given(any_history())
def test_plan_chunks_boundaries_are_brute_force_safe(msgs: list[Any]) -> None:
    exact = exact_safe_cuts(msgs)
    for chunk in plan_chunks(msgs, 200, estimate_message):
        assert chunk.start in exact and chunk.end in exact


# --------------------------------------------------------------------------------------------------
# Properties: truncate_to_budget


def shape(msg: AnyMessage) -> Any:
    """Everything but the texts."""
    if isinstance(msg, Message):
        return (
            "chat",
            msg.role,
            msg.tool_call_id,
            msg.tool_name,
            msg.name,
            [(c.id, c.name) for c in msg.tool_calls],
            [(p.type, p.url) for p in msg.parts],
            msg.extra,
        )

    def block_shape(b: Block) -> Any:
        return (b.type, b.call_id, b.name, b.url, [block_shape(s) for s in b.content])

    return ("agentic", msg.role, [block_shape(b) for b in msg.blocks], msg.extra)


def arguments_of(msg: AnyMessage) -> list[str]:
    if isinstance(msg, Message):
        return [c.arguments for c in msg.tool_calls]
    return [b.arguments or "" for b in msg.blocks if b.type == "function_tool_call"]


def parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _leaves(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return []


def text_pairs(old: AnyMessage, new: AnyMessage) -> list[tuple[str, str]]:
    """(before, after) of every text the estimate counts, string values of JSON arguments
    included (the generator writes no field the estimate ignores)."""
    pairs: list[tuple[str, str]] = []
    for a, b in zip(arguments_of(old), arguments_of(new), strict=True):
        if parses(a):
            pairs += zip(_leaves(json.loads(a)), _leaves(json.loads(b)), strict=True)
    if isinstance(old, Message) and isinstance(new, Message):
        return [*pairs, (old.content, new.content)]

    def block_texts(blocks: list[Block]) -> list[str]:
        return [t for b in blocks for t in [b.text or "", *block_texts(b.content)]]

    assert isinstance(old, AgenticMessage) and isinstance(new, AgenticMessage)
    return [*pairs, *zip(block_texts(old.blocks), block_texts(new.blocks), strict=True)]


@PROPS
@given(st.one_of(any_history(), any_history(reuse_ids=True)), st.floats(0.0, 1.2))
def test_truncate_properties(msgs: list[Any], share: float) -> None:
    total = _total(msgs)
    budget = max(1, int(total * share))
    before = copy.deepcopy(msgs)
    out = truncate_to_budget(msgs, budget, estimate_message)
    assert msgs == before
    assert [shape(m) for m in out] == [shape(m) for m in msgs]
    for old, new in zip(msgs, out, strict=True):
        for a, b in zip(arguments_of(old), arguments_of(new), strict=True):
            assert b == a or parses(b)  # a cut never leaves broken JSON behind
            if parses(a):
                assert parses(b)
    if total <= budget:
        assert out == msgs
        return
    # Water-filling: a text is cut only when it is longer than every text left whole.
    pairs = [pair for old, new in zip(msgs, out, strict=True) for pair in text_pairs(old, new)]
    whole = [len(a) for a, b in pairs if a == b and len(a) > 100]
    cut = [len(a) for a, b in pairs if a != b]
    if whole and cut:
        assert max(whole) <= min(cut)
    # Cuttable: the harshest cut (budget 1) is the floor; any budget above it must be met.
    floor = _total(truncate_to_budget(msgs, 1, estimate_message))
    if budget >= floor:
        assert _total(out) <= budget
    else:
        assert _total(out) == floor


# --------------------------------------------------------------------------------------------------
# Real transcripts

FILES = shared_transcript_files()


def _context(path: Path) -> list[Any]:
    transcript = read_transcript(str(path), path.read_bytes())
    messages: list[Any] = list(transcript.messages)
    return split_system(messages)[1]


@pytest.mark.skipif(not FILES, reason="../shared/transcripts is not beside the checkout")
def test_real_transcripts_hold_tool_pairs() -> None:
    # Guard against a vacuous test below: the files do exercise the pairing.
    linked = sum(len(tool_links(_context(p))) for p in FILES)
    assert linked >= 50


@pytest.mark.skipif(not FILES, reason="../shared/transcripts is not beside the checkout")
@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_real_transcript_invariants(path: Path) -> None:
    context = _context(path)
    n = len(context)
    cuts = safe_cuts(context)
    for t in cuts:
        assert orphans_nothing(context, t)
        assert t in (0, n) or not holds_result(context[t])
    for keep_messages, keep_tokens in itertools.product(
        [None, 0, 1, 3, 10, 40, 10_000], [None, 0, 300, 3_000, 30_000, 10**9]
    ):
        t = tail_start(context, keep_messages=keep_messages, keep_tokens=keep_tokens)
        assert t in cuts and (t >= 1 or n == 0)
        assert orphans_nothing(context, t)
        if keep_messages is not None:
            assert n - t <= keep_messages
        if keep_tokens is not None:
            assert sum(estimate_message(m) for m in context[t:]) <= keep_tokens
    for budget in (100, 1_000, 8_000, 64_000):
        chunks = plan_chunks(context, budget, estimate_message)
        check_plan(context, budget, estimate_message, chunks)
        for chunk in chunks:
            if not chunk.oversized:
                continue
            part = context[chunk.start : chunk.end]
            cut = truncate_to_budget(part, budget, estimate_message)
            assert [shape(m) for m in cut] == [shape(m) for m in part]
            floor = _total(truncate_to_budget(part, 1, estimate_message))
            assert _total(cut) <= budget or _total(cut) == floor
            for old, new in zip(part, cut, strict=True):
                for a, b in zip(arguments_of(old), arguments_of(new), strict=True):
                    assert b == a or parses(b)
