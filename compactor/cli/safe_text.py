"""Text that did not come from ``compact`` itself, made safe before it reaches a terminal.

A server's error body, a tool name in a transcript, a file name or a config value may carry
terminal escapes: OSC 52 writes the clipboard, OSC 0 sets the window title, OSC 8 makes a link
that says one thing and opens another, ``ESC [2J`` clears the screen, a C1 ``CSI`` (U+009B) does
the same in one character, and bidirectional overrides reorder what a line seems to say.
:func:`visible` shows every such character as its Python escape (``\\x1b``, ``\\u202e``), so the
text is still readable and nothing is executed. A file name's bytes that are not UTF-8 (decoded
by ``os.fsdecode`` as lone surrogates, U+DC80-U+DCFF) are shown as the bytes they are
(``bad\\xff.jsonl``). :func:`visible_line` also shows a newline as ``\\n``: a line that names a
file (a batch line, an error line) stays one line, and a name cannot forge the next one.
Everything the CLI prints that holds outside text goes through them: the live view, the final
line, error lines, batch lines, ``check`` lines and ``check --explain``.
"""

from __future__ import annotations

import functools
import re

__all__ = ["visible", "visible_json", "visible_line"]

# C0 controls except tab and newline, DEL, C1 controls, the Unicode format characters that
# reorder or hide text (bidi embeddings, overrides and isolates, zero-width marks), and lone
# surrogates (a file name's undecodable bytes; no terminal encoding can write them).
_UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
_UNSAFE_LINE = _UNSAFE[:-1] + "\n]"
# In JSON text, C0 controls are already escaped by json.dumps; the rest may appear raw.
_UNSAFE_JSON = "[\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"


@functools.cache
def _pattern(chars: str) -> re.Pattern[str]:
    return re.compile(chars)  # compiled on first use: `compact check` start-up does not pay


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x0A:
        return "\\n"
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control or reordering character shown as its escape (``\\x1b``).

    Tabs and newlines are kept (a multi-line block stays one), a CRLF line end as a newline; a
    lone carriage return, which can hide what came before it on the line, is shown.
    """
    if text.isprintable():  # no control or format character at all: the common case, in C
        return text
    if "\r\n" in text:  # a Windows line end hides nothing: it is shown as the newline it is
        text = text.replace("\r\n", "\n")
    return _pattern(_UNSAFE).sub(_escape, text)


def visible_line(text: str) -> str:
    """:func:`visible`, and a newline shown as ``\\n``: for a line that names a file or holds
    outside text (an error line, a batch line), which must stay one line."""
    if text.isprintable():
        return text
    return _pattern(_UNSAFE_LINE).sub(_escape, text)


def visible_json(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with the characters a terminal
    would act on written as ``\\uXXXX`` escapes: still valid JSON, the same data."""
    return _pattern(_UNSAFE_JSON).sub(lambda m: f"\\u{ord(m.group()):04x}", text)
