"""One owner reads a Claude Code record's content texts (``formats._claude_texts``): the queue,
the interruption notice, the failed-compaction check and the earlier jobs each ask it with the
options they need (debt51)."""

from __future__ import annotations

from compactor._json import JsonValue
from compactor.formats import (
    _claude_apierror,
    _claude_earlier,
    _claude_failed,
    _claude_modes,
    _claude_queue,
)
from compactor.formats._claude_texts import content_texts, one_line

_CONTENT: JsonValue = [
    {"type": "text", "text": "prose"},
    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "inner"}]},
    {"type": "tool_result", "tool_use_id": "t2", "content": "inner string"},
    {"type": "image", "text": "alt"},
    "not a block",
    {"type": "text", "text": 5},
]


def test_content_texts_options() -> None:
    assert content_texts("plain") == ["plain"]
    assert content_texts(None) == []
    assert content_texts(_CONTENT) == ["prose", "alt"]
    assert content_texts(_CONTENT, text_blocks_only=True) == ["prose"]
    assert content_texts(_CONTENT, tool_results=True) == ["prose", "inner", "inner string", "alt"]


def test_the_readers_share_the_owner() -> None:
    # no private copy of the loop or of the one-line cut is left in the readers
    for module in (_claude_modes, _claude_failed, _claude_queue, _claude_earlier):
        assert getattr(module, "content_texts", None) is content_texts
        assert not hasattr(module, "_texts")
    for module in (_claude_earlier, _claude_apierror):
        assert getattr(module, "one_line", None) is one_line and not hasattr(module, "_one_line")
    rec = {"isCompactSummary": True, "message": {"content": _CONTENT}}
    assert _claude_failed._text(rec) == "prose"


def test_one_line() -> None:
    assert one_line("a\n  b\tc ", 10) == "a b c"
    assert one_line("abcdefghijkl", 5) == "abcd…"
    error = {"error": {"error": {"message": "x  " * 200}}}
    assert _claude_apierror._message(error) == one_line("x " * 200, 200)
