"""Claude Code session logs (FORMATS.md §1).

Natural message type: :class:`~compactor.schema.AgenticMessage` (the ``message`` objects are
Anthropic Messages API shapes).

Reading. The history starts at the last ``system/compact_boundary`` (or at a 1.0.x summary
record without parent, that version's compaction), as Claude Code loads it:
its ``user``, ``assistant`` and ``attachment`` records in file order, with the messages a
boundary preserves (``compactMetadata.preservedMessages`` / ``preservedSegment``: records left
in place before the boundary) inserted after the summary they are anchored to. Split assistant
lines sharing ``message.id`` are merged into one message.

* Text the CLI injected (``isMeta`` records, command output, caveats, a previous compaction
  summary) is marked ``extra["injected"] = True`` so it is never quoted as the user's own words.
* ``attachment`` records (task reminders, file references, background events, ...) are context
  Claude Code sends as ``<system-reminder>`` text: each becomes an injected user message with
  ``extra["attachment"]`` = its type, after the tool results it may sit between; a
  ``queued_command`` the user typed while the agent worked is the user's own message (its
  prompt's text, ``_attachments``).
* ``queue-operation`` records add a task notification (once, injected) and a prompt the user
  typed that reached the model mid-turn without a record of its own (``_claude_queue``).
* ``isSidechain`` records (a sub-agent's conversation, which 1.0.x wrote inline) are not the
  main conversation: the main history is read without them (its ``Task`` call and result say
  what the sub-agent did); a file of sidechain records only (a sub-agent's own file) is read
  whole. They stay in the file: ``append`` and a reduction write every line back.
* The ``Skill`` tool reads as ``skill`` (SPEC's default skill tool name); a skill's body, the
  ``isMeta`` record that names the loading call in ``sourceToolUseID``, carries that call id in
  ``extra["source_tool_use_id"]``.
* Usage: each assistant message carries the usage of its last line (``<synthetic>`` ones
  excluded), prompt = input + cache creation + cache read; preserved messages have none (it
  measured the history before their compaction, and Claude Code zeroes it too).

Writing. A ``compact_boundary`` (``logicalParentUuid`` = the last message of the history) and
the summary as an ``isCompactSummary`` user record, with the envelope (session, cwd, version,
``entrypoint``, ``slug``, ...) of the session's records and the newest time of the input.
Messages kept after the summary are listed in ``preservedSegment`` / ``preservedMessages``, so
Claude Code chains them after the summary and drops their stale usage. ``append`` keeps the file
byte for byte and leaves the kept messages where they are, as Claude Code's own compaction does
(a copy would reach the model twice). Messages it cannot leave in place (a reduced history,
reduced rounds among the kept ones, or messages before an own compaction whose summary failed,
which the reader reads over: the client loads from the newest boundary) are written again
after the boundary as copies with fresh uuids and message ids and their usage zeroed; a reduce
writes no summary record (nothing was summarized: Claude Code resumes from the boundary and the
copies alone). ``shrink`` keeps session-level metadata records, then the boundary, the summary
and the kept messages' own records, re-linked into one chain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import (
    CONTENT_TYPE_KEY,
    SIDECHAIN_FILE_KEY,
    SKILL_BODY_KEY,
    AgenticMessage,
    Block,
    Message,
)

from . import _claude_apierror, _jsonl
from ._attachments import attachment_text, queued_prompt
from ._claude_harness_text import mark_harness_text
from ._claude_history import calls_before, history_order, marked_history, note_cwd
from ._claude_records import (
    MESSAGE_TYPES,
    READ_SKILL_TOOL,
    RECORD_TYPES,
    SKILL_TOOL,
    is_unknown_metadata,
)
from ._claude_replay import without_replays
from ._claude_tooloutput import note_tool_output
from ._claude_write import Writer
from ._family import UNTYPED, check_records, family, unknown_record
from .anthropic import (
    TOOL_CALL_KEYS,
    TOOL_RESULT_KEYS,
    blocks_from_content,
    usage_from,
)
from .base import CompactionInfo, FormatSpec, Transcript, TypedRecords, WriteMode
from .notices import CLAUDE_INJECTED as _INJECTED_PREFIXES
from .notices import after_injected_blocks
from .patching import patch_claude_code_results, zero_appended_usage

if TYPE_CHECKING:
    from compactor.io import FileSource

    from ._claude_queue import Queued

__all__ = ["SKILL_TOOL", "ClaudeCodeFormat", "attachment_text"]

QUEUE_RECORD = "queue-operation"  # as _claude_queue's, imported only when a file holds one

_STEP_TYPES = frozenset({*MESSAGE_TYPES, QUEUE_RECORD})
_CAVEAT = "<local-command-caveat>"
_MARKUP_RE = re.compile(r"</?[a-z][\w-]*[ >]")  # more of the CLI's markup (<command-name> …)


def _injected(rec: JsonObject, msg: AgenticMessage, caveat: bool = False) -> bool:
    """Text the CLI wrote; ``caveat``: right after its local-command caveat, where a short line
    without command markup is its reply to a command it ran (``Unknown skill: load``)."""
    if rec.get("isMeta") or rec.get("isCompactSummary"):
        return True
    text = "\n".join(b.text or "" for b in msg.blocks if b.type == "user_input_text").lstrip()
    if caveat and 0 < len(text) <= 300 and "\n" not in text.rstrip() and "<" not in text:
        return True
    if not text.startswith(_INJECTED_PREFIXES):
        return False
    own = after_injected_blocks(text)  # the user's words below an IDE's reminder (72 N5)
    return not own or own.startswith(_INJECTED_PREFIXES) or bool(_MARKUP_RE.match(own))


class _Reader:
    """Builds the history from records in history order."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.messages: list[AgenticMessage] = []
        self.origin: list[list[int]] = []
        self.by_id: dict[str, int] = {}
        self.last_line_of: dict[int, JsonObject] = {}
        self.tool_names: dict[str, str] = {}
        self.open_calls: set[str] = set()
        self.deferred: list[tuple[AgenticMessage, list[int]]] = []
        self.earlier_calls: set[str] = set()  # made before the live history (calls_before)
        self.caveat = False  # the last record was the CLI's local-command caveat

    def add(self, msg: AgenticMessage, index: int) -> None:
        self.messages.append(msg)
        self.origin.append([index])

    def place(self, msg: AgenticMessage, origin: list[int]) -> None:
        """Add context now, or after the results of the calls still open: never between a
        tool call and its result (an API request could not carry that)."""
        if self.open_calls:
            self.deferred.append((msg, origin))
        else:
            self.messages.append(msg)
            self.origin.append(origin)

    def flush(self) -> None:
        for msg, origin in self.deferred:
            self.messages.append(msg)
            self.origin.append(origin)
        self.deferred.clear()

    def queued(self, found: list[Queued]) -> None:
        """Messages read from ``queue-operation`` records (``_claude_queue``): a task notice
        (injected context) or a prompt the user typed while the agent worked. They have no
        record of their own (empty origin): writers never copy the queue record into the chain."""
        from ._claude_queue import queued_message

        for q in found:
            self.place(queued_message(q), [])

    def record(self, index: int, ln: _jsonl.Line) -> None:
        rec = ln.obj
        kind = rec.get("type")
        if kind == "attachment":
            texts = queued_prompt(rec.get("attachment"))
            if texts is not None:  # the user's message, typed while the agent worked
                msg = AgenticMessage("user", [Block("user_input_text", t) for t in texts])
                if _injected(rec, msg):
                    msg.extra["injected"] = True
            else:
                msg = AgenticMessage(
                    "user", [Block("user_input_text", attachment_text(rec.get("attachment")))]
                )
                msg.extra["injected"] = True
            kind_name = (
                rec["attachment"].get("type") if isinstance(rec.get("attachment"), dict) else None
            )
            msg.extra["attachment"] = kind_name if isinstance(kind_name, str) else "?"
            self.place(msg, [index])
            return
        body = rec.get("message")
        if not isinstance(body, dict):
            raise TranscriptError(self.path, ln.number, "message", "must be an object")
        role = body.get("role", kind)
        if not isinstance(role, str):
            raise TranscriptError(
                self.path, ln.number, "message.role", f"must be a string, got {role!r}"
            )
        blocks = blocks_from_content(
            self.path, ln.number, role, body.get("content"), self.tool_names, "message.content"
        )
        for block in blocks:
            if block.type == "function_tool_call" and block.name == SKILL_TOOL:
                block.name = READ_SKILL_TOOL
                self.tool_names[block.call_id or ""] = READ_SKILL_TOOL
        msg_id = body.get("id")
        if kind == "assistant" and isinstance(msg_id, str) and msg_id in self.by_id:
            idx = self.by_id[msg_id]
            self.messages[idx].blocks.extend(blocks)
            note_cwd(self.messages[idx], rec, blocks)
            self.origin[idx].append(index)
            self.last_line_of[idx] = body
            self.open_calls.update(
                b.call_id or "" for b in blocks if b.type == "function_tool_call"
            )
            return
        if kind == "user" and _orphans(blocks, self.tool_names, self.earlier_calls):
            blocks = [b for b in blocks if not _orphan(b, self.tool_names, self.earlier_calls)]
            if not blocks:  # the record stays in the file; the client never sends it
                return
        msg = AgenticMessage(role=role, blocks=blocks)
        caveat, self.caveat = self.caveat, False
        if kind == "user":
            if _injected(rec, msg, caveat):
                msg.extra["injected"] = True
            self.caveat = bool(rec.get("isMeta")) and any(
                _CAVEAT in (b.text or "")[:40] for b in blocks if b.type == "user_input_text"
            )
            note_tool_output(rec, msg)  # a stub's recorded output (BENCH49 W1)
            mark_harness_text(msg)  # "Tool loaded." beside a result: not the user's (60 W2)
            if rec.get("isCompactSummary"):
                msg.extra[CONTENT_TYPE_KEY] = "summary"
                msg.extra["compact_summary"] = True
            source = rec.get("sourceToolUseID")
            if rec.get("isMeta") and isinstance(source, str):
                msg.extra[SKILL_BODY_KEY] = source
            self.add(msg, index)
            self.open_calls.difference_update(
                b.call_id or "" for b in blocks if b.type == "function_tool_result"
            )
            if not self.open_calls:
                self.flush()
            return
        self.flush()  # the calls before it were never answered: the reminders go first
        self.open_calls = {b.call_id or "" for b in blocks if b.type == "function_tool_call"}
        if isinstance(msg_id, str):
            self.by_id[msg_id] = len(self.messages)
        self.last_line_of[len(self.messages)] = body
        note_cwd(msg, rec, blocks)
        self.add(msg, index)


