"""What an unquoted here-document wrote (issue 28, blind check 17, duck-boot).

``cat > F << EOF`` (the delimiter not quoted) lets the shell expand ``$(…)``, ``${…}``, ``$VAR``
and backticks in the body, and drop the backslash of ``\\$``, ``\\``` and ``\\\\``; with
``<< 'EOF'`` the body is the file's text as written. duck-boot wrote its status file twice: first
quoted (the literal ``"$(date -Iseconds)"`` its ``cat`` then printed), then unquoted to fix that
(its ``cat`` printed ``"2026-01-24T20:12:58+00:00"``), and the summary showed the fix's body,
``$(date -Iseconds)``, as the file's content: the bug just fixed, as the file's state.

* :func:`heredoc_text`: the body as the shell writes it when it expands nothing (its escapes
  removed), and whether it expands something;
* :func:`as_printed`: when the call printed the file back (``cat F`` after it), the printed
  text that the body's literal parts match is the content, the values included;
* else the body is shown marked as expanded by the shell (:func:`.local_files.file_item`).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["EXPANDED_NOTE", "as_printed", "heredoc_text"]

EXPANDED_NOTE = (
    "as the unquoted here-document's text (the shell replaced its $(…), ${…}, $VAR and `…` "
    "with their values when it wrote the file)"
)
"""What the title of an unquoted here-document's content says it is."""
_EXPANSION_RE = lazy_pattern(
    r"(?<!\\)(?:\$\((?:[^()\n]|\([^()\n]*\))*\)|\$\{[^}\n]*\}|\$[A-Za-z_]\w*|\$[0-9@*#?!$-]"
    r"|`[^`\n]*`)"
)
"""One expansion the shell makes in an unquoted here-document (not one escaped by ``\\``)."""
_ESCAPE_RE = lazy_pattern(r"\\([$`\\\n])")
_MIN_LITERAL = 8
"""Fewest characters of literal text a body needs for its printed copy to be recognised."""


def _unescaped(text: str) -> str:
    return _ESCAPE_RE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def heredoc_text(body: str) -> tuple[str, bool]:
    """(the text an unquoted here-document with ``body`` writes, whether the shell expands
    something in it): when it expands nothing, the body with its escapes removed; else the body
    as written (the values are not known)."""
    if "$" not in body and "`" not in body and "\\" not in body:
        return body, False
    if _EXPANSION_RE.search(body) is not None:
        return body, True
    return _unescaped(body), False


def as_printed(body: str, printed: str) -> str | None:
    """The file an unquoted here-document with ``body`` (it expands something) wrote, as the
    same call printed it last (``cat F`` after it): the end of ``printed`` that the body's
    literal parts match, each expansion one line's value; None when it does not end so."""
    pieces = [_unescaped(p) for p in _EXPANSION_RE.split(body)]
    if sum(len(p.strip()) for p in pieces) < _MIN_LITERAL:
        return None
    pattern = "[^\n]*?".join(map(re.escape, pieces))
    found = re.search(f"({pattern})\\s*\\Z", printed)
    return None if found is None else found.group(1)
