"""IDE markup an editor extension injects into a user message (issue 28 point 6, blind check 10).

Claude Code's VS Code / JetBrains extensions put ``<ide_opened_file>The user opened the file X in
the IDE. …</ide_opened_file>``, ``<ide_selection>The user selected the lines … from X: …
</ide_selection>`` and ``<ide_diagnostics>…</ide_diagnostics>`` blocks before what the user typed.
They are context, not the request: :func:`without_ide_markup` takes them out and says, once,
which file was open (``(with X open in the IDE)``); a message of markup alone becomes empty.

Codex Desktop puts ``# Context from my IDE setup:`` (``## Active file:``, ``## Open tabs:``) before
every message and the user's words after ``## My request for Codex:`` (blind check 30, W2: nine
different messages behind one such block were one message "sent 9 times, edited").
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

IDE_MARK = "<ide_"
"""Every IDE block starts so (a ``str.find`` pre-check before any regex)."""

CODEX_IDE_HEAD = "# Context from my IDE setup:"
"""Codex Desktop's IDE context starts so."""
_CODEX_ASK_RE = lazy_pattern(r"^#{1,3} My request for Codex:[ \t]*\n?", re.M)
_CODEX_ACTIVE_RE = lazy_pattern(r"^#{1,3} Active file:[ \t]*(\S[^\n]*)", re.M)
_BLOCK_RE = lazy_pattern(r"<(ide_[a-z_]+)>.*?(?:</\1>|\Z)", re.S)
_OPENED_RE = lazy_pattern(r"opened the file (.+?) in the IDE")
_NOTE_RE = lazy_pattern(r" \(with (.+?) open in the IDE\)")
_FILE_RE = lazy_pattern(r"[^\\/\s]\.[A-Za-z0-9]{1,8}$")
"""An opened file worth naming ends in an extension (not the extension's own
``\\temp\\readonly\\command (0qjan6)`` output views)."""


def has_ide_markup(text: str) -> bool:
    """``text`` may hold IDE context (:func:`without_ide_markup` would change it)."""
    return IDE_MARK in text or CODEX_IDE_HEAD in text


def _without_codex_context(text: str) -> str:
    """What the user typed after Codex Desktop's IDE context, with the active file noted;
    ``text`` itself when it has no ``My request for Codex:`` heading."""
    ask = _CODEX_ASK_RE.search(text)
    if ask is None or not text.lstrip().startswith(CODEX_IDE_HEAD):
        return text
    typed = text[ask.end() :].strip()
    active = _CODEX_ACTIVE_RE.search(text, 0, ask.start())
    if not typed or active is None or not _FILE_RE.search(path := active.group(1).strip()):
        return typed
    return f"{typed} (with {path} open in the IDE)"


def without_ide_markup(text: str) -> str:
    """``text`` without its IDE blocks; what the user typed, then ``(with X open in the IDE)``
    when a real file was open; '' when the message held nothing but markup."""
    if CODEX_IDE_HEAD in text:
        text = _without_codex_context(text)
    if IDE_MARK not in text:
        return text
    opened = [m.group(1).strip() for m in _OPENED_RE.finditer(text)]
    typed = _BLOCK_RE.sub("", text).strip()
    if not typed:
        return ""
    files = [p for p in dict.fromkeys(opened) if _FILE_RE.search(p)]
    return f"{typed} (with {files[0]} open in the IDE)" if files else typed


def ide_note_files(text: str) -> list[str]:
    """The files :func:`without_ide_markup` noted as open in the IDE in ``text``."""
    if "open in the IDE)" not in text:
        return []
    return _NOTE_RE.findall(text)


def without_ide_note(text: str) -> str:
    """``text`` without the ``(with X open in the IDE)`` note (the user did not name X)."""
    if "open in the IDE)" not in text:
        return text
    return _NOTE_RE.sub("", text)
