"""The fast first pass of secret masking (compactor.secrets.secret_scan): it clears only texts that
no hinted built-in rule can match, so masking finds exactly what it found without it (issue 34)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactor.schema import AgenticMessage, Block, Message, Part, ToolCall
from compactor.secrets import secret_scan
from compactor.secrets.masking import SecretMasker

from .test_masking import EXAMPLES, planted_secret, prose


def _plain() -> SecretMasker:
    """The reference: the same rules, none gated by a prefilter or a hint."""
    from compactor.secrets import rules

    masker = SecretMasker()
    masker._rules = tuple(rules.UNHINTED_RULES)
    return masker


def test_the_rust_engine_is_in_use() -> None:
    assert secret_scan.scan().fast


def test_every_example_secret_is_a_maybe() -> None:
    for kind, text, _ in EXAMPLES:
        if _plain().mask_text(text) != text:
            assert secret_scan.scan().may_match(text), (kind, text)


def _mixed_case(draw: st.DrawFn, word: str) -> str:
    flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    return "".join(c.upper() if f else c for c, f in zip(word, flips, strict=True))


# Python's (?i) folds these to ASCII letters, and its \s has more than ASCII spaces
FOLDS = {"i": ["ı", "İ"], "s": ["ſ"], "k": ["\u212a"]}
SPACES = [" ", "\t", "\n", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u3000"]


KEY_WORDS = (
    *("api_key", "apikey", "client-secret", "access.token", "private_token", "password"),
    *("passwd", "passphrase", "pwd", "secret_key", "auth_token", "api_secret"),
)


@st.composite
def assignment(draw: st.DrawFn) -> str:
    """A key-word assignment in any case, with odd spaces and the letters Python folds."""
    word = _mixed_case(draw, draw(st.sampled_from(KEY_WORDS)))
    if draw(st.booleans()):
        i = draw(st.integers(0, len(word) - 1))
        options = FOLDS.get(word[i].lower())
        if options:
            word = word[:i] + draw(st.sampled_from(options)) + word[i + 1 :]
    prefix = draw(st.sampled_from(["", "DB_", "my.", "x-", "OPENAI_"]))
    quote = draw(st.sampled_from(["", '"', "'", '\\"']))
    gap = "".join(draw(st.lists(st.sampled_from(SPACES), max_size=3)))
    sep = draw(st.sampled_from(["=", ":", "=>", ":=", ": str = "]))
    value = draw(st.sampled_from(["hunter2x9", '"s3cr3t-Value"', "aZ7qQ1x0abcd", "$TOKEN"]))
    flag = draw(st.sampled_from(["", "--" + _mixed_case(draw, "token") + " abc123def456 "]))
    auth = draw(
        st.sampled_from(["", _mixed_case(draw, "authorization") + ": Bearer abc123def4567 "])
    )
    return f"{flag}{auth}{prefix}{word}{quote}{gap}{sep}{gap}{value}"


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.lists(st.one_of(prose, assignment(), planted_secret().map(lambda p: p[0])), max_size=6))
def test_property_the_scan_clears_no_text_a_rule_matches(pieces: list[str]) -> None:
    text = " ".join(pieces)
    plain = _plain()
    masked = plain.mask_text(text)
    if masked != text:
        assert secret_scan.scan().may_match(text), text
    fast = SecretMasker()
    assert fast.mask_text(text) == masked
    assert fast.counts == plain.counts


def test_a_text_that_is_not_utf8_is_a_maybe() -> None:
    text = "x\ud800 api_key=aZ7qQ1x0abcdef"
    assert secret_scan.scan().may_match(text)
    assert secret_scan.scan().may_match("\ud800 nothing here")
    assert "aZ7qQ1x0abcdef" not in SecretMasker().mask_text(text)


def test_a_folded_letter_is_a_maybe_and_still_masked() -> None:
    text = "héllo APİ_KEY=aZ7qQ1x0abcdef"  # Python's (?i) reads İ as i
    assert secret_scan.scan().may_match(text)
    assert SecretMasker().mask_text(text) == _plain().mask_text(text)
    assert "aZ7qQ1x0abcdef" not in SecretMasker().mask_text(text)
    assert not secret_scan.scan().may_match("héllo wörld, the token count is 5")


def test_messages_with_a_secret_in_any_field_are_masked_the_same() -> None:
    secret = "sk-proj-aZ7qQ1x0abcdefghijklmnopqrstuv"
    messages: list[Any] = [
        Message("user", "clean text " * 50),
        Message("user", "", parts=[Part("text", text=f"see {secret}")]),
        Message("user", "", parts=[Part("image_url", url=f"https://x.example/?k={secret}")]),
        Message(
            "assistant",
            "calling",
            tool_calls=[ToolCall("c1", "run", '{"cmd": "export TOKEN=' + secret + '"}')],
        ),
        Message("assistant", "done", reasoning_content=f"the key is {secret}"),
        AgenticMessage(
            "user",
            [Block("function_tool_result", content=[Block("text", text=f"password: {secret}")])],
        ),
        Message("tool", "clean output", tool_call_id="c1"),
    ]
    fast, plain = SecretMasker(), _plain()
    out_fast, out_plain = fast.mask_messages(messages), plain.mask_messages(messages)
    assert out_fast == out_plain
    assert fast.counts == plain.counts and sum(fast.counts.values()) == 5
    assert secret not in repr(out_fast)
    assert out_fast[0] is messages[0] and out_fast[-1] is messages[-1]  # clean: not copied
    assert secret_scan.clean_messages(messages) == [True, *[False] * 5, True]


def test_custom_patterns_read_every_message() -> None:
    messages: list[Message] = [Message("user", "the decision was final")]
    masker = SecretMasker([("decision", r"decision")])
    assert masker.mask_messages(messages)[0].content == "the [REDACTED:decision#1] was final"


@pytest.mark.parametrize("text", ["", "plain", "token count: 5", "PASSED tests/test_x.py"])
def test_ordinary_texts_are_cleared(text: str) -> None:
    assert not secret_scan.scan().may_match(text)
