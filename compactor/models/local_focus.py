"""Focus instructions for the embedded summarizer (``compact run --instructions``).

The pipeline appends the user's focus text to the user instruction after
:data:`~compactor.prompts.FOCUS_HEADER`; the embedded summarizer reads it back from there.
Its terms are the words of the text minus stop words; the lines of the conversation that
mention a term are kept first, verbatim (trimmed), in a block of their own whose room is taken
from the summary's budget before the nine sections are fitted, so a budget cut never drops them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import TypeVar, overload

from compactor._util import lazy_pattern
from compactor.counting.tokens import estimate_text
from compactor.prompts import FOCUS_HEADER
from compactor.schema import AgenticMessage, Message, blocks_text, is_internal, parts_text

__all__ = ["ContextView", "context_span", "focus_block", "focus_of", "focus_terms", "insert_focus"]

_WORD = lazy_pattern(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*[A-Za-z0-9_]|[A-Za-z0-9_]")
_STOP_WORDS = frozenset(
    "a about above after again against all also an and any are as at be because been before "
    "being below between both but by can could did do does doing done down during each few for "
    "from further had has have having he her here hers him his how i if in into is it its itself "
    "just keep let me more most my no nor not now of off on once only or other our out over own "
    "please same she should so some such summary summarize than that the their them then there "
    "these they this those through to too under until up very was we were what when where which "
    "while who whom why will with would you your focus mainly especially particular particularly "
    "everything things thing anything make sure include details detail".split()
)
LINE_CHARS = 300
"""A kept line longer than this is cut (with ``…``)."""
MAX_FOCUS_SHARE = 0.4
"""At most this share of the summary budget goes to the focus block."""


def focus_of(instruction: object) -> str:
    """The focus text appended to the user instruction message ``instruction`` ("" if none)."""
    text = _text(instruction)
    at = text.rfind(FOCUS_HEADER)
    return "" if at < 0 else text[at + len(FOCUS_HEADER) :].strip()


def focus_terms(focus: str) -> list[str]:
    """The words of ``focus``, lower-cased, without stop words and duplicates, in order."""
    terms: list[str] = []
    for word in _WORD.findall(focus.lower()):
        if len(word) > 1 and word not in _STOP_WORDS and word not in terms:
            terms.append(word)
    return terms


def focus_block(focus: str, context: Sequence[Message | AgenticMessage], budget: int) -> str:
    """The lines of ``context`` that mention a term of ``focus``, each once, in conversation
    order, within ``MAX_FOCUS_SHARE`` of ``budget`` tokens ("" when none or no terms)."""
    terms = focus_terms(focus)
    if not terms:
        return ""
    pattern = re.compile(
        r"(?<![A-Za-z0-9_])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![A-Za-z0-9_])",
        re.IGNORECASE,
    )
    room = int(budget * MAX_FOCUS_SHARE)
    header = f"Focus asked for by the user: {focus}\nWhat the conversation says about it:"
    lines, used, seen = [header], estimate_text(header), set()
    for msg in context:
        for raw in _text(msg).splitlines():
            line = " ".join(raw.split())
            if not line or line in seen or not pattern.search(line):
                continue
            seen.add(line)
            if len(line) > LINE_CHARS:
                line = line[: LINE_CHARS - 1] + "…"
            item = f"- {line}"
            cost = estimate_text(item) + 1
            if used + cost > room:
                return "\n".join(lines) if len(lines) > 1 else ""
            lines.append(item)
            used += cost
    return "\n".join(lines) if len(lines) > 1 else ""


def insert_focus(text: str, block: str, title: str) -> str:
    """``text`` (a summary) with ``block`` put first under its first section, ``title``."""
    heading = f"<summary>\n1. {title}:\n"
    if not block or heading not in text:
        return text
    indented = "\n".join(f"   {line}" for line in block.splitlines())
    return text.replace(heading, f"{heading}{indented}\n", 1)


def context_span(messages: Sequence[Message | AgenticMessage]) -> tuple[int, int]:
    """(start, end) of the context between the two instruction messages, when they are there."""
    start, end = 0, len(messages)
    if end and messages[0].role == "system":
        start = 1
    if end > start and messages[end - 1].role == "user":
        last = messages[end - 1]
        is_result = isinstance(last, AgenticMessage) and any(
            b.type == "function_tool_result" for b in last.blocks
        )
        if not is_result and not is_internal(last):
            end -= 1
    return start, end


T = TypeVar("T")


class ContextView(Sequence[T]):
    """``items[start:end]`` without the copy (the summarizer only reads it: a list of a million
    messages costs 9 MB)."""

    __slots__ = ("_end", "_items", "_start")

    def __init__(self, items: Sequence[T], start: int, end: int) -> None:
        self._items, self._start, self._end = items, start, max(start, end)

    def __len__(self) -> int:
        return self._end - self._start

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        span = range(self._start, self._end)
        if isinstance(index, slice):
            return [self._items[i] for i in span[index]]
        return self._items[span[index]]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._start, self._end)


def _text(msg: object) -> str:
    if isinstance(msg, Message):
        return parts_text(msg)
    if isinstance(msg, AgenticMessage):
        return blocks_text(msg.blocks)
    return ""
