"""Text that did not come from ``compact`` itself, made safe before it reaches a terminal.

A server's error body, a tool name in a transcript, a file name or a config value may carry
terminal escapes: OSC 52 writes the clipboard, OSC 0 sets the window title, OSC 8 makes a link
that says one thing and opens another, ``ESC [2J`` clears the screen, a C1 ``CSI`` (U+009B) does
the same in one character, and bidirectional overrides reorder what a line seems to say.
:func:`visible` shows every such character as its Python escape (``\\x1b``, ``\\u202e``), so the
text is still readable and nothing is executed. Everything the CLI prints that holds outside
text goes through it: the live view, the final line, error lines, ``check`` lines and
``check --explain``.
"""

from __future__ import annotations

import functools
import re

__all__ = ["visible", "visible_json"]

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode format characters that
# reorder or hide text (bidi embeddings, overrides and isolates, zero-width marks).
_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
# In JSON text, C0 controls are already escaped by json.dumps; the rest may appear raw.
_UNSAFE_JSON = "[\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]"


@functools.cache
def _pattern(chars: str) -> re.Pattern[str]:
    return re.compile(chars)  # compiled on first use: `compact check` start-up does not pay


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control or reordering character shown as its escape (``\\x1b``).

    Tabs and newlines are kept (a multi-line block stays one); a carriage return, which can
    hide what came before it on the line, is shown.
    """
    if text.isprintable():  # no control or format character at all: the common case, in C
        return text
    return _pattern(_UNSAFE).sub(_escape, text)


def visible_json(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with the characters a terminal
    would act on written as ``\\uXXXX`` escapes: still valid JSON, the same data."""
    return _pattern(_UNSAFE_JSON).sub(lambda m: f"\\u{ord(m.group()):04x}", text)
