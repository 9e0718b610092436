"""``compactor.cli.safe_text``: outside text shown with its control characters made visible."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from compactor.cli.safe_text import visible, visible_json, visible_line
from compactor.testing.fake_openai import ESCAPES

HOSTILE = ("\x1b]52;", "\x1b]0;", "\x1b]8;", "\x1b[2J", "\x07", "\x9b", "\u202e", "\r")


def test_escapes_are_shown_not_sent() -> None:
    shown = visible(f"upstream failed {ESCAPES} see logs")
    for seq in HOSTILE:
        assert seq not in shown
    assert "\\x1b]52;c;" in shown and "\\x07" in shown and "\\x9b31m" in shown
    assert "\\u202e" in shown


def test_ordinary_text_is_unchanged() -> None:
    text = "compacted 1,234 → 56 messages\n\tpath/to/ファイル.jsonl [ok] 100% ✔"
    assert visible(text) == text


@given(st.text())
def test_nothing_a_terminal_acts_on_survives(text: str) -> None:
    shown = visible(text)
    for ch in shown:
        code = ord(ch)
        assert ch in "\t\n" or not (code < 0x20 or 0x7F <= code <= 0x9F)
        assert not (0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069)


@given(st.dictionaries(st.text(), st.text()))
def test_visible_json_is_the_same_json(data: dict[str, str]) -> None:
    text = visible_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(text) == data
    assert not any(0x7F <= ord(ch) <= 0x9F or 0x202A <= ord(ch) <= 0x202E for ch in text)


@given(st.text(st.characters(codec=None, exclude_categories=())))
def test_visible_line_is_one_line_a_terminal_can_take(text: str) -> None:
    # Any text, lone surrogates (a file name's undecodable bytes) included: one line, no
    # control character, and UTF-8 can encode it (issue 27 points 5 and 18).
    shown = visible_line(text)
    assert "\n" not in shown and "\r" not in shown
    assert not any(ord(ch) < 0x20 and ch != "\t" for ch in shown)
    shown.encode("utf-8")
