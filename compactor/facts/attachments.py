"""A file a user attached to a message (its whole text pasted by the client between markers)
named instead of printed (blind check 14: an OpenAI-chat agent's user messages held two attached
source files, ``[FILE: registry.py] … [END registry.py]``, and the summary printed both in full,
946 lines for a 15,579-token session). The user's own words around the attachment are kept; the
attachment is named with its size and a few key lines (its definitions, else its first lines)."""

from __future__ import annotations

import re
from dataclasses import replace

from compactor._util import lazy_pattern

from .text import Entry

__all__ = ["named_attachments", "request_entry"]

_BLOCK_RE = lazy_pattern(
    # [FILE: name] … [END name] / [END FILE] / [/FILE]
    r"^[ \t]*\[(?:FILE|File|ATTACHMENT|Attachment|ATTACHED FILE|Attached file)\s*:\s*"
    r"(?P<name>[^\]\n]{1,200})\]\s*\n(?P<body>.*?)\n[ \t]*\[(?:END|End|/FILE|/File)"
    r"(?:\s*:?\s*(?:FILE|File|ATTACHMENT)?\s*:?\s*(?P=name))?[ \t]*\][ \t]*$"
    # <file name="x"> … </file>, <attachment path='x'> … </attachment>
    r"|^[ \t]*<(?P<tag>file|attachment|attached_file)\s+(?:name|path|filename)=[\"']"
    r"(?P<tname>[^\"'\n]{1,200})[\"'][^>\n]*>\s*\n(?P<tbody>.*?)\n[ \t]*</(?P=tag)>[ \t]*$",
    re.DOTALL | re.MULTILINE,
)
_HINTS = ("[FILE", "[File", "[ATTACH", "[Attach", "<file", "<attach")
"""What every match of :data:`_BLOCK_RE` holds where it opens (cheap substring tests first)."""
_KEY_LINE_RE = lazy_pattern(
    r"^\s*(?:(?:async\s+)?def |class |function |(?:export\s+)?(?:default\s+)?(?:async\s+)?"
    r"function |(?:pub\s+)?(?:fn|struct|enum|impl|trait) |func |interface |type )"
)
_MIN_LINES = 8
"""A shorter block is shown whole (a snippet, not a file)."""
_KEY_LINES, _KEY_WIDTH = 3, 80


def _named(name: str, body: str) -> str:
    lines = [x.rstrip() for x in body.splitlines()]
    filled = [x for x in lines if x.strip()]
    keys = [x.strip() for x in filled if _KEY_LINE_RE.match(x)] or [x.strip() for x in filled]
    shown = " | ".join(x[:_KEY_WIDTH] for x in keys[:_KEY_LINES])
    return (
        f"[attached file {name.strip()}: {len(lines)} lines, {len(body)} characters, not shown; "
        f"key lines: {shown}]"
    )


def named_attachments(text: str) -> str:
    """``text`` with each attached file of at least :data:`_MIN_LINES` lines named, not printed."""
    if "\n" not in text or not any(map(text.__contains__, _HINTS)):
        return text  # (a block spans lines, and opens with one of these: most texts hold none)

    def name(m: re.Match[str]) -> str:
        body = m.group("body") if m.group("name") is not None else m.group("tbody")
        if body.count("\n") + 1 < _MIN_LINES:
            return m.group(0)
        return _named(m.group("name") or m.group("tname"), body)

    return _BLOCK_RE.sub(name, text)


def request_entry(e: Entry) -> Entry:
    """``e`` as a request: its attached files named (the same entry when it attaches none)."""
    if "\n" not in e.text:
        return e  # (as :func:`named_attachments` finds: a block spans lines)
    text = named_attachments(e.text)
    return e if text == e.text else replace(e, text=text)