def _orphan(block: Block, calls: dict[str, str], earlier: set[str]) -> bool:
    """A tool result whose call lies before the live history (before Claude Code's own
    compaction boundary: a late permission failure, blind check 10) and not in it. The client
    drops such a result when it builds a request (its tool-result pairing keeps only results
    of the assistant message just before), so it is no part of the live history: never kept,
    re-emitted or read as the session's last action. A result whose call is nowhere in the
    file stays a message, as any orphan (the reduction keeps and offloads it)."""
    call = block.call_id
    return block.type == "function_tool_result" and call in earlier and call not in calls


def _orphans(blocks: list[Block], calls: dict[str, str], earlier: set[str]) -> bool:
    return bool(earlier) and any(_orphan(b, calls, earlier) for b in blocks)


SESSION_FIELDS = (
    "uuid",
    "sessionId",
    "parentUuid",
    "message",
    "snapshot",
    "permissionMode",
)
"""Fields of which a Claude Code record of a known ``type`` carries at least one."""


def _owns(rec: JsonObject, kind: str) -> bool:
    """A Claude Code record: a type it writes and one of its session fields."""
    return kind in RECORD_TYPES and any(k in rec for k in SESSION_FIELDS)


def _record_problem(
    rec: JsonObject, kind: str | None, owned: bool
) -> tuple[str | None, str] | None:
    if owned or kind in RECORD_TYPES or is_unknown_metadata(rec, kind):
        return None
    return "type", unknown_record("claude-code record type", kind)


