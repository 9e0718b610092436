"""The user's own typed words in a user message (issue 28, blind check 13): a command template
(a slash command's expansion, spec-kit's ``/speckit.tasks``) or pasted file content (a YAML file
of agent prompts) holds rules and paths the user never wrote to the agent ("All paths must be
absolute.", "Never spend >$1", ``src/models/user.py``). The user's constraints, decisions and
named files are read from :func:`typed_words` only."""

from __future__ import annotations

import functools
import re
from itertools import islice

from compactor._util import lazy_pattern
from compactor.facts.templates import SLOT_RE, tail_words

__all__ = ["own_words", "typed_words"]

_HEADING_RE = lazy_pattern(r"^#{1,6}[ \t]+\S", re.MULTILINE)
_DOCUMENT_LEAST = 600
"""A user message this long with two Markdown headings or more is a document (a template)."""
_INDENTED_RE = lazy_pattern(r"^(?: {2,}|\t)\S")
_CODE_LINE_RE = lazy_pattern(r"^\s+(?:[\w.\-]+:(?:\s|$)|[-#/]|.*[{}();=\[\]])")
_PASTE_LEAST = 8
"""Indented lines a message needs before its indented lines count as a pasted file."""


def _without_paste(text: str) -> str:
    """``text`` without the indented lines of a pasted file (YAML, code): when 8 lines or more
    are indented, they are at least half of its lines, and a third of them look like code or
    YAML keys (``max_cost: 1.00``, ``tools: [...]``, ``if x:``)."""
    if text.count("  ") + text.count("\t") < _PASTE_LEAST:
        return text  # (each indented line holds one of these at least: too few lines can be)
    lines = text.splitlines()
    indented = [ln for ln in lines if _INDENTED_RE.match(ln)]
    filled = sum(1 for ln in lines if ln.strip())
    if len(indented) < _PASTE_LEAST or 2 * len(indented) < filled:
        return text
    if 3 * sum(1 for ln in indented if _CODE_LINE_RE.match(ln)) < len(indented):
        return text
    return "\n".join(ln for ln in lines if not _INDENTED_RE.match(ln))


_ITEM = r"[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+"
_BRANCH_END = (
    r":[ \t]*(?:respond|reply|return|output|print|report|answer|say|write|stop|abort|emit)\b"
)
_BRANCH_RE = lazy_pattern(
    rf"^{_ITEM}(?:if|when|whenever|unless|upon|on|in case|otherwise|else)\b[^\n:]{{0,200}}"
    + _BRANCH_END,
    re.IGNORECASE | re.MULTILINE,
)
"""A list item that tells the agent how to answer in one case (``- On guardrail failure (…):
respond with `Error: <reason>` only``, ``- On success: respond with …``)."""
_RULES_AT_RE = lazy_pattern(rf"^(?:[^\n]{{1,60}}:[ \t]*\n)?{_ITEM}", re.MULTILINE)
"""Where a prompt's rules begin: a list, with the label line before it (``Rules:``)."""


_BRANCH_END_RE = lazy_pattern(_BRANCH_END, re.IGNORECASE)
"""The end of every :data:`_BRANCH_RE` match: found by a search for its colon (the branch's
line starts are tried at every character of a long message: 4 % of the paths shape)."""


def _procedure_head(text: str) -> str | None:
    """The words before its rules when ``text`` is a prompt file sent as the message (a Codex
    custom prompt, ``/prompts:NAME``, has no input slot: check 35 W6, cx-butler's
    ``/butler-exec``): its list gives the answer for two cases or more (``On success: respond
    with …``, ``On failure …: respond with …``), the procedure of a command, not rules the user
    typed for this request. None when ``text`` is no such prompt."""
    if _BRANCH_END_RE.search(text) is None:
        return None  # no branch can match: each one ends so
    branches = list(islice(_BRANCH_RE.finditer(text), 2))
    if len(branches) < 2:
        return None
    rules = _RULES_AT_RE.search(text, 0, branches[0].end())
    return text[: rules.start()].strip() if rules is not None else ""


_FRONT_MATTER_RE = lazy_pattern(r"\A---[ \t]*\n(?:[^\n]*\n){0,40}?---[ \t]*(?:\n|\Z)")
"""A command file's YAML front matter (``---`` / ``description: …`` / ``---``), copied into
the expansion before its ``## User Input`` slot: the template's, not the user's words."""


@functools.lru_cache(maxsize=256)
def _typed(text: str) -> str:
    if ":" in text and (head := _procedure_head(text)) is not None:
        return head  # (its rules are the command's, not the user's)
    document = len(text) >= _DOCUMENT_LEAST and "#" in text  # (a heading's mark first)
    headings = list(_HEADING_RE.finditer(text)) if document else []
    if document and len(headings) >= 2 and (tail := tail_words(text)):
        return _without_paste(tail)  # the slot unfilled: the words after the template (49 W4)
    if document and len(headings) >= 2:
        slots = [m.group(2).strip() for m in SLOT_RE.finditer(text)]
        head = text[: headings[0].start()].strip()
        if slots and head.startswith("---"):  # the command file's front matter (blind 52 W11)
            head = _FRONT_MATTER_RE.sub("", head, count=1).strip()
        text = "\n\n".join([head, *slots]).strip()
    return _without_paste(text)


def typed_words(text: str) -> str:
    """The words of a user message the user typed: all of a plain one; of a Markdown document
    (:data:`_DOCUMENT_LEAST` characters, two headings or more: a command template, a pasted
    file) only what precedes its first heading and its input slot (``## User Input`` and the
    fenced block under it); without the indented lines of a pasted YAML or code file."""
    if len(text) < 200 or "\n" not in text:
        return text
    return _typed(text)


def own_words(text: str) -> str:
    """The part of a user message that is the user's own words: its :func:`typed_words`, all of
    a short one; the start and the end of a long paste (its middle is usually a log or another
    agent's output)."""
    text = typed_words(text)
    if len(text) <= 3_000:
        return text
    return _word_head(text, 600) + "\n" + _word_tail(text, 1_000)


def _word_head(text: str, size: int) -> str:
    """The first ``size`` characters of ``text``, cut at a word's end with "…" when the cut
    fell inside a word (blind check 15: a constraint ended "technolog")."""
    if text[size].isspace() or text[size - 1].isspace():
        return text[:size]
    end = max(text.rfind(" ", 0, size), text.rfind("\n", 0, size))
    return text[: end if end > size // 2 else size].rstrip() + "\u2026"


def _word_tail(text: str, size: int) -> str:
    """The last ``size`` characters of ``text``, from a word's start, after "…" when the cut
    fell inside a word."""
    start = len(text) - size
    if text[start - 1].isspace() or text[start].isspace():
        return text[start:]
    ends = [i for i in (text.find(" ", start), text.find("\n", start)) if i >= 0]
    step = min(ends) if ends and min(ends) < start + size // 2 else start
    return "\u2026" + text[step:].lstrip()
