"""The summary of a compacted transcript, found and made ready to read (``compact show``).

:func:`find_summary` reads a transcript in any format and returns its newest summary: the
message ``compact run`` wrote (marked by the format's own flag where it has one, such as Claude
Code's ``isCompactSummary`` or Codex's ``compacted`` record, else recognised by the preamble
every summary starts with). Claude Code's and Codex's own compactions are found the same way.

:func:`summary_markdown` turns the summary's text into Markdown that renders as the text reads:
the ``<analysis>`` / ``<summary>`` blocks and the numbered sections become headings; every line
break, indentation and list marker is kept as written (a ``- `` or ``+ `` line of a diff is not
turned into a bullet); every other Markdown character (``*``, ``_``, ``<``, ``&``, ``[``,
``|``, ``~``, ``\\``) is escaped outside code spans and fences, so a file name such as
``__init__.py`` or a type such as ``Vec<u8>`` shows as written instead of turning into bold
text or a dropped HTML tag. Only code spans, code fences and ``#`` headings keep their
meaning. Rendering (rich) is the CLI's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from compactor._util import lazy_pattern
from compactor.errors import TranscriptError
from compactor.prompts import PREAMBLE
from compactor.schema import AgenticMessage, Message, assistant_text, content_type, user_text

__all__ = [
    "KEEP_INDENT",
    "FoundReduction",
    "FoundSummary",
    "ReducedResult",
    "find_shown",
    "find_summary",
    "reduced_results",
    "summary_markdown",
    "summary_message_index",
]


@dataclass(frozen=True)
class FoundSummary:
    """The newest summary of a transcript."""

    path: str
    format: str
    text: str
    position: int
    """1-based position of the summary in the transcript's messages."""
    messages: int
    """Messages in the transcript (the model-visible history)."""


@dataclass(frozen=True)
class ReducedResult:
    """One tool result a reduction replaced by a placeholder."""

    position: int
    """1-based position of its message in the transcript's messages."""
    call_id: str
    tool: str
    state: str
    """``cleared`` or ``truncated``."""
    file: str | None
    """Where the placeholder says the original is (an offload file, or ``path, line N``)."""


@dataclass(frozen=True)
class FoundReduction:
    """A transcript that holds no summary but was reduced (``--strategy reduce``, or hybrid
    under its trigger): the results it cleared or truncated, and where their originals are."""

    path: str
    format: str
    messages: int
    results: tuple[ReducedResult, ...]

    def text(self) -> str:
        """One line per reduced result, then where the originals are."""
        cleared = sum(r.state == "cleared" for r in self.results)
        lines = [
            f"No summary in this transcript: it was reduced, not summarized. "
            f"{cleared:,} tool result(s) cleared and {len(self.results) - cleared:,} "
            f"truncated; every message and call is kept, each reduced result names where its "
            f"original is.",
            "",
        ]
        for r in self.results:
            where = r.file if r.file is not None else "(nowhere named)"
            lines.append(
                f"message {r.position:,} · {r.state} · {r.tool or '?'} {r.call_id} → {where}"
            )
        files = [r.file for r in self.results if r.file is not None and not _LINE_OF.search(r.file)]
        folders = sorted({str(PurePath(file).parent.parent) for file in files})
        if folders:
            lines.extend(("", "Offload folder: " + ", ".join(folders)))
        return "\n".join(lines) + "\n"


_SAVED = re.compile(r"(?:Tool result saved to|Full output saved to): ([^\n]+)\n")
_IN_TRANSCRIPT = re.compile(r"\(the full result is in the transcript ([^\n]+)\)")


_LINE_OF = re.compile(r", line \d+$")
"""The end of a ``path, line N`` place (the original is in a transcript, not a file)."""


def reduced_results(messages: Sequence[Message | AgenticMessage]) -> list[ReducedResult]:
    """Every tool result of ``messages`` that is a reduction's placeholder, oldest first."""
    from compactor.reduction.results import find_results, result_text, text_state

    found: list[ReducedResult] = []
    for ref in find_results(messages):
        text = result_text(messages[ref.index], ref)[0]
        state = text_state(text)
        if state is None:
            continue
        where = _SAVED.search(text[:4096]) or _IN_TRANSCRIPT.search(text[:4096])
        found.append(
            ReducedResult(
                ref.index + 1,
                ref.call_id,
                ref.name,
                "truncated" if state == "trunc" else "cleared",
                where.group(1).strip() if where else None,
            )
        )
    return found


def summary_message_index(messages: Sequence[Message | AgenticMessage]) -> int | None:
    """Index of the newest summary message, or None."""
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if content_type(msg) == "summary":
            return i
        if msg.role in ("user", "system") and user_text(msg).lstrip().startswith(PREAMBLE):
            return i
    return None


def find_summary(path: str, format: str | None = None) -> FoundSummary:
    """Read ``path`` (``-``: stdin) and return its newest summary; a transcript without one
    is a :class:`~compactor.errors.TranscriptError` (exit 2)."""
    found = find_shown(path, format, reduced=False)
    assert isinstance(found, FoundSummary)
    return found


