"""Legacy Codex rollouts: the files Codex wrote before ``session_meta`` (until about August 2025),
still in users' ``~/.codex/sessions``.

Shape: a first line ``{"id", "timestamp", "instructions", "git"}`` (the session's metadata), then
bare Responses API items (``message``, ``function_call``, ``function_call_output``,
``reasoning``, ...: the ``payload`` of a modern ``response_item``, without the wrapper) and
``{"record_type": "state"}`` lines. There is no ``compacted`` record, no ``event_msg`` and no
token count.

The Codex reader (:mod:`compactor.formats.codex`) reads such a file as a rollout whose every
bare item is a response item; its writer writes the compacted history back in this shape
(:func:`render`): the metadata line, then the history as bare items, with no compaction marker
(none exists in this shape: a summary is the user message that starts with our preamble, as in
the chat formats). ``--append`` is refused (:data:`APPEND_REFUSED`): the Codex client of today
parses every line as a ``{timestamp, type, payload}`` record and takes the thread id from
``session_meta`` (``RolloutRecorder::load_rollout_items`` / ``get_rollout_history`` in
``codex-rs/core/src/rollout/recorder.rs``), so it cannot resume a legacy file, appended or not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from compactor._json import JsonObject
from compactor.errors import TranscriptError
from compactor.schema import AgenticMessage, Message, content_type

from . import _jsonl
from ._family import unknown_record
from .base import Transcript, WriteMode

__all__ = [
    "APPEND_REFUSED",
    "META_KEYS",
    "check",
    "is_bare_item",
    "is_legacy",
    "is_legacy_file",
    "is_legacy_meta",
    "is_state",
    "write",
]

META_KEYS = frozenset({"id", "timestamp", "instructions", "git"})
"""The keys of a legacy rollout's first line."""

APPEND_REFUSED = (
    "--append cannot continue a legacy Codex rollout (no session_meta line; written before "
    "about August 2025): today's Codex client takes the session id from session_meta and "
    "skips lines without a type/payload wrapper, so it would not resume it; write a new file "
    "instead (-o FILE, without --append)"
)


def is_legacy_meta(rec: JsonObject) -> bool:
    """The first line of a legacy rollout: an ``id`` and a ``timestamp``, no ``type``, and no
    key but :data:`META_KEYS`."""
    return "id" in rec and "timestamp" in rec and rec.keys() <= META_KEYS


def is_state(rec: JsonObject) -> bool:
    """A ``{"record_type": "state"}`` line (Codex's resume state of the time)."""
    return "type" not in rec and rec.get("record_type") == "state"


def is_bare_item(rec: JsonObject, known: Iterable[str]) -> bool:
    """A Responses API item written without the ``response_item`` wrapper."""
    kind = rec.get("type")
    return isinstance(kind, str) and kind in known and "payload" not in rec


def is_legacy(records: Sequence[JsonObject], known: frozenset[str]) -> bool:
    """Whether ``records`` (a file's first ones, or all) are a legacy rollout: its metadata line
    first, and the first record after it that is not a state line a bare response item."""
    if not records or not is_legacy_meta(records[0]):
        return False
    first = next((r for r in records[1:] if not is_state(r)), None)
    return first is not None and is_bare_item(first, known)


def is_legacy_file(lines: Sequence[_jsonl.Line], known: frozenset[str]) -> bool:
    """:func:`is_legacy` on a parsed file, reading no more lines than it needs."""
    if not lines or not is_legacy_meta(lines[0].obj):
        return False
    for ln in lines[1:]:
        if not is_state(ln.obj):
            return is_bare_item(ln.obj, known)
    return False


def check(path: str, lines: Sequence[_jsonl.Line], known: frozenset[str]) -> None:
    """Raise at the first line of a legacy rollout that is not its metadata (first line), a
    state line or a bare response item of a type the reader knows."""
    for ln in lines[1:]:
        rec = ln.obj
        if is_state(rec) or is_bare_item(rec, known):
            continue
        kind = rec.get("type")
        if isinstance(kind, str) and "payload" not in rec:
            raise TranscriptError(path, ln.number, "type", unknown_record("codex item", kind))
        raise TranscriptError(
            path,
            ln.number,
            None,
            "not a record of a legacy Codex rollout (bare response items and "
            '{"record_type": "state"} lines after the metadata line); a file holds one format',
        )


def write(
    transcript: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    matches: Sequence[int | None],
    mode: WriteMode,
    render: Callable[[Message | AgenticMessage], list[JsonObject]],
    reinjected: Callable[[Message | AgenticMessage, bool], bool],
) -> bytes:
    """A legacy rollout written back in its own shape: its metadata line, then the new history
    as bare items (an unchanged message as its own lines, byte for byte; another as ``render``
    makes its items). With a summary, the messages before it that ``reinjected`` names are left
    out, as from a modern ``replacement_history``; without one (a reduction) every message is
    kept, the ``<environment_context>`` too: no client writes a new one into such a file. The
    file has no compaction marker: the summary is the user message that starts with our
    preamble. No client resumes one appended to: ``--append`` is refused before the run
    (:data:`APPEND_REFUSED`), and here again."""
    if mode == "append":
        raise TranscriptError(transcript.path, None, None, APPEND_REFUSED)
    lines = transcript.meta.lines
    origin = transcript.meta.origin
    summary = [
        i for i, m in enumerate(new_messages) if matches[i] is None and content_type(m) == "summary"
    ]
    cut = summary[-1] + 1 if summary else len(new_messages)
    items: list[bytes] = []
    for index, msg in enumerate(new_messages):
        j = matches[index]
        if summary and index < cut and reinjected(msg, j is not None):
            continue
        if j is not None and origin[j]:
            items.extend(lines[i].text for i in origin[j])
        else:
            items.extend(_jsonl.dump(item) for item in render(msg))
    head = [lines[0].text] if lines else []
    return _jsonl.file_of(transcript, [*head, *items])
