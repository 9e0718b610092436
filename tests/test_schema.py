"""The JSON helpers of ``compactor.schema``: bounded depth for JSON held in strings."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compactor.schema import MAX_JSON_DEPTH, json_deeper_than, loads_json


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [1, 10, MAX_JSON_DEPTH])
def test_loads_json_up_to_the_limit(depth: int) -> None:
    assert loads_json(nested(depth)) == json.loads(nested(depth))


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 700, 100_000])
def test_deeper_json_is_a_value_error_never_a_recursion_error(depth: int) -> None:
    """100,000 levels make json.loads raise RecursionError; callers expect ValueError."""
    with pytest.raises(ValueError, match="nested more than 128 levels deep"):
        loads_json(nested(depth))


def test_loads_json_passes_options_and_keeps_json_errors() -> None:
    with pytest.raises(ValueError, match="Expecting"):
        loads_json("{nope")

    def reject(name: str) -> None:
        raise ValueError("no constants")

    with pytest.raises(ValueError, match="no constants"):
        loads_json("[NaN]", parse_constant=reject)
    many_brackets = json.dumps({"k": "[[[[{{{{" * 100, "list": [[1]] * 100})
    assert loads_json(many_brackets)["list"][0] == [1]  # brackets in strings are not depth


def test_json_deeper_than_names_the_top_level_key() -> None:
    value = {"fine": [[1]], "deep": {"a": {"b": [[[]]]}}}
    assert json_deeper_than(value, 6) is None  # {deep: {a: {b: [[[]]]}}} is 6 deep
    assert json_deeper_than(value, 5) == "deep"
    assert json_deeper_than([[], [[[]]]], 3) == "[1]"
    very: list[object] = []
    for _ in range(50_000):
        very = [very]
    assert json_deeper_than(very, 128) == "[0]"  # iterative: any depth, no RecursionError


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=2), children, max_size=3)
    ),
    max_leaves=30,
)


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@given(_JSON, st.integers(min_value=1, max_value=8))
def test_json_deeper_than_agrees_with_the_recursive_depth(value: object, limit: int) -> None:
    assert (json_deeper_than(value, limit) is not None) == (_depth(value) > limit)


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


def _outcome(parse: Callable[[str], object], text: str) -> tuple[str, ...]:
    try:
        return ("value", json.dumps(parse(text)))  # NaN, 1 vs 1.0 and key order all compared
    except ValueError:
        return ("error",)


# 300 generated texts (2000 took 10 s of a busy 2-core suite run, issue 31), and the edge
# cases where orjson and json disagree always, not only when drawn.
@settings(max_examples=300, deadline=None, database=None)
@example('"\\ud800"')
@example('"\ud800"')
@example("[1e400]")
@example("[-0.0]")
@example('{"a":1,"a":2}')
@example("[01]")
@given(
    st.one_of(
        _JSON_VALUES.map(json.dumps),
        _JSON_VALUES.map(lambda v: json.dumps(v, ensure_ascii=False, indent=1)),
        st.text(max_size=30),
        st.sampled_from(['"\\ud800"', '"\ud800"', "[1e400]", "[-0.0]", '{"a":1,"a":2}', "[01]"]),
    )
)
def test_property_loads_json_is_json_loads(text: str) -> None:
    """orjson answers first, json when orjson refuses: the value (or the refusal) is always
    json's."""
    assert _outcome(loads_json, text) == _outcome(json.loads, text)


def test_plain_text_of_parts_and_blocks_keeps_text_and_names_media() -> None:
    """One rendering of a message as text, for every text-only consumer (the transcript form,
    the OpenAI wire format): text kept, media as ``[image]``, tool results' own blocks inside."""
    from compactor.schema import Block, Message, Part, blocks_text, media_placeholder, parts_text

    assert [media_placeholder(k) for k in ("image_url", "user_input_image", "file_url")] == [
        "[image]",
        "[image]",
        "[file]",
    ]
    msg = Message(
        "user", "fallback", parts=[Part("text", "look"), Part("image_url"), Part("text", "")]
    )
    assert parts_text(msg) == "look\n[image]"
    assert parts_text(Message("user", "only content")) == "only content"
    blocks = [
        Block("user_input_text", text="hi"),
        Block("reasoning", text="hidden"),
        Block(
            "function_tool_result",
            content=[Block("user_input_text", text="out"), Block("user_input_audio")],
        ),
    ]
    assert blocks_text(blocks) == "hi\nout\n[audio]"
