"""Which format a single record belongs to, so a file is read in one format or not at all.

Detection looks only at the first records, and every reader keeps records it does not know as
pass-through records. Without a per-record check, an openai file with one Claude Code record is
read as ``claude-code`` whose chat lines are all "unknown records": 0 messages, exit 0. So every
reader calls :func:`check_records` on all its lines first: the first record that does not fit
the format (detected or forced) is a :class:`TranscriptError` at its line.

Families: a ``claude-code`` record has a Claude Code ``type`` and one of its session fields; a
``codex`` record has a rollout ``type`` and a ``payload`` object; a ``chat`` record (openai,
eino, anthropic) has a string ``role``.

Trust (issue 15, rule 7): a file is read as a format only when every record belongs to it, so
nothing is ever silently summarized away or dropped:

* chat formats: a ``role`` outside the format's own set (its ``spec.roles``) is an error naming
  file:line:field; a record of no family (``{}``, a missing role) is left to the reader, which
  reports the field that is wrong.
* claude-code and codex: record types the reader knows (messages, and metadata that passes
  through untouched) are accepted; any other ``type`` (and, in codex, any other
  ``response_item`` payload type) is an error. FORMATS.md asked readers to keep unknown types;
  the issue overrides it: an unknown record may be something the model saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from compactor.errors import TranscriptError

from ._jsonl import Line
from .base import FormatSpec

__all__ = [
    "CLAUDE_RECORD_TYPES",
    "CLAUDE_SESSION_FIELDS",
    "CODEX_RECORD_TYPES",
    "CODEX_RESPONSE_ITEMS",
    "check_records",
    "family",
    "fits",
    "mismatch",
    "problem",
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
        "tag",
    }
)
"""Claude Code record ``type`` values the reader knows (FORMATS.md §1.1): ``user`` and
``assistant`` are messages, the others metadata."""

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
    {
        "session_meta",
        "turn_context",
        "response_item",
        "event_msg",
        "compacted",
        "token_usage_record",
        "world_state",
    }
)
"""Codex rollout record ``type`` values (FORMATS.md §2; ``token_usage_record`` and
``world_state`` are written by Codex 0.171)."""

CODEX_RESPONSE_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "web_search_call",
        "ghost_snapshot",
    }
)
"""``response_item`` payload types the reader knows: the first five are messages, ``reasoning``
(opaque) and ``web_search_call`` travel with the next message, ``ghost_snapshot`` is metadata."""

_DESCRIPTIONS = {
    "claude-code": "a claude-code record",
    "codex": "a codex record",
    "chat": "a chat message",
}


_SPECS: dict[str, FormatSpec] = {}


def _spec(format_name: str) -> FormatSpec | None:
    """The declaration of ``format_name`` (None: no such format); the registry imports the
    format modules, which import this one: it is looked up once, on first use."""
    if not _SPECS:
        from .registry import FORMATS

        _SPECS.update((name, fmt.spec) for name, fmt in FORMATS.items())
    return _SPECS.get(format_name)


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


def _unknown(what: str, value: Any) -> str:
    return f"unknown {what} {value!r}: compact reads no record it does not know"


def problem(format_name: str, rec: dict[str, Any]) -> tuple[str | None, str] | None:
    """Why ``rec`` cannot be a record of a ``format_name`` file: ``(field, message)``, or None
    when it may be one (always None for formats not listed here)."""
    fam = family(rec)
    kind = rec.get("type")
    kind = kind if isinstance(kind, str) else None  # a list or dict type is not hashable
    spec = _spec(format_name)
    if spec is None:
        return None
    if spec.family == "claude-code":
        if fam == "claude-code" or (fam is None and kind in CLAUDE_RECORD_TYPES):
            return None
        if fam is None and kind is not None:
            return "type", _unknown("claude-code record type", kind)
    elif spec.family == "codex":
        if fam == "codex":
            item = rec["payload"].get("type")
            known = isinstance(item, str) and item in CODEX_RESPONSE_ITEMS
            if kind == "response_item" and not known:
                return "payload.type", _unknown("codex response item", item)
            return None
        if fam is None and kind in CODEX_RECORD_TYPES:
            return None  # the reader reports the payload that is not an object
        if fam is None and kind is not None:
            return "type", _unknown("codex record type", kind)
    elif spec.family == "chat":
        if fam is None:
            return None  # the reader reports the field that is wrong
        if fam == "chat":
            roles = spec.roles
            if rec["role"] in roles:
                return None
            return (
                "role",
                f"unknown {format_name} role {rec['role']!r} (its roles: {', '.join(roles)})",
            )
    else:
        return None
    if fam is None:
        return "type", f"must be a string in a {format_name} transcript"
    return None, f"{_DESCRIPTIONS[fam]}, not {format_name}"


def fits(format_name: str, rec: dict[str, Any]) -> bool:
    """Whether ``rec`` may be a record of a ``format_name`` file (True for formats not ours)."""
    return problem(format_name, rec) is None


def check_records(path: str, format_name: str, lines: Iterable[Line]) -> None:
    """Raise at the first line whose record does not fit ``format_name``."""
    for ln in lines:
        if not fits(format_name, ln.obj):
            raise mismatch(path, ln.number, format_name, ln.obj)


def mismatch(path: str, line: int, format_name: str, rec: dict[str, Any]) -> TranscriptError:
    """The error for a record that does not fit a ``format_name`` file."""
    found = problem(format_name, rec)
    field, message = found if found is not None else (None, f"not a {format_name} record")
    hint = "a file holds one format: split it, or pick the right one with --format"
    if field == "type" and message.startswith("must be"):
        return TranscriptError(path, line, field, f"{message}; {hint}")
    if field is None:
        return TranscriptError(path, line, None, f"{message}; {hint}")
    return TranscriptError(path, line, field, message)
