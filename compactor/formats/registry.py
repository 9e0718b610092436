"""Format registry: detection, reading and writing (SPEC §9.6).

``FORMATS`` is in detection order: the specific formats first, plain chat messages (``openai``)
last. ``--format`` overrides detection. Whichever way the format was chosen, every record of the
file must fit it (``_family.check_records``): a mixed file is an error at its first odd line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import ConfigError, TranscriptError
from compactor.schema import AgenticMessage, Message

from . import (
    _jsonl,
    anthropic,
    claude_code,
    codex,
    copilot,
    cursor,
    eino,
    json_document,
    openai_chat,
    opencode_hooks,
)
from ._copilot_events import RESULT as COPILOT_RESULT
from ._family import fits
from .base import CompactionInfo, Format, FormatSpec, Transcript, WriteMode

if TYPE_CHECKING:
    from compactor.events import UnknownRecords
    from compactor.io import FileSource

__all__ = [
    "FORMATS",
    "KNOWN_FORMATS",
    "append_refusal",
    "detect_format",
    "read_transcript",
    "render_manifest",
    "write_transcript",
]

_DECLARED: tuple[Format, ...] = (
    anthropic.FORMAT,
    claude_code.FORMAT,
    codex.FORMAT,
    copilot.FORMAT,
    cursor.FORMAT,
    eino.FORMAT,
    openai_chat.FORMAT,
    opencode_hooks.FORMAT,
)
"""Each format module's ``FORMAT``; everything below is generated from their ``spec``."""

FORMATS: dict[str, Format] = {
    f.name: f for f in sorted(_DECLARED, key=lambda f: (f.spec.detect_order, f.name))
}
"""Name → format, in detection order."""


def _listed() -> list[FormatSpec]:
    return sorted((f.spec for f in _DECLARED), key=lambda s: (s.list_order, s.name))


