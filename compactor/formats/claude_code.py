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

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import (
    CONTENT_TYPE_KEY,
    SKILL_BODY_KEY,
    AgenticMessage,
    Block,
    Message,
    content_type,
)

from . import _claude_apierror, _jsonl
from ._attachments import attachment_text, queued_prompt
from ._claude_harness_text import mark_harness_text
from ._claude_history import calls_before, history_order, in_place, marked_history, note_cwd
from ._claude_replay import without_replays
from ._claude_tooloutput import note_tool_output
from ._convert import as_agentic
from ._family import UNTYPED, check_records, family, is_untyped_metadata, unknown_record
from .anthropic import (
    TOOL_CALL_KEYS,
    TOOL_RESULT_KEYS,
    blocks_from_content,
    content_from_blocks,
    usage_from,
)
from .base import CompactionInfo, FormatSpec, Transcript, TypedRecords, WriteMode
from .notices import CLAUDE_INJECTED as _INJECTED_PREFIXES
from .patching import ZEROED_USAGE_KEYS, patch_claude_code_results, zero_appended_usage

if TYPE_CHECKING:
    from compactor.io import FileSource

    from ._claude_queue import Queued

__all__ = ["SKILL_TOOL", "ClaudeCodeFormat", "attachment_text"]

QUEUE_RECORD = "queue-operation"  # as _claude_queue's, imported only when a file holds one

SKILL_TOOL = "Skill"
"""Claude Code's skill-loading tool; read as ``skill``, SPEC §5.3's default name."""

_READ_SKILL_TOOL = "skill"
_KEEP_METADATA = frozenset(
    {"permission-mode", "mode", "ai-title", "custom-title", "tag"}
    | {"agent-name", "agent-color", "agent-setting", "worktree-state", "pr-link"}
)
"""Metadata a shrunk session keeps (the latest of each type): its name, title, mode, tags, the
agent it runs as and its worktree and pull request (2.1.158+ write the last five)."""
_ENVELOPE = (
    "isSidechain",
    "userType",
    "entrypoint",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "slug",
)
_MESSAGE_TYPES = ("user", "assistant", "attachment")
_STEP_TYPES = frozenset({*_MESSAGE_TYPES, QUEUE_RECORD})
_CAVEAT = "<local-command-caveat>"


def _injected(rec: JsonObject, msg: AgenticMessage, caveat: bool = False) -> bool:
    """Text the CLI wrote; ``caveat``: right after its local-command caveat, where a short line
    without command markup is its reply to a command it ran (``Unknown skill: load``)."""
    if rec.get("isMeta") or rec.get("isCompactSummary"):
        return True
    text = "\n".join(b.text or "" for b in msg.blocks if b.type == "user_input_text").lstrip()
    if caveat and 0 < len(text) <= 300 and "\n" not in text.rstrip() and "<" not in text:
        return True
    return bool(text) and text.startswith(_INJECTED_PREFIXES)


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
                block.name = _READ_SKILL_TOOL
                self.tool_names[block.call_id or ""] = _READ_SKILL_TOOL
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


RECORD_TYPES = frozenset(
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
        "agent-name",
        "agent-color",
        "agent-setting",
        "worktree-state",
        "pr-link",
        "queue-operation",
        "summary",
        "tag",
    }
)
"""Types the reader knows (FORMATS.md §1.1): ``user``/``assistant`` are messages, the others
metadata. Another type is read by its shape (RELIABILITY, Decisions): without a ``message``,
metadata kept verbatim and reported (:func:`unknown_metadata`); with one, refused."""

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
    if owned or kind in RECORD_TYPES or _is_unknown_metadata(rec, kind):
        return None
    return "type", unknown_record("claude-code record type", kind)


def _is_unknown_metadata(rec: JsonObject, kind: object) -> bool:
    """A record of a type this reader does not know and no ``message``: metadata. A record
    with no ``type`` at all (``{"_type": "hive-mind-meta", ...}``, a tool's header line) is
    metadata too when it holds no key of a message of any format."""
    if kind is None and "type" not in rec:
        return is_untyped_metadata(rec)
    return isinstance(kind, str) and kind not in RECORD_TYPES and "message" not in rec


def unknown_metadata(lines: Sequence[_jsonl.Line]) -> list[tuple[str, int, int]]:
    """``(type, first line, count)`` of each unknown record type kept as metadata."""
    found: dict[str, list[int]] = {}
    for ln in lines:
        if _is_unknown_metadata(ln.obj, kind := ln.obj.get("type")):
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
        if any(not lines[i].obj.get("isSidechain") for i in steps):
            # 1.0.x wrote a sub-agent's conversation inline (isSidechain): not the main one
            steps = [i for i in steps if not lines[i].obj.get("isSidechain")]
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
        return _Writer(transcript, new_messages, matches, mode, info).render()


