"""Which records of a Claude Code session are its history, in what order (FORMATS.md §1.3).

Claude Code loads the chain that ends at the newest record: from the last
``system/compact_boundary`` (``parentUuid: null``), or, in 1.0.x, which wrote no boundary,
from the last compaction summary without parent (``isCompactSummary``, ``parentUuid: null``:
the compaction started a new chain there). A boundary may name messages it preserves
(``compactMetadata.preservedMessages`` / ``preservedSegment``): records left in place before
it, loaded after the summary they are anchored to.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject, JsonValue
from compactor.schema import CWD_KEY, PROCESS_KEY, AgenticMessage, Block

from . import _jsonl
from ._claude_earlier import note_earlier_jobs
from ._claude_failed import failed_starts
from ._claude_modes import mark_modes
from .cli_errors import mark_cli_errors

__all__ = [
    "calls_before",
    "chain_records",
    "history_order",
    "in_place",
    "is_boundary",
    "is_old_compaction",
    "mark_processes",
    "marked_history",
    "note_cwd",
    "preserved_uuids",
    "skipped_starts",
]

_CHAIN_TYPES = frozenset({"user", "assistant", "attachment", "system"})
"""Records Claude Code links by ``parentUuid`` (``progress`` records are bridged over)."""


def is_boundary(rec: JsonObject) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"


def preserved_uuids(
    meta: JsonValue, records: dict[str, JsonObject]
) -> tuple[str | None, list[str]]:
    """(anchor uuid, preserved uuids in chain order) of a boundary's ``compactMetadata``.

    ``preservedMessages`` lists them; a bare ``preservedSegment`` is walked from its tail to its
    head by ``parentUuid``. Like Claude Code, a list naming a record the file lacks (or a walk
    that breaks) preserves nothing.
    """
    if not isinstance(meta, dict):
        return None, []
    listed = meta.get("preservedMessages")
    if isinstance(listed, dict) and isinstance(listed.get("uuids"), list):
        uuids = [u for u in listed["uuids"] if isinstance(u, str)]
        anchor = listed.get("anchorUuid")
        if any(u not in records for u in uuids):
            return None, []
        return (anchor if isinstance(anchor, str) else None), uuids
    segment = meta.get("preservedSegment")
    if not isinstance(segment, dict):
        return None, []
    head, tail, anchor = (segment.get(k) for k in ("headUuid", "tailUuid", "anchorUuid"))
    walked: list[str] = []
    current = records.get(tail) if isinstance(tail, str) else None
    while current is not None and current["uuid"] not in walked:
        walked.append(current["uuid"])
        if current["uuid"] == head:
            walked.reverse()
            return (anchor if isinstance(anchor, str) else None), walked
        parent = current.get("parentUuid")
        current = records.get(parent) if isinstance(parent, str) else None
    return None, []


def chain_records(lines: Sequence[_jsonl.Line]) -> dict[str, JsonObject]:
    """uuid → chain record, with ``parentUuid`` bridged over ``progress`` records."""
    progress_parent: JsonObject = {}
    records: dict[str, JsonObject] = {}
    for ln in lines:
        rec = ln.obj
        uid = rec.get("uuid")
        if not isinstance(uid, str):
            continue
        parent = rec.get("parentUuid")
        while isinstance(parent, str) and parent in progress_parent:
            parent = progress_parent[parent]
        if rec.get("type") == "progress":
            progress_parent[uid] = parent
        elif rec.get("type") in _CHAIN_TYPES:
            records[uid] = {**rec, "parentUuid": parent}
    return records


def is_old_compaction(rec: JsonObject) -> bool:
    """Claude Code 1.0.x's own compaction: no boundary, the summary (``isCompactSummary``) with
    no parent starts a new chain, which is all it loads on resume."""
    return (
        rec.get("type") == "user"
        and rec.get("isCompactSummary") is True
        and rec.get("parentUuid") is None
        and not rec.get("isSidechain")
    )


def _starts(lines: Sequence[_jsonl.Line]) -> list[int]:
    """The lines where a compaction starts the history: boundaries and 1.0.x summaries."""
    return [
        i
        for i, ln in enumerate(lines)
        if is_boundary(ln.obj)
        or (ln.obj.get("isCompactSummary") is True and is_old_compaction(ln.obj))
    ]


def skipped_starts(lines: Sequence[_jsonl.Line], starts: Sequence[int] | None = None) -> list[int]:
    """The compactions after the last real one whose summary failed (only the CLI's error,
    :mod:`._claude_failed`), in file order: the history reads on over them."""
    starts = _starts(lines) if starts is None else starts
    if not starts:
        return []
    failed = failed_starts(lines, starts)
    real = [i for i in starts if i not in failed]
    return [i for i in starts if i in failed and (not real or i > real[-1])]


def history_order(lines: Sequence[_jsonl.Line]) -> tuple[int, list[int], set[int]]:
    """(first line after the last boundary, line indices in history order, preserved lines).

    A 1.0.x compaction (:func:`is_old_compaction`) after the last boundary starts the history
    at its summary, as a boundary would start it at the line after it. A compaction whose
    summary failed (:func:`skipped_starts`) starts nothing: the history reads on over it,
    without its error "summary"."""
    starts = _starts(lines)
    skipped = skipped_starts(lines, starts)
    real = [i for i in starts if i not in skipped]
    boundary = max((i for i in real if is_boundary(lines[i].obj)), default=-1)
    old = max((i for i in real if not is_boundary(lines[i].obj)), default=-1)
    drop: set[int] = set()
    if skipped:  # the failed compactions' "summaries": no part of the history
        drop = {
            j for j in range(skipped[0], len(lines)) if lines[j].obj.get("isCompactSummary") is True
        }
    if old > boundary:
        return old, [i for i in range(old, len(lines)) if i not in drop], set()
    after = [i for i in range(boundary + 1, len(lines)) if i not in drop]
    if boundary < 0:
        return 0, after, set()
    meta = lines[boundary].obj.get("compactMetadata")
    if not isinstance(meta, dict) or not (
        meta.get("preservedMessages") or meta.get("preservedSegment")
    ):
        return boundary + 1, after, set()
    anchor, uuids = preserved_uuids(meta, chain_records(lines))
    index = {ln.obj["uuid"]: i for i, ln in enumerate(lines) if isinstance(ln.obj.get("uuid"), str)}
    preserved = [index[u] for u in uuids if u in index]
    before = [i for i in preserved if i < boundary]
    order: list[int] = []
    placed = False
    for i in after:
        order.append(i)
        if not placed and lines[i].obj.get("uuid") == anchor:
            order.extend(before)
            placed = True
    if not placed:
        order = before + order
    return boundary + 1, order, set(preserved)


def mark_processes(
    messages: list[AgenticMessage], origin: Sequence[Sequence[int]], lines: Sequence[_jsonl.Line]
) -> list[AgenticMessage]:
    """``messages``, each marked with the ``sessionId`` of the first record it came from
    (``extra[PROCESS_KEY]``) when the history holds more than one: each is one run of the CLI
    (a restart or ``--resume`` starts a new one, whose background shells are its own; blind
    check 19). A message without a record of its own (a queued notice) is not marked."""
    ids = [_process_of(where, lines) for where in origin]
    if len({i for i in ids if i}) > 1:
        for msg, key in zip(messages, ids, strict=False):
            if key:
                msg.extra[PROCESS_KEY] = key
    return messages


def marked_history(
    messages: list[AgenticMessage],
    origin: Sequence[Sequence[int]],
    lines: Sequence[_jsonl.Line],
    start: int,
    live: set[int],
) -> list[AgenticMessage]:
    """:func:`mark_processes`, then the marks of :mod:`._claude_modes` (the session's last
    permission mode, an interrupt just before the compaction that starts the history) and the
    background jobs started before that compaction (:mod:`._claude_earlier`; ``live``: the
    lines before it that the history keeps in place)."""
    note_earlier_jobs(messages, lines, start, live)
    mark_cli_errors(messages, origin, lines)  # (blind check 63 W3)
    return mark_modes(mark_processes(messages, origin, lines), lines, start)


def _process_of(where: Sequence[int], lines: Sequence[_jsonl.Line]) -> str:
    for i in where:
        key = lines[i].obj.get("sessionId")
        if isinstance(key, str) and key:
            return key
    return ""


def calls_before(lines: Sequence[_jsonl.Line], start: int, live: set[int]) -> set[str]:
    """The ids of the tool calls in the records before line index ``start`` that are no part of
    the live history (``live``: the kept segment a boundary preserves is read in place)."""
    found: set[str] = set()
    for ln in (lines[i] for i in range(start) if i not in live):
        body = ln.obj.get("message")
        content = body.get("content") if isinstance(body, dict) else None
        if ln.obj.get("type") == "assistant" and isinstance(content, list):
            found.update(
                b["id"]
                for b in content
                if isinstance(b, dict)
                and b.get("type") == "tool_use"
                and isinstance(b.get("id"), str)
            )
    return found


def in_place(
    lines: Sequence[_jsonl.Line],
    origin: Sequence[Sequence[int]],
    matches: Sequence[int | None],
    run: list[int],
) -> list[int]:
    """The kept run ``run`` (indices of new messages matched to originals) an ``append`` may
    leave in place: none when one of them lies before an own compaction the reader skipped.
    Claude Code loads from the newest boundary; a ``preservedSegment`` walked from the run's
    tail breaks at the skipped boundary, so the run is written again after the summary."""
    kept = [i for x in run for i in origin[matches[x] or 0]]
    skipped = skipped_starts(lines) if kept else []
    return [] if skipped and min(kept) < max(skipped) else run


def note_cwd(msg: AgenticMessage, rec: JsonObject, blocks: list[Block]) -> None:
    """The directory the record says its tool calls run in (``cwd``), for the summarizer."""
    cwd = rec.get("cwd")
    if isinstance(cwd, str) and cwd and CWD_KEY not in msg.extra:
        if any(b.type == "function_tool_call" for b in blocks):
            msg.extra[CWD_KEY] = cwd