def unknown_metadata(lines: Sequence[_jsonl.Line]) -> list[tuple[str, int, int]]:
    """``(type, first line, count)`` of each unknown record type kept as metadata."""
    found: dict[str, list[int]] = {}
    for ln in lines:
        if is_unknown_metadata(ln.obj, kind := ln.obj.get("type")):
            found.setdefault(UNTYPED if kind is None else str(kind), [ln.number, 0])[1] += 1
    return [(kind, first, n) for kind, (first, n) in found.items()]


def record_kind(rec: JsonObject) -> str:
    """``progress``, ``system/turn_duration``, ``user``, ...: a record's kind in a report."""
    kind = rec.get("type")
    if kind == "system":
        return f"system/{rec.get('subtype')}"
    return str(kind)


def is_message_record(rec: JsonObject) -> bool:
    return rec.get("type") in ("user", "assistant")


SPEC = FormatSpec(
    name="claude-code",
    help="Claude Code session logs (~/.claude/projects/*/*.jsonl)",
    detect_order=10,
    list_order=30,
    family="claude-code",
    typed=TypedRecords(_owns, _record_problem),
    can_append=True,
    agent_session=True,
    read_tool="Read",
    call_keys=TOOL_CALL_KEYS,
    result_keys=TOOL_RESULT_KEYS,
    record_kind=record_kind,
    is_message_record=is_message_record,
    patch_reduced=patch_claude_code_results,
    fix_appended=zero_appended_usage,
)