class _Writer:
    """One compaction written as Claude Code records."""

    def __init__(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        matches: list[int | None],
        mode: WriteMode,
        info: CompactionInfo | None,
    ) -> None:
        self.t = transcript
        self.new = new_messages
        self.matches = matches
        self.mode = mode
        self.info = info
        self.lines = transcript.meta.lines
        self.origin = transcript.meta.origin
        conversation = [
            ln.obj
            for ln in self.lines
            if ln.obj.get("type") in _MESSAGE_TYPES
            and isinstance(ln.obj.get("uuid"), str)
            and not ln.obj.get("isSidechain")
        ]
        self.envelope: JsonObject = {}
        for key in _ENVELOPE:
            for rec in reversed(conversation):
                if key in rec:
                    self.envelope[key] = rec[key]
                    break
        self.session = str(self.envelope.get("sessionId") or "")
        self.idless_run: str | None = None  # the key of the id-less assistant copies in a row
        self.stamp = _jsonl.compaction_time(info, self.lines)
        last = next((where[-1] for where in reversed(self.origin) if where), None)
        self.logical_parent: JsonValue = (
            self.lines[last].obj.get("uuid")
            if last is not None
            else (conversation[-1]["uuid"] if conversation else None)
        )

    def _uuids(self, j: int) -> list[str]:
        return [
            str(self.lines[i].obj["uuid"])
            for i in self.origin[j]
            if isinstance(self.lines[i].obj.get("uuid"), str)
        ]

    def _summary_index(self) -> int | None:
        for index, (msg, j) in enumerate(zip(self.new, self.matches, strict=True)):
            if j is None and content_type(msg) == "summary":
                return index
        return None

    def render(self) -> bytes:
        nl = self.t.newline
        s = self._summary_index()
        summary_text = _jsonl.message_text(self.new[s]) if s is not None else ""
        # The kept run: originals right after the summary, in their own order.
        run: list[int] = []
        if s is not None:
            for index in range(s + 1, len(self.new)):
                if self.matches[index] is None:
                    break
                run.append(index)  # match_messages keeps originals in order
        if self.mode == "append":  # none before a failed own compaction (_claude_failed)
            run = in_place(self.lines, self.origin, self.matches, run)
        preserved = [u for index in run for u in self._uuids(self.matches[index] or 0)]

        out: list[bytes] = []
        if self.mode == "shrink":  # the latest of each known kind; every unknown one
            kept: dict[str | int, tuple[int, bytes]] = {}
            for i, ln in enumerate(self.lines):
                kind = ln.obj.get("type")
                if kind in _KEEP_METADATA or _is_unknown_metadata(ln.obj, kind):
                    kept[str(kind) if kind in _KEEP_METADATA else i] = (i, ln.text)
            out.extend(text for _, text in sorted(kept.values()))

        boundary_uuid = _jsonl.stable_uuid(
            self.session, "boundary", str(self.logical_parent), summary_text
        )
        summary_uuid = _jsonl.stable_uuid(self.session, "summary", boundary_uuid, summary_text)
        metadata: JsonObject = {"trigger": self.info.trigger if self.info else "auto"}
        metadata["preTokens"] = (
            self.info.tokens_before if self.info and self.info.tokens_before else 0
        )
        if preserved and s is not None:
            metadata["preservedSegment"] = {
                "headUuid": preserved[0],
                "anchorUuid": summary_uuid,
                "tailUuid": preserved[-1],
            }
            metadata["preservedMessages"] = {
                "anchorUuid": summary_uuid,
                "uuids": preserved,
                "allUuids": preserved,
            }
        if self.info is not None and self.info.tokens_after is not None:
            metadata["postTokens"] = self.info.tokens_after
        boundary: JsonObject = {
            "parentUuid": None,
            "logicalParentUuid": self.logical_parent,
            "isSidechain": self.envelope.get("isSidechain", False),
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": self.stamp,
            "uuid": boundary_uuid,
            "level": "info",
            "compactMetadata": metadata,
            **self._rest_of_envelope(),
        }
        out.append(_jsonl.dump(boundary))
        parent = boundary_uuid
        in_run = set(run)
        for index, (msg, j) in enumerate(zip(self.new, self.matches, strict=True)):
            if index == s:
                rec: JsonObject = {
                    "parentUuid": parent,
                    "isSidechain": self.envelope.get("isSidechain", False),
                    "type": "user",
                    "message": {"role": "user", "content": summary_text},
                    "isVisibleInTranscriptOnly": True,
                    "isCompactSummary": True,
                    "uuid": summary_uuid,
                    "timestamp": self.stamp,
                    **self._rest_of_envelope(),
                }
                out.append(_jsonl.dump(rec))
                parent = summary_uuid
            elif j is not None and index in in_run and self.mode == "append":
                continue  # left in place before the boundary; Claude Code chains it here
            elif j is not None and self.mode == "shrink":
                for i in self.origin[j]:  # the only copy: same uuids, re-linked
                    rec = dict(self.lines[i].obj)
                    if rec.get("parentUuid") != parent:
                        rec["parentUuid"] = parent
                        out.append(_jsonl.dump(rec))
                    else:
                        out.append(self.lines[i].text)
                    parent = str(rec.get("uuid"))
            elif j is not None:  # append, outside the kept run: a copy the model must see
                for i in self.origin[j]:
                    rec = self._copy(self.lines[i].obj, parent)
                    out.append(_jsonl.dump(rec))
                    parent = str(rec.get("uuid"))
            elif msg.role in ("user", "assistant", "tool"):
                self.idless_run = None
                rec = self._rendered(as_agentic(msg), parent)
                out.append(_jsonl.dump(rec))
                parent = str(rec["uuid"])
            # System messages have no place in a session log (the CLI sends its own prompt).
            if self.mode == "append" and run and index == run[-1]:
                # Records after the kept run hang off the summary: Claude Code moves the
                # summary's other children after the run's tail.
                parent = summary_uuid
        body_bytes = nl.join(out) + nl
        if self.mode == "append":
            return _jsonl.with_final_newline(self.t.raw) + body_bytes
        prefix = _jsonl.BOM if self.t.has_bom else b""
        return prefix + body_bytes

    def _rest_of_envelope(self) -> JsonObject:
        return {k: v for k, v in self.envelope.items() if k != "isSidechain"}

    def _copy(self, original: JsonObject, parent: str) -> JsonObject:
        """A record written again (not kept in place): fresh uuid and, for an assistant line, a
        fresh ``message.id`` so Claude Code does not merge it with the original's lines, and its
        usage zeroed: it measured the context before this compaction, and Claude Code takes the
        last assistant usage as the context size (a stale one makes it compact again at once)."""
        rec = dict(original)
        if rec.get("type") != "assistant":
            self.idless_run = None
        rec["uuid"] = _jsonl.stable_uuid(self.session, "copy", str(original.get("uuid")))
        rec["parentUuid"] = parent
        body = rec.get("message")
        if rec.get("type") == "assistant" and isinstance(body, dict):
            # Lines without message.id (an extractor dropped it: hive-mind) get one per run of
            # consecutive assistant lines (one response, as Claude Code writes it): the client
            # merges every assistant line of the same id, undefined included, into one message,
            # results after all the calls (blind check 10, hive-compact).
            if "id" in body:
                key, self.idless_run = str(body["id"]), None
            else:
                key = self.idless_run or "line:" + str(original.get("uuid"))
                self.idless_run = key
            fresh = _jsonl.stable_uuid(self.session, "copy-message", key)
            body = {**body, "id": "msg_" + fresh.replace("-", "")}
            usage = body.get("usage")
            if isinstance(usage, dict):
                body["usage"] = {**usage, **{k: 0 for k in ZEROED_USAGE_KEYS if k in usage}}
            rec["message"] = body
        return rec

    def _rendered(self, msg: Message | AgenticMessage, parent: str) -> JsonObject:
        uid = _jsonl.stable_uuid(self.session, "message", parent, _jsonl.message_text(msg))
        content = content_from_blocks(msg)
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_use" and block.get("name") == _READ_SKILL_TOOL:
                    block["name"] = SKILL_TOOL
        body: JsonObject = {"role": msg.role, "content": content}
        if msg.role == "assistant":
            body = {"id": "msg_" + uid.replace("-", ""), "type": "message", **body}
            body["model"] = "<synthetic>"
        return {
            "parentUuid": parent,
            "isSidechain": self.envelope.get("isSidechain", False),
            "type": msg.role,
            "message": body,
            "uuid": uid,
            "timestamp": self.stamp,
            **self._rest_of_envelope(),
        }


FORMAT = ClaudeCodeFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
