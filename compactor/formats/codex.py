"""OpenAI Codex CLI / Desktop rollout files (FORMATS.md §2).

Natural message type: :class:`~compactor.schema.Message`. Model-visible: ``response_item`` records
after the last ``compacted`` record (whose ``replacement_history`` starts the history; a record
without one: the user's own messages before it, then its summary, as Codex rebuilds them:
:mod:`._codex_bridge`):
``message`` (``developer`` → ``system``), ``function_call`` / ``custom_tool_call`` (an assistant
message with one tool call) and their outputs (``tool`` messages). ``reasoning`` and
``web_search_call`` items are not messages; their records travel with the next message so a kept
tail keeps them. Injected user context (``<environment_context>``, ``# AGENTS.md instructions``,
other ``<…>``-wrapped text) is marked ``extra["injected"] = True``. A ``<goal_context>`` message
(thread goals) holds the user's objective: it is read as a user request whose text is the
objective alone (``extra["codex_goal"] = True``); its records are written back unchanged.

Usage: each ``event_msg/token_count`` with ``info.last_token_usage`` becomes ``Usage(prompt =
input_tokens, completion = output_tokens, total = total_tokens)`` on the last assistant message
before it, its total plus the encrypted reasoning Codex adds to it when it resumes (each message
carries the estimate of the reasoning items that travel with it: :mod:`._codex_tokens`). The
``token_count`` written after a ``compacted`` record, before any response item (right after it as
this writer writes it; Codex writes ``world_state`` and ``turn_context`` first) is the size of what
Codex sends next, its re-injected context included: when no later count replaced it, it becomes the
baseline (:func:`_compaction_baseline`; on the summary when no assistant message follows it), so
``check`` on a compacted file counts what the compacting run reported.

Legacy rollouts (before ``session_meta``: a metadata line, bare items, ``record_type`` state
lines; :mod:`._codex_legacy`) are read the same way, each bare item a response item, and written
back in their own shape; ``--append`` on one is refused (no client resumes it).

Writing: ``shrink`` keeps ``session_meta`` and the latest ``turn_context``, then a ``compacted``
record whose ``replacement_history`` holds the messages up to the summary (without developer
messages and injected context, which Codex writes anew after a compaction; a history without a
summary, a reduction, keeps the developer and AGENTS.md instructions as Codex's own compaction
does: :func:`._codex_context.reinjected`), an
``event_msg/token_count`` whose ``last_token_usage.total_tokens`` is the size after compaction (less
the reasoning Codex adds back; as Codex writes it: a resumed session would otherwise compact
again on the stale count), an
``event_msg/context_compacted``, and the kept tail's own records. ``append`` keeps the file byte
for byte and appends the same records. Added records carry the input's newest time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import (
    CONTENT_TYPE_KEY,
    CWD_KEY,
    TURN_ABORTED_KEY,
    AgenticMessage,
    Message,
    Usage,
    content_type,
)

from . import (
    _codex_agents,
    _codex_bridge,
    _codex_earlier,
    _codex_events,
    _codex_heads,
    _codex_items,
    _codex_kept,
    _codex_legacy,
    _codex_midturn,
    _codex_notes,
    _codex_tokens,
    _codex_unknown,
    _jsonl,
)
from ._codex_context import reinjected as _reinjected
from ._codex_response_items import ItemReader, render
from ._codex_tokens import OpaqueTokens, reasoning_before_last_user
from ._family import (
    check_records,
    family,
    is_untyped_metadata,
    untyped_metadata,
)
from .base import CompactionInfo, FormatSpec, Transcript, TypedRecords, WriteMode

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = ["CodexFormat"]


def _int(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_USAGE_KEYS = (
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_output_tokens",
    "total_tokens",
)


def _token_count_after(lines: Sequence[_jsonl.Line], tokens: int) -> JsonObject:
    """The ``token_count`` event Codex writes after compacting: ``last_token_usage`` is the size
    of the compacted history (without it a resumed session sees the last pre-compaction count
    and compacts again at once); the session totals and the window stay as they were."""
    last: JsonObject = {}
    for ln in reversed(lines):
        payload = ln.obj.get("payload")
        if (
            ln.obj.get("type") == "event_msg"
            and isinstance(payload, dict)
            and payload.get("type") == "token_count"
            and isinstance(payload.get("info"), dict)
        ):
            last = payload["info"]
            break
    previous = last.get("last_token_usage")
    keys = list(previous) if isinstance(previous, dict) and previous else list(_USAGE_KEYS)
    usage = {k: 0 for k in keys if k != "total_tokens"} | {"total_tokens": tokens}
    info: JsonObject = {
        "total_token_usage": last.get("total_token_usage") or dict.fromkeys(_USAGE_KEYS, 0),
        "last_token_usage": usage,
    }
    if "model_context_window" in last:
        info["model_context_window"] = last["model_context_window"]
    return {"type": "token_count", "info": info, "rate_limits": None}


def _compaction_baseline(messages: list[Message], total: int) -> None:
    """The ``token_count`` a compaction wrote (Codex, or ``compact``) as the history's usage
    baseline, when no later count replaced it: ``total`` is the size of the history Codex
    sends next, which holds the instructions and context it writes anew after a compaction
    and this file does not (a count of the file's messages alone says a fraction of it). It
    goes on the newest assistant message, less the estimate of the messages after it (which
    ``total`` covers already), so the usage-aware count says ``total`` for the file as written.
    A history with no assistant message (a summary alone: nothing was kept after it) carries
    it on the summary, which the counter also takes as a baseline
    (:func:`~compactor.counting.tokens.baseline_index`): else ``check`` would count the summary
    alone, a fraction of what the compacting run reported and of what Codex counts on resume
    (it takes the last ``token_count``)."""
    from compactor.counting.tokens import estimate_message

    if any(m.usage is not None for m in messages):
        return  # a newer count of the client's own
    index = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None
    )
    if index is None:
        index = next(
            (i for i in range(len(messages) - 1, -1, -1) if content_type(messages[i]) == "summary"),
            None,
        )
    if index is None:
        return
    rest = total - sum(estimate_message(m) for m in messages[index + 1 :])
    if rest > 0:
        messages[index].usage = Usage(prompt_tokens=0, completion_tokens=0, total_tokens=rest)


RECORD_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
    | {"token_usage_record", "world_state", *_codex_agents.BOOKKEEPING_RECORDS}
)
"""Codex rollout record ``type`` values (FORMATS.md §2; ``token_usage_record`` and
``world_state`` are written by Codex 0.171; :mod:`._codex_agents` for the multi-agent ones)."""

RESPONSE_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "reasoning",
        "web_search_call",
        "ghost_snapshot",
        "local_shell_call",
        *_codex_tokens.CARRIED_ITEMS,
        *_codex_agents.MESSAGE_ITEMS,
    }
)
"""``response_item`` payload types the reader knows: the first five are messages, ``reasoning``
(opaque) and ``web_search_call`` travel with the next message, ``ghost_snapshot`` is metadata;
``local_shell_call`` (the built-in shell of 2025 models: ``action`` holds the command, a
``function_call_output`` answers it) is a call named ``local_shell``; the items of
:data:`._codex_tokens.CARRIED_ITEMS` (tool search, image generation) travel with the next one."""


def _owns(rec: JsonObject, kind: str) -> bool:
    """A rollout record: a type Codex writes and a ``payload`` object."""
    return kind in RECORD_TYPES and isinstance(rec.get("payload"), dict)


def _record_problem(
    rec: JsonObject, kind: str | None, owned: bool
) -> tuple[str | None, str] | None:
    return _codex_unknown.problem(rec, kind, owned, RECORD_TYPES, RESPONSE_ITEMS)  # (56 F1)


_MESSAGE_ITEMS = frozenset(
    {"message", "function_call", "local_shell_call", "function_call_output"}
    | {"custom_tool_call", "custom_tool_call_output", *_codex_agents.MESSAGE_ITEMS}
)


def is_legacy_rollout(records: Sequence[JsonObject]) -> bool:
    """A legacy rollout (before ``session_meta``, :mod:`._codex_legacy`): detection claims it
    for this format before any per-record vote (its bare items look like chat messages)."""
    return _codex_legacy.is_legacy(records, RESPONSE_ITEMS)


def record_kind(rec: JsonObject) -> str:
    """``event_msg/token_count``, ``response_item/reasoning``, ``turn_context``, ...: a
    record's kind in a report (a legacy rollout's bare item as ``response_item/...``, its
    state lines as ``state``)."""
    kind = rec.get("type")
    payload = rec.get("payload")
    if _codex_legacy.is_state(rec):
        return "state"
    if kind in RESPONSE_ITEMS and payload is None:
        return f"response_item/{kind}"
    if kind in ("response_item", "event_msg") and isinstance(payload, dict):
        return f"{kind}/{payload.get('type')}"
    return str(kind)


def is_message_record(rec: JsonObject) -> bool:
    if "payload" not in rec and rec.get("type") in _MESSAGE_ITEMS:
        return True  # a legacy rollout's bare item
    payload = rec.get("payload")
    return (
        rec.get("type") == "response_item"
        and isinstance(payload, dict)
        and payload.get("type") in _MESSAGE_ITEMS
    )


def _append_refused(t: Transcript) -> str | None:
    """A legacy rollout: the Codex client of today does not resume one (:mod:`._codex_legacy`)."""
    legacy = _codex_legacy.is_legacy_file(t.meta.lines, RESPONSE_ITEMS)
    return _codex_legacy.APPEND_REFUSED if legacy else None


SPEC = FormatSpec(
    name="codex",
    help="OpenAI Codex CLI / Desktop rollouts (~/.codex/sessions/**/rollout-*.jsonl)",
    detect_order=20,
    list_order=40,
    family="codex",
    typed=TypedRecords(_owns, _record_problem),
    can_append=True,
    agent_session=True,
    read_tool="shell",
    call_keys={
        "function_call": "call_id",
        "custom_tool_call": "call_id",
        "local_shell_call": "call_id",
    },
    result_keys={"function_call_output": "call_id", "custom_tool_call_output": "call_id"},
    record_kind=record_kind,
    is_message_record=is_message_record,
    append_refused=_append_refused,
)


class CodexFormat:
    """``codex``: Codex rollout JSONL."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        dicts = [r for r in records if isinstance(r, dict)]
        return is_legacy_rollout(dicts) or any(family(r) == self.name for r in dicts)

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        legacy = _codex_legacy.is_legacy_file(lines, RESPONSE_ITEMS)
        if legacy:
            _codex_legacy.check(path, lines, RESPONSE_ITEMS)
        else:
            check_records(path, self.name, lines)
        reader = ItemReader(path)
        messages: list[Message] = []
        origin: list[list[int]] = []
        start = 0
        opaque = OpaqueTokens()  # encrypted reasoning, as Codex counts it (_codex_tokens)
        for i, ln in enumerate(lines):
            if ln.obj.get("type") == "compacted":
                start = i + 1
        if start:
            payload = lines[start - 1].obj.get("payload")
            payload = payload if isinstance(payload, dict) else {}
            summary = payload.get("message")
            history = payload.get("replacement_history")
            lead: list[JsonObject] = []  # kept items before any message (_codex_kept)
            for item in history if isinstance(history, list) else []:
                msg = (
                    reader.message(lines[start - 1].number, item)
                    if isinstance(item, dict)
                    else None
                )
                if msg is None:
                    if not _codex_kept.hang(messages, item, lead):
                        opaque.carry(item)
                    continue
                _codex_kept.lead_on(msg, lead)
                _codex_items.keep_item(msg, item)  # (written back as it was)
                opaque.attach(msg, item)
                if msg.role == "user" and isinstance(summary, str) and msg.content == summary:
                    msg.extra[CONTENT_TYPE_KEY] = "summary"
                    msg.extra["injected"] = True
                messages.append(msg)
                origin.append([])
            if not isinstance(history, list) and isinstance(summary, str) and summary.strip():
                for msg in _codex_bridge.bridged_history(lines, start - 1, summary, reader.message):
                    messages.append(msg)  # (Codex rebuilds it: user messages, then the summary)
                    origin.append([])
        pending: list[int] = []
        ends: dict[str, JsonObject] = {}
        last_assistant: int | None = None
        compaction_total: int | None = None
        fresh = bool(start)  # no response item since the compaction yet
        cwd = ""  # the latest turn_context's directory
        turns = _codex_midturn.TurnWatch()  # user messages typed mid-turn (57 W5)
        for i in range(start, len(lines)):
            ln = lines[i]
            rec = ln.obj
            payload = rec.get("payload")
            kind = rec.get("type")
            if legacy and "payload" not in rec and kind in RESPONSE_ITEMS:
                kind, payload = "response_item", rec  # a bare item (legacy rollout)
            if kind == "response_item":
                fresh = False
                if not isinstance(payload, dict):
                    raise TranscriptError(path, ln.number, "payload", "must be an object")
                msg = reader.message(ln.number, payload)
                if msg is None:
                    pending.append(i)
                    opaque.carry(payload)
                    continue
                opaque.attach(msg, payload)
                turns.message(msg, payload)
                if msg.role == "assistant":
                    last_assistant = len(messages)
                    if cwd and msg.tool_calls:  # where its call runs (the summarizer reads it)
                        msg.extra[CWD_KEY] = cwd
                elif legacy:  # no compaction marker: a summary is known by its preamble
                    _jsonl.mark_earlier_summary(msg)
                messages.append(msg)
                origin.append([*pending, i])
                pending = []
            else:
                turns.record(kind, payload)
            if kind == "turn_context" and isinstance(payload, dict):
                found = payload.get("cwd")
                cwd = found if isinstance(found, str) else cwd
            elif kind == "event_msg" and isinstance(payload, dict):
                if payload.get("type") == "exec_command_end":
                    ends[str(payload.get("call_id") or "")] = _codex_events.call_end(payload)
                elif notice := _codex_events.limit_notice(payload):  # (blind check 30 N4)
                    extra: JsonObject = {_codex_events.LIMIT_EVENT: True}
                    messages.append(Message(role="assistant", content=notice, extra=extra))
                    origin.append([i])  # (the pending items stay for the next message)
                elif payload.get("type") == "turn_aborted" and messages:  # (blind check 19)
                    messages[-1].extra[TURN_ABORTED_KEY] = str(payload.get("reason") or "")
                info = payload.get("info")
                last = info.get("last_token_usage") if isinstance(info, dict) else None
                if payload.get("type") == "token_count" and isinstance(last, dict):
                    if fresh:  # written with the compaction (by compact, or Codex): its size
                        compaction_total = _int(last.get("total_tokens")) + opaque.before_user
                        fresh = False
                    if last_assistant is not None:
                        messages[last_assistant].usage = Usage(
                            prompt_tokens=_int(last.get("input_tokens")),
                            completion_tokens=_int(last.get("output_tokens")),
                            total_tokens=_int(last.get("total_tokens")) + opaque.before_user,
                        )
        if pending and origin:
            origin[-1].extend(pending)
            opaque.attach(messages[-1], {})
        _codex_events.mark_call_ends(messages, ends)
        _codex_heads.note_head_moves(messages, origin, lines)  # (blind check 69 N4)
        _codex_notes.note_turn_reasoning(messages, lines, start)  # (blind check 48 N1)
        if compaction_total:
            _compaction_baseline(messages, compaction_total)
        if start:  # what the calls before the compaction did (_codex_earlier)
            _codex_earlier.note_earlier_calls(messages, lines, start - 1)
        transcript = _jsonl.make_transcript(
            self.name, path, raw, lines, messages, origin, start=start
        )
        if not legacy:  # a newer Codex's types: kept verbatim, one warning each (56 F1)
            found = _codex_unknown.unknown(lines, RECORD_TYPES, RESPONSE_ITEMS)
            _codex_unknown.check_share(path, found, sum(is_message_record(ln.obj) for ln in lines))
            transcript.meta.unknown = untyped_metadata(lines) + found
        return transcript

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        matches = _jsonl.match_messages(transcript, new_messages)
        if _jsonl.is_unchanged(transcript, matches):
            return transcript.raw
        lines = transcript.meta.lines
        origin = transcript.meta.origin
        stamp = _jsonl.compaction_time(info, lines)
        if _codex_legacy.is_legacy_file(lines, RESPONSE_ITEMS):
            return _codex_legacy.write(transcript, new_messages, matches, mode, render, _reinjected)
        notice = _codex_events.rollout_abort_notice(transcript.messages)  # its own (66)
        new_messages, matches = _codex_events.with_abort_notices(new_messages, matches, notice)

        def items_of(index: int) -> list[JsonObject]:
            j = matches[index]
            if j is not None and origin[j]:
                recs = [lines[i].obj for i in origin[j]]
                return [r["payload"] for r in recs if r.get("type") == "response_item"]
            own = _codex_items.written(new_messages[index], j is not None, render)
            return _codex_kept.around(_kept_on(index), own)

        def _kept_on(index: int) -> Message | AgenticMessage:
            # the message as read carries the kept items of a replacement_history
            j = matches[index]
            return transcript.messages[j] if j is not None else new_messages[index]

        cut = len(new_messages)
        for index, (msg, j) in enumerate(zip(new_messages, matches, strict=True)):
            if j is None and content_type(msg) == "summary":
                cut = index + 1
        summaries = [
            _jsonl.message_text(m) for m in new_messages[:cut] if content_type(m) == "summary"
        ]
        pairs = zip(new_messages, matches, strict=True)  # ours, not the raw's own (check 45)
        ours = any(j is None and content_type(m) == "summary" for m, j in pairs)
        summary_text = summaries[0] if summaries else ""
        # Codex puts its own instructions and environment context back after a compaction
        # (it forgets its baseline there): with a summary an old copy of them would only cost
        # tokens; a history without a summary keeps every record (see _reinjected).
        history = [
            item
            for index in range(cut)
            if not _reinjected(new_messages[index], matches[index] is not None, ours)
            for item in items_of(index)
        ]
        tail = [item for index in range(cut, len(new_messages)) for item in items_of(index)]
        own = [[lines[i].obj.get("payload") for i in records] for records in origin]
        at = len(history) - len(items_of(cut - 1)) if ours else 0  # before the summary
        history = _codex_kept.carry_dropped(history, tail, transcript.messages, own, at)

        out: list[bytes] = []
        if mode == "shrink":
            meta = next((ln for ln in lines if ln.obj.get("type") == "session_meta"), None)
            turn = next(
                (ln for ln in reversed(lines) if ln.obj.get("type") == "turn_context"), None
            )
            heads = [ln for ln in lines if is_untyped_metadata(ln.obj)]  # an extractor's header
            kept = _codex_agents.bookkeeping(lines) + _codex_unknown.kept(lines, RECORD_TYPES)
            kept.sort(key=lambda ln: ln.number)  # kept verbatim, in order (blind check 56 F1)
            out.extend(ln.text for ln in (*heads, meta, turn, *kept) if ln is not None)
        compacted = {"message": summary_text, "replacement_history": history}
        out.append(_jsonl.dump({"timestamp": stamp, "type": "compacted", "payload": compacted}))
        if info is not None and info.tokens_after is not None:
            # Codex adds its own estimate of the encrypted reasoning before the last user turn
            # to this count when it resumes (_codex_tokens): ours already holds it.
            after = info.tokens_after - reasoning_before_last_user([*history, *tail])
            count = _token_count_after(lines, max(0, after))
            out.append(_jsonl.dump({"timestamp": stamp, "type": "event_msg", "payload": count}))
        event = {"type": "context_compacted"}
        out.append(_jsonl.dump({"timestamp": stamp, "type": "event_msg", "payload": event}))
        for index in range(cut, len(new_messages)):
            j = matches[index]
            if j is not None and origin[j]:
                out.extend(lines[i].text for i in origin[j])
            else:
                for item in items_of(index):
                    out.append(
                        _jsonl.dump({"timestamp": stamp, "type": "response_item", "payload": item})
                    )
        if mode == "shrink":  # append: the file keeps them where they are
            out.extend(_codex_events.events_after_history(lines, origin))
        return _jsonl.file_of(transcript, out, mode)


FORMAT = CodexFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