class ClaudeCodeFormat:
    """``claude-code``: Claude Code session JSONL."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        return any(isinstance(r, dict) and family(r) == self.name for r in records)

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        start, order, preserved = history_order(lines)
        reader = _Reader(path)
        reader.earlier_calls = calls_before(lines, start, preserved)
        steps = [i for i in order if lines[i].obj.get("type") in _STEP_TYPES]
        inline = False
        if any(not lines[i].obj.get("isSidechain") for i in steps):
            # 1.0.x wrote a sub-agent's conversation inline (isSidechain): not the main one
            kept = [i for i in steps if not lines[i].obj.get("isSidechain")]
            inline, steps = len(kept) < len(steps), kept
        steps = without_replays(lines, steps)  # the Agent SDK's echo of a prompt (60 N7)
        queued: dict[int, list[Queued]] = {}
        if any(lines[i].obj.get("type") == QUEUE_RECORD for i in steps):
            from ._claude_queue import queued_messages

            queued = queued_messages(lines, steps)
        for i in steps:
            if lines[i].obj.get("type") != QUEUE_RECORD:
                reader.record(i, lines[i])
            if i in queued:  # (a prompt still queued at the end: after the last record)
                reader.queued(queued[i])
        reader.flush()
        _claude_apierror.add_api_error(lines, order, steps, reader.messages, reader.origin)
        messages = marked_history(reader.messages, reader.origin, lines, start, preserved)
        if inline:  # what each sub-agent called (blind check 68, W4)
            from ._claude_sidechain import note_subagent_tools

            note_subagent_tools(lines, messages)
        elif messages and steps and all(lines[i].obj.get("isSidechain") is True for i in steps):
            messages[0].extra[SIDECHAIN_FILE_KEY] = True  # a sub-agent's own file (77 N1)
        for idx, body in reader.last_line_of.items():
            if body.get("model") != "<synthetic>" and not preserved.intersection(
                reader.origin[idx]
            ):
                messages[idx].usage = usage_from(body.get("usage"))
        transcript = _jsonl.make_transcript(
            self.name, path, raw, lines, messages, reader.origin, start=start
        )
        transcript.meta.unknown = unknown_metadata(lines)
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
        return Writer(transcript, new_messages, matches, mode, info).render()


FORMAT = ClaudeCodeFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
