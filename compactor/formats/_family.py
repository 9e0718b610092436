"""Which format a single record belongs to, so a file is read in one format or not at all.

Detection looks only at the first records, and every reader keeps records it does not know as
pass-through records. Without a per-record check, an openai file with one Claude Code record is
read as ``claude-code`` whose chat lines are all "unknown records": 0 messages, exit 0. So every
reader calls :func:`check_records` on all its lines first: the first record that does not fit
the format (detected or forced) is a :class:`TranscriptError` at its line.

Families come from the formats' declarations (``SPEC.family``): a format with typed records
(``SPEC.typed``: Claude Code, Codex) says which records are its own and checks them; a ``chat``
record (openai, eino, anthropic) has a string ``role``, one of the format's ``SPEC.roles``.

Trust (issue 15, rule 7): a file is read as a format only when every record belongs to it, so
nothing is ever silently summarized away or dropped:

* chat formats: a ``role`` outside the format's own set (its ``spec.roles``) is an error naming
  file:line:field; a record of no family (``{}``, a missing role) is left to the reader, which
  reports the field that is wrong.
* claude-code and codex: record types the reader knows (messages, and metadata that passes
  through untouched) are accepted; another ``type`` is read by its shape: Claude Code's without
  a ``message`` and Codex's with a ``payload`` object and no message key (and, in codex, a
  ``response_item`` of another payload type) are kept verbatim with one warning per type
  (RELIABILITY rows 301, 2591); any other is an error. FORMATS.md asked readers to keep unknown
  types; the issue overrode it (an unknown record may be something the model saw), and blind
  check 56 F1 narrowed that for Codex (RELIABILITY, Decisions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError

from ._jsonl import Line
from .base import FormatSpec

__all__ = [
    "check_records",
    "family",
    "fits",
    "is_untyped_metadata",
    "mismatch",
    "problem",
    "unknown_record",
    "untyped_metadata",
]

_SPECS: dict[str, FormatSpec] = {}
_TYPED: list[tuple[str, Callable[[JsonObject, str], bool]]] = []


def _spec(format_name: str) -> FormatSpec | None:
    """The declaration of ``format_name`` (None: no such format); the registry imports the
    format modules, which import this one: it is looked up once, on first use."""
    if not _SPECS:
        from .registry import FORMATS

        _SPECS.update((name, fmt.spec) for name, fmt in FORMATS.items())
        _TYPED[:] = [(s.family, s.typed.owns) for s in _SPECS.values() if s.typed is not None]
    return _SPECS.get(format_name)


def family(rec: JsonObject) -> str | None:
    """The family of a typed format that owns ``rec`` (``claude-code``, ``codex``: its
    ``spec.typed.owns``, in detection order), ``chat`` or None (a record no format claims)."""
    kind = rec.get("type")
    if isinstance(kind, str):
        if not _TYPED:
            _spec("")
        for name, owns in _TYPED:
            if owns(rec, kind):
                return name
    if isinstance(rec.get("role"), str):
        return "chat"
    return None


_CONVERSATION_KEYS = ("message", "role", "content", "payload", "tool_calls", "tool_call_id")
"""Keys that make a record without ``type`` a message of some shape (refused), not metadata."""
UNTYPED = "(no type)"
"""How a warning names records that have no ``type`` at all (an extractor's own header)."""


def is_untyped_metadata(rec: JsonObject) -> bool:
    """A record with no ``type`` at all and no key of a message of any format
    (``{"_type": "hive-mind-meta", ...}``, a tool's header line): metadata that a typed format
    (Claude Code, Codex) keeps verbatim in place, as it keeps its own unknown metadata."""
    return bool(rec) and "type" not in rec and not any(k in rec for k in _CONVERSATION_KEYS)


def untyped_metadata(lines: Iterable[Line]) -> list[tuple[str, int, int]]:
    """``[(UNTYPED, first line, count)]`` when ``lines`` hold untyped metadata, else ``[]``."""
    numbers = [ln.number for ln in lines if is_untyped_metadata(ln.obj)]
    return [(UNTYPED, numbers[0], len(numbers))] if numbers else []


def unknown_record(what: str, value: JsonValue) -> str:
    """The message for a record (or item) type a reader does not know."""
    return f"unknown {what} {value!r}: compact reads no record it does not know"


def problem(format_name: str, rec: JsonObject) -> tuple[str | None, str] | None:
    """Why ``rec`` cannot be a record of a ``format_name`` file: ``(field, message)``, or None
    when it may be one (always None for formats not listed here)."""
    fam = family(rec)
    kind = rec.get("type")
    kind = kind if isinstance(kind, str) else None  # a list or dict type is not hashable
    spec = _spec(format_name)
    if spec is None:
        return None
    if spec.typed is not None:
        owned = fam == spec.family
        if owned or fam is None:
            found = spec.typed.problem(rec, kind, owned)
            if found is None or kind is not None:
                return found  # a record with no type may be the format's metadata
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
    described = "a chat message" if fam == "chat" else f"a {fam} record"
    return None, f"{described}, not {format_name}"


def fits(format_name: str, rec: JsonObject) -> bool:
    """Whether ``rec`` may be a record of a ``format_name`` file (True for formats not ours)."""
    return problem(format_name, rec) is None


def check_records(path: str, format_name: str, lines: Iterable[Line]) -> None:
    """Raise at the first line whose record does not fit ``format_name``."""
    for ln in lines:
        if not fits(format_name, ln.obj):
            raise mismatch(path, ln.number, format_name, ln.obj)


def mismatch(path: str, line: int, format_name: str, rec: JsonObject) -> TranscriptError:
    """The error for a record that does not fit a ``format_name`` file."""
    found = problem(format_name, rec)
    field, message = found if found is not None else (None, f"not a {format_name} record")
    hint = "a file holds one format: split it, or pick the right one with --format"
    if field == "type" and message.startswith("must be"):
        return TranscriptError(path, line, field, f"{message}; {hint}")
    if field is None:
        return TranscriptError(path, line, None, f"{message}; {hint}")
    return TranscriptError(path, line, field, message)
