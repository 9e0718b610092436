"""Which format a single record belongs to, so a file is read in one format or not at all.

Detection looks only at the first records, and every reader keeps records it does not know as
pass-through records. Without a per-record check, an openai file with one Claude Code record is
read as ``claude-code`` whose chat lines are all "unknown records": 0 messages, exit 0. So every
reader calls :func:`check_records` on all its lines first: the first record that does not fit
the format (detected or forced) is a :class:`TranscriptError` at its line.

Families: a ``claude-code`` record has a Claude Code ``type`` and one of its session fields; a
``codex`` record has a rollout ``type`` and a ``payload`` object; a ``chat`` record (openai,
eino, anthropic) has a string ``role``. Claude Code and Codex records of a ``type`` we do not
know yet are allowed in their own files (unknown data survives); a chat file accepts records of
no family (``{}``, a missing role), so that its reader reports the field that is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactor.errors import TranscriptError

from ._jsonl import Line

__all__ = [
    "CLAUDE_RECORD_TYPES",
    "CLAUDE_SESSION_FIELDS",
    "CODEX_RECORD_TYPES",
    "check_records",
    "family",
    "fits",
    "mismatch",
]

CLAUDE_RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "progress",
        "file-history-snapshot",
        "permission-mode",
        "mode",
        "last-prompt",
        "ai-title",
        "custom-title",
        "queue-operation",
        "summary",
    }
)
"""Claude Code record ``type`` values (FORMATS.md §1.1)."""

CLAUDE_SESSION_FIELDS = (
    "uuid",
    "sessionId",
    "parentUuid",
    "message",
    "snapshot",
    "permissionMode",
)
"""Fields of which a Claude Code record of a known ``type`` carries at least one."""

CODEX_RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
)
"""Codex rollout record ``type`` values (FORMATS.md §2)."""

_CHAT_FORMATS = frozenset({"openai", "eino", "anthropic"})
_TYPED_FORMATS = frozenset({"claude-code", "codex"})
_DESCRIPTIONS = {
    "claude-code": "a claude-code record",
    "codex": "a codex record",
    "chat": "a chat message",
}


def family(rec: dict[str, Any]) -> str | None:
    """``claude-code``, ``codex``, ``chat`` or None (a record no format claims)."""
    kind = rec.get("type")
    if isinstance(kind, str):
        if kind in CLAUDE_RECORD_TYPES and any(k in rec for k in CLAUDE_SESSION_FIELDS):
            return "claude-code"
        if kind in CODEX_RECORD_TYPES and isinstance(rec.get("payload"), dict):
            return "codex"
    if isinstance(rec.get("role"), str):
        return "chat"
    return None


def fits(format_name: str, rec: dict[str, Any]) -> bool:
    """Whether ``rec`` may be a record of a ``format_name`` file (True for formats not ours)."""
    fam = family(rec)
    if format_name in _TYPED_FORMATS:
        return fam == format_name or (fam is None and isinstance(rec.get("type"), str))
    if format_name in _CHAT_FORMATS:
        return fam in ("chat", None)
    return True


def check_records(path: str, format_name: str, lines: Iterable[Line]) -> None:
    """Raise at the first line whose record does not fit ``format_name``."""
    for ln in lines:
        if not fits(format_name, ln.obj):
            raise mismatch(path, ln.number, format_name, ln.obj)


def mismatch(path: str, line: int, format_name: str, rec: dict[str, Any]) -> TranscriptError:
    """The error for a record of another format (or of none) in a ``format_name`` file."""
    fam = family(rec)
    hint = "a file holds one format: split it, or pick the right one with --format"
    if fam is None:
        return TranscriptError(
            path, line, "type", f"must be a string in a {format_name} transcript; {hint}"
        )
    return TranscriptError(path, line, None, f"{_DESCRIPTIONS[fam]}, not {format_name}; {hint}")