def _and(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


KNOWN_FORMATS = _and([s.name for s in _listed()])
"""``openai, eino, ... and anthropic``: the formats compact reads, for error messages."""

SNIFF_RECORDS = 50
"""How many leading records detection looks at."""


_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")
"""A byte ``bytes.strip()`` keeps: found at once in a large file, with no copy of the rest."""

SNIFF_LIMIT = SNIFF_RECORDS * 8**4
"""How many leading lines detection reads at most when no format claims the first ones: a
Claude Code session may open with many records of a type no reader knows (``compact`` keeps
them at the head of what it writes, as metadata), with its first conversation record after."""


def _head(
    path: str, raw: bytes | FileSource, n: int = SNIFF_RECORDS
) -> tuple[Sequence[_jsonl.Line], bool]:
    """The records of the first ``n`` lines, and whether the file has more lines."""
    # Parse only the first lines: detection must not pay for a whole large file.
    if not isinstance(raw, bytes):
        raw = _source_head(raw, n)
    head = raw
    cut = 0
    more = False
    for _ in range(n):
        nxt = raw.find(b"\n", cut)
        if nxt < 0:
            cut = len(raw)
            break
        cut = nxt + 1
    else:
        head = raw[:cut]
        more = _NOT_SPACE.search(raw, cut) is not None  # not raw[cut:].strip(): 50 ms on 50 MB
    lines = _jsonl.parse_lines(path, head)
    if not lines:
        raise TranscriptError(path, None, None, "empty transcript")
    return lines, more


def _source_head(source: FileSource, n: int) -> bytes:
    """The start of the file: its first ``n`` lines at least, or all of it.
    A line past the source's ``max_line_bytes`` is refused once just past it has been read."""
    from compactor.sizes import LineGuard

    size = 1 << 16
    cap = source.limits.max_line_bytes
    while True:
        head = source.read_at(0, size)
        LineGuard(source.name, source.limits).feed(head)
        if len(head) < size or head.count(b"\n") > n:
            return head
        size = size * 4 if size > cap else min(size * 4, cap + 2)


_MANAGED_AGENT_ROLES = frozenset({"agent", "user", "system"})


def _managed_agents_log(records: list[JsonObject]) -> bool:
    """An Anthropic Managed-Agents event log (FORMATS.md §4): ``{role, kind, raw}`` records
    whose ``raw`` is the API event. Its ``role`` keys make it look like chat messages."""
    return bool(records) and all(
        isinstance(r.get("role"), str)
        and r["role"] in _MANAGED_AGENT_ROLES
        and isinstance(r.get("kind"), str)
        and isinstance(r.get("raw"), dict)
        for r in records
    )


def detect_format(path: str, raw: bytes | FileSource) -> str:
    """The name of the format ``raw`` is in, judged from its first records (read on, up to
    :data:`SNIFF_LIMIT` lines, while no format claims any of them).

    Of the formats whose sniffer accepts the records, the first that every record fits wins. When
    the records disagree (an openai file with one Claude Code record), the format most of them
    fit is returned, and reading it reports the first record that does not fit. A file no
    format claims (or a known format compact does not read) is refused, naming the formats
    compact reads.
    """
    lines, more = _head(path, raw)
    records = [ln.obj for ln in lines]
    if _managed_agents_log(records):
        raise TranscriptError(
            path,
            None,
            None,
            "an Anthropic Managed-Agents event log ({role, kind, raw} records), a format "
            f"compact does not read; it reads {KNOWN_FORMATS} transcripts",
        )
    if codex.is_legacy_rollout(records):
        return codex.FORMAT.name  # its bare items would look like chat messages to the vote
    candidates = [name for name, fmt in FORMATS.items() if fmt.sniff(records)]
    n = SNIFF_RECORDS
    while not candidates and more and n < SNIFF_LIMIT:
        # Records no format claims (unknown Claude Code metadata) may head the file: look on.
        n *= 8
        lines, more = _head(path, raw, n)
        records = [ln.obj for ln in lines]
        candidates = [name for name, fmt in FORMATS.items() if fmt.sniff(records)]
    if not candidates:
        raise TranscriptError(
            path,
            None,
            None,
            f"not a transcript format compact knows; it reads {KNOWN_FORMATS} "
            "(use --format to force one)",
        )
    # max() keeps the first of equals: detection order breaks ties.
    return max(candidates, key=lambda name: sum(fits(name, r) for r in records))


def get_format(name: str) -> Format:
    """The format called ``name``; an unknown name is a ConfigError listing the known ones."""
    try:
        return FORMATS[name]
    except KeyError:
        known = ", ".join(FORMATS)
        hint = _closest_format(name)
        raise ConfigError(
            f"unknown transcript format {name!r}; known formats: {known}"
            + (f"; did you mean {hint!r}?" if hint else "")
        ) from None


def _closest_format(name: str) -> str | None:
    """``claude`` → ``claude-code``, ``opnai`` → ``openai`` (a prefix, else the closest)."""
    import difflib

    typed = name.strip().lower()
    prefixed = [f for f in FORMATS if typed and f.startswith(typed)]
    if len(prefixed) == 1:
        return prefixed[0]
    close = difflib.get_close_matches(typed, list(FORMATS), n=1, cutoff=0.6)
    return close[0] if close else None


def read_transcript(
    path: str, raw: bytes | FileSource, format: str | None = None, *, snapshot: bool = True
) -> Transcript:
    """Read ``raw`` in ``format`` (detected when None). ``raw`` may be a
    :class:`~compactor.io.FileSource`: the file is then parsed as it is read, block by block.

    ``snapshot``: keep a deep copy of the messages as read (``meta.snapshot``), so that
    :func:`write_transcript` still tells which messages are unchanged after a caller edited some
    in place. A caller that never edits them (the run: the pipeline only reads the history) passes
    False and the transcript is held once.
    """
    if json_document.is_array(raw):
        document = json_document.to_lines(path, raw)
        if document is not None:
            return _read_array(path, document, format, snapshot)
    try:
        fmt = get_format(format) if format is not None else FORMATS[detect_format(path, raw)]
        if format is not None and not _has_content(raw):
            raise TranscriptError(path, None, None, "empty transcript")
        transcript = fmt.read(path, raw)
    except TranscriptError as err:
        raise json_document.explain(path, raw, err) from err
    if snapshot:
        transcript.meta.snapshot = _jsonl.snapshot(transcript.messages)
    return transcript


def _read_array(
    path: str,
    document: tuple[bytes, json_document.DocumentStyle, list[int]],
    format: str | None,
    snapshot: bool,
) -> Transcript:
    """A file that is one JSON array of records: read as the JSON Lines of its elements
    (``meta.json_document``: its style, so that :func:`write_transcript` writes an array)."""
    lines, style, starts = document
    try:
        transcript = read_transcript(path, lines, format, snapshot=snapshot)
    except TranscriptError as err:
        raise json_document.relocate(err, starts) from err
    transcript.meta.json_document = style
    return transcript


_BLANK_BYTES = _jsonl.BOM + b" \t\r\n"
_BLANK = frozenset(_BLANK_BYTES)


def _has_content(raw: bytes | FileSource) -> bool:
    """Whether ``raw`` holds more than a BOM and whitespace (without copying a large file)."""
    if isinstance(raw, bytes):
        return any(byte not in _BLANK for byte in raw[:4096]) or bool(raw.strip(_BLANK_BYTES))
    offset = 0
    while block := raw.read_at(offset, raw.BLOCK):
        if block.strip(_BLANK_BYTES):
            return True
        offset += len(block)
    return False


def write_transcript(
    t: Transcript,
    new_messages: Sequence[Message | AgenticMessage],
    *,
    mode: WriteMode = "shrink",
    info: CompactionInfo | None = None,
) -> bytes:
    """Render the compacted history ``new_messages`` in the transcript's own format."""
    data = get_format(t.format).write(t, new_messages, mode=mode, info=info)
    style = t.meta.json_document
    return data if style is None else json_document.render(data, style)


def append_refusal(t: Transcript) -> str | None:
    """Why ``--append`` cannot extend ``t`` although its format can (its spec's
    ``append_refused``), or None."""
    refused = get_format(t.format).spec.append_refused
    return None if refused is None else refused(t)


_CALL_KEYS = {k: v for f in _DECLARED for k, v in f.spec.call_keys.items()}
"""Typed tool-call blocks/items of every format → the key of their id."""
_RESULT_KEYS = {k: v for f in _DECLARED for k, v in f.spec.result_keys.items()}
"""Typed tool-result blocks/items of every format → the key of their call's id."""


def unknown_notes(t: Transcript) -> list[UnknownRecords]:
    """One warning per record type ``t``'s reader did not know and kept as metadata."""
    from compactor.events import UnknownRecords

    return [UnknownRecords(t.path, t.format, kind, line, n) for kind, line, n in t.meta.unknown]


def file_tool_pairs(t: Transcript) -> tuple[int, int]:
    """``(tool calls, results paired to them)`` over EVERY record of the file.

    Unlike the model-visible history (which starts after an existing compaction boundary), this
    counts the whole file, whatever the format: Anthropic ``tool_use``/``tool_result`` blocks,
    Responses-API ``function_call``/``*_output`` items, chat ``tool_calls``/``tool_call_id(s)``,
    Copilot ``toolRequests``/``tool.execution_complete``.
    """
    calls: set[str] = set()
    n_calls = 0
    results: list[str] = []

    def walk(node: JsonValue) -> None:
        nonlocal n_calls
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        kind = kind if isinstance(kind, str) else ""
        if kind in _CALL_KEYS and isinstance(node.get(_CALL_KEYS[kind]), str):
            calls.add(node[_CALL_KEYS[kind]])
            n_calls += 1
        elif kind in _RESULT_KEYS and isinstance(node.get(_RESULT_KEYS[kind]), str):
            results.append(node[_RESULT_KEYS[kind]])
        if isinstance(node.get("tool_calls"), list):
            for call in node["tool_calls"]:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    calls.add(call["id"])
                    n_calls += 1
        if node.get("role") == "tool":
            ids = node.get("tool_call_ids") or [node.get("tool_call_id")]
            results.extend(i for i in ids if isinstance(i, str))
        if isinstance(node.get("toolRequests"), list):  # Copilot's untyped requests
            for call in node["toolRequests"]:
                if isinstance(call, dict) and isinstance(call.get("toolCallId"), str):
                    calls.add(call["toolCallId"])
                    n_calls += 1
        if kind == COPILOT_RESULT and isinstance(data := node.get("data"), dict):
            if isinstance(data.get("toolCallId"), str):
                results.append(data["toolCallId"])
        for key, value in node.items():
            if key not in ("tool_calls", "toolRequests") and isinstance(value, dict | list):
                walk(value)

    for record in t.records:  # a list, or a chat file's Records view (not a list)
        walk(record)
    return n_calls, sum(1 for r in results if r in calls)


MANIFEST = "_manifest.py"


def render_manifest() -> str:
    """The text of ``compactor/formats/_manifest.py``: what the command line needs from the
    declarations (names, help lines, ``--append``, harness read tools) without importing the
    readers at start-up."""
    import json

    listed = _listed()
    help_lines = "".join(f"    {json.dumps(s.name)}: {json.dumps(s.help)},\n" for s in listed)
    tools = "".join(
        f"    {json.dumps(s.name)}: {json.dumps(s.read_tool)},\n" for s in listed if s.read_tool
    )

    def names(var: str, specs: list[FormatSpec]) -> str:
        inner = ", ".join(json.dumps(s.name) for s in specs)
        line = f"{var} = ({inner},)" if len(specs) == 1 else f"{var} = ({inner})"
        if len(line) <= 100:  # else one name a line, as ruff format writes it
            return line
        return f"{var} = (\n" + "".join(f"    {json.dumps(s.name)},\n" for s in specs) + ")"

    return (
        '"""GENERATED from the formats\' declarations (``SPEC`` in each format module) by\n'
        "``python -m compactor.formats.registry``: do not edit. A test fails when it is stale.\n"
        '"""\n\n'
        f"{names('FORMAT_NAMES', listed)}\n"
        f"{names('APPEND_FORMATS', [s for s in listed if s.can_append])}\n"
        f"FORMAT_HELP = {{\n{help_lines}}}\n"
        f"READ_TOOLS = {{\n{tools}}}\n"
    )


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_name(MANIFEST).write_text(render_manifest(), encoding="utf-8")