def find_shown(
    path: str, format: str | None = None, *, reduced: bool = True
) -> FoundSummary | FoundReduction:
    """Read ``path`` (``-``: stdin) and return its newest summary; without one, the results a
    reduction replaced (``reduced``); a transcript with neither is a
    :class:`~compactor.errors.TranscriptError` (exit 2)."""
    from compactor.formats.registry import read_transcript
    from compactor.io import read_input

    display, raw = read_input(path)
    parsed = read_transcript(display, raw, format=format)
    messages = parsed.messages
    index = summary_message_index(messages)
    if index is None:
        results = reduced_results(messages) if reduced else []
        if results:
            return FoundReduction(display, parsed.format, len(messages), tuple(results))
        raise TranscriptError(
            display,
            None,
            None,
            f"no summary in this {parsed.format} transcript ({len(messages):,} messages): "
            "it has not been compacted",
        )
    msg = messages[index]
    text = user_text(msg) or assistant_text(msg)
    return FoundSummary(display, parsed.format, text, index + 1, len(messages))


# --------------------------------------------------------------------------------------------------
# Markdown

_TAG = lazy_pattern(r"^\s*<(/?)([A-Za-z][\w-]{0,40})>\s*$")
_OPEN_WITH_TEXT = lazy_pattern(r"^<([A-Za-z][\w-]{0,40})>(.+)$")
_CLOSE_AFTER_TEXT = lazy_pattern(r"^(.*\S)</([A-Za-z][\w-]{0,40})>\s*$")
_SECTION = lazy_pattern(r"^(\d{1,2})\.\s+([A-Z][^:\n]{1,80}):\s*(.*)$")
_FENCE = lazy_pattern(r"^ {0,3}(`{3,}|~{3,})")
_NUMBER_MARK = lazy_pattern(r"^\d{1,9}(?=[.)])")
_CODE_SPAN = lazy_pattern(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_SPECIAL = lazy_pattern(r"([\\*_<>&`\[\]|~])")
_LEADING = frozenset("-+=>#")
"""A line starting with one of these could become a list, a setext underline, a quote or a
heading: its first character is escaped."""


def _title(tag: str) -> str:
    words = tag.replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:]


def _escape(text: str) -> str:
    """Escape Markdown's emphasis and HTML characters outside code spans of this line (a
    backtick without its pair is escaped too: it must not open a span that ends lines later)."""
    out: list[str] = []
    pos = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(_SPECIAL.sub(r"\\\1", text[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(_SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(out)


KEEP_INDENT = "\u2060"
"""WORD JOINER (zero width): in front of an indented line, so Markdown keeps its indentation
(a paragraph's leading whitespace, non-breaking spaces included, is otherwise stripped). The
renderer removes it from what it prints."""


def _text_line(line: str) -> str:
    """One line as written: its indentation kept (non-breaking spaces, so it is neither a code
    block nor joined to the line above) and its ``-``, ``+`` or ``1.`` shown as typed, never
    turned into a bullet: a ``+``/``-`` line of a diff keeps its meaning."""
    line = line.expandtabs(4)
    stripped = line.lstrip(" ")
    indent = len(line) - len(stripped)
    text = _escape(stripped)
    number = _NUMBER_MARK.match(text)
    if number:  # "1." / "2)" at the start is text, not an ordered list
        text = f"{text[: number.end()]}\\{text[number.end() :]}"
    elif text[:1] in _LEADING and not (indent == 0 and re.match(r"#{1,6} ", text)):
        text = "\\" + text
    return KEEP_INDENT + "\u00a0" * indent + text if indent else text


def summary_markdown(text: str) -> str:
    """The summary as Markdown that renders the way the text reads (see the module doc)."""
    out: list[str] = []
    depth: list[str] = []
    fence: str | None = None

    def heading(title: str) -> None:
        last = next((line for line in reversed(out) if line), "")
        if last.startswith("#") and last.lower().endswith(title.lower()):
            return  # "6. All user messages" then <all_user_messages>: one heading
        level = "##" if len(depth) <= 1 else "####"
        out.extend(("", f"{level} {title}", ""))

    def prose(line: str) -> None:
        out.append(_text_line(line) + "  ")  # a hard line break: every line stays a line

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if fence is not None:
            out.append(raw)
            if line.strip().startswith(fence):
                fence = None
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)[0] * 3
            out.append(line)
            continue
        tag = _TAG.match(line)
        if tag:
            closing, name = tag.group(1), tag.group(2)
            if closing:
                if name in depth:
                    del depth[depth.index(name) :]
                out.append("")
            else:
                depth.append(name)
                heading(_title(name))
            continue
        with_text = _OPEN_WITH_TEXT.match(line)
        if with_text:
            depth.append(with_text.group(1))
            heading(_title(with_text.group(1)))
            line = with_text.group(2)
        after = _CLOSE_AFTER_TEXT.match(line)
        closes = None
        if after and after.group(2) in depth:
            line, closes = after.group(1), after.group(2)
        section = _SECTION.match(line) if "summary" in depth else None
        if section:
            out.extend(("", f"### {section.group(1)}. {_escape(section.group(2))}", ""))
            if section.group(3):
                prose(section.group(3))
        elif line.strip():
            prose(line)
        else:
            out.append("")
        if closes is not None:
            del depth[depth.index(closes) :]
            out.append("")
    return "\n".join(out).strip() + "\n"
