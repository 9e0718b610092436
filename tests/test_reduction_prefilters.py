"""Issue 30 point 5: the streaming reduce's cheap first tests answer exactly as the full tests.

``carries_user_words`` first looks for "user"/"your" in the result's head (casefolded, as the
IGNORECASE match folds "ſ" to "s"), ``text_state`` first looks at the first character, and the
depth test first counts the line's brackets: each must give the answer of the test it shortens
(a result kept or cleared the same way, the same records left to the general path).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from compactor.reduction.results import (
    _USER_WORDS_RE,
    carries_user_words,
    text_state,
)
from compactor.reduction.stream import _deep
from compactor.rejections import _CLI_RE, _SHORT_RE
from compactor.schema import MAX_JSON_DEPTH, json_deeper_than

PHRASES = (
    "The user doesn't want to proceed with this tool use. To tell you how to proceed, the user "
    "said: use the other import",
    "THE USER DOES NOT WANT TO PROCEED WITH THIS TOOL USE. The reason for the rejection: no",
    "User has answered your questions: yes",
    "Your question has been answered: Redis",
    "your questions have been answered: both",
    "The uſer doesn't want to proceed with this tool use. the user said: ſ is an s",
    "uſer has answered your questions: the long s",
    "The user doesn't want to proceed with this tool use. The tool use was rejected. STOP",
    "exec command rejected by user",
    "Tool call declined by the uſer",
    "USER REJECTED THE TOOL CALL",
    "The tool use was rejected (eg. if it was a file edit, the new_string was NOT written)",
)


def _texts() -> list[str]:
    texts = ["", "x", "user", "your", "[Old tool result content cleared]", "\u212a user"]
    for phrase in PHRASES:
        for pad in (0, 1, 12, 39, 40, 41, 44, 60):
            texts.append("p" * pad + phrase)
            texts.append(" " * pad + phrase)
            texts.append("é" * pad + phrase)
        texts.append("line\n" + phrase)
        texts.append(phrase.replace("user", "usr").replace("uſer", "usr"))
    return texts


def test_the_user_words_head_test_answers_as_the_full_match() -> None:
    texts = _texts()
    found = [t for t in texts if carries_user_words(t)]
    assert found  # the phrases at the start are found
    assert any("uſer" in t for t in found)  # the long s, folded as the match folds it
    for text in texts:
        full = (
            _USER_WORDS_RE.match(text, 0, 800)
            or _CLI_RE.match(text)
            or (len(text) <= 2_000 and _SHORT_RE.match(text))
        )
        assert carries_user_words(text) is (full is not None), text


def _full_text_state(text: str) -> str | None:
    """``text_state`` without its first-character test (as it was before it)."""
    head = text[:160].lstrip()
    if len(head) < 80 and len(text) > 160:
        head = text.lstrip()
    head = head[:80]
    if head.startswith("[Old tool result content cleared]"):
        return "clear"
    if head.startswith("<persisted-output>"):
        return "trunc" if "Output too large" in head else "clear"
    return None


@pytest.mark.parametrize("lead", ["", " ", "\n\t", "\u3000", "\x1c", " " * 200, "x", "é"])
@pytest.mark.parametrize(
    "body",
    [
        "[Old tool result content cleared]",
        "<persisted-output>\nOutput too large (12 KB). Full output saved to: /x\n",
        "<persisted-output>\nsaved to /x</persisted-output>",
        "[other]",
        "<b>bold</b>",
        "plain output",
    ],
)
def test_the_placeholder_first_character_test_answers_as_the_full_test(
    lead: str, body: str
) -> None:
    text = lead + body
    assert text_state(text) == _full_text_state(text)
    if lead.strip() == "" and body.startswith(("[Old", "<persisted")):
        assert text_state(text) is not None  # a placeholder after blanks is still one


@pytest.mark.parametrize("depth", [1, 8, 9, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1])
@pytest.mark.parametrize("in_strings", [0, 40, 300])
def test_the_bracket_count_answers_as_the_walk(depth: int, in_strings: int) -> None:
    value: object = "x"
    for _ in range(depth - 1):  # the record is a level, and each list
        value = [value]
    rec = {"role": "assistant", "content": "[{" * in_strings, "v": value}
    raw = orjson.dumps(rec)
    assert _deep(raw, 0, len(raw), rec) is (json_deeper_than(rec) is not None)
    assert _deep(raw, 0, len(raw), rec) is (depth > MAX_JSON_DEPTH)


@pytest.mark.parametrize("reader", ["Read", "shell"])
def test_results_near_the_longest_placeholder_are_cleared_as_on_the_general_path(
    tmp_path: Path, reader: str
) -> None:
    """The clearing takes a plain result longer than the longest placeholder (a 113-character
    file name) without building its own: results of every length around the placeholders of
    short and of the longest names are kept or cleared as the general path decides."""
    from .test_reduction_stream import _both, _call, _write

    recs: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    n = 0
    for length in range(150, 640, 4):
        for cid in (f"c{n}", f"{'x' * 110}{n:03d}", f"id {n}/ü"):
            n += 1
            recs.append({"role": "assistant", "content": "", "tool_calls": [_call(cid)]})
            recs.append({"role": "tool", "tool_call_id": cid, "content": "o" * length})
    recs.append({"role": "assistant", "content": "", "tool_calls": [_call("last")]})
    recs.append({"role": "tool", "tool_call_id": "last", "content": "kept"})
    src = tmp_path / "s.jsonl"
    _write(src, recs)
    _, seen = _both(tmp_path, src, ["--force"], {"reduction": {"read_file_tool_name": reader}})
    assert seen["exit"] == 0, seen["stderr"]
    assert seen["reduction"]["kept"] > 0 and seen["reduction"]["cleared"] > 0  # both sides met
