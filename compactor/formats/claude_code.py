"""Claude Code session logs (FORMATS.md §1).

Natural message type: :class:`~compactor.schema.AgenticMessage` (the ``message`` objects are
Anthropic Messages API shapes). Model-visible: ``user`` and ``assistant`` records after the last
``system/compact_boundary``; split assistant lines sharing ``message.id`` are merged into one
message. Everything else (attachments, progress, snapshots, metadata) stays a record only.

Text the CLI injected (``isMeta`` skill bodies, command output, caveats, a previous compaction
summary) is marked ``extra["injected"] = True`` so it is never quoted as the user's own words.
Usage: each assistant message carries the usage of its last line (``<synthetic>`` ones excluded),
prompt = input + cache creation + cache read.

Writing: ``shrink`` keeps session-level metadata records, writes a ``compact_boundary`` and the
summary as an ``isCompactSummary`` user record, then the kept messages' own records re-linked
into one ``parentUuid`` chain. ``append`` keeps the file byte for byte and appends the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compactor.errors import TranscriptError
from compactor.schema import CONTENT_TYPE_KEY, AgenticMessage, Message, content_type

from . import _jsonl
from ._family import check_records, family
from .anthropic import blocks_from_content, content_from_blocks, usage_from
from .base import CompactionInfo, Transcript, WriteMode

__all__ = ["ClaudeCodeFormat"]

_KEEP_METADATA = frozenset({"permission-mode", "mode", "ai-title", "custom-title", "tag"})
_ENVELOPE = ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")
_INJECTED_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "Caveat: The messages below were generated",
    "<system-reminder>",
    "<task-notification>",
    "[Request interrupted by user",
    "This session is being continued from a previous conversation",
)


def _is_boundary(rec: dict[str, Any]) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"


def _injected(rec: dict[str, Any], msg: AgenticMessage) -> bool:
    if rec.get("isMeta") or rec.get("isCompactSummary"):
        return True
    text = "\n".join(b.text or "" for b in msg.blocks if b.type == "user_input_text").lstrip()
    return bool(text) and text.startswith(_INJECTED_PREFIXES)


class ClaudeCodeFormat:
    """``claude-code``: Claude Code session JSONL."""

    name = "claude-code"

    def sniff(self, records: Sequence[Any]) -> bool:
        return any(isinstance(r, dict) and family(r) == self.name for r in records)

    def read(self, path: str, raw: bytes) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        start = 0
        for i, ln in enumerate(lines):
            if _is_boundary(ln.obj):
                start = i + 1
        messages: list[AgenticMessage] = []
        origin: list[list[int]] = []
        by_id: dict[str, int] = {}
        last_line_of: dict[int, dict[str, Any]] = {}
        tool_names: dict[str, str] = {}
        for i in range(start, len(lines)):
            ln = lines[i]
            rec = ln.obj
            kind = rec.get("type")
            if kind not in ("user", "assistant"):
                continue
            body = rec.get("message")
            if not isinstance(body, dict):
                raise TranscriptError(path, ln.number, "message", "must be an object")
            role = body.get("role", kind)
            if not isinstance(role, str):
                raise TranscriptError(
                    path, ln.number, "message.role", f"must be a string, got {role!r}"
                )
            blocks = blocks_from_content(
                path, ln.number, role, body.get("content"), tool_names, "message.content"
            )
            msg_id = body.get("id")
            if kind == "assistant" and isinstance(msg_id, str) and msg_id in by_id:
                idx = by_id[msg_id]
                messages[idx].blocks.extend(blocks)
                origin[idx].append(i)
                last_line_of[idx] = body
                continue
            msg = AgenticMessage(role=role, blocks=blocks)
            if kind == "user":
                if _injected(rec, msg):
                    msg.extra["injected"] = True
                if rec.get("isCompactSummary"):
                    msg.extra[CONTENT_TYPE_KEY] = "summary"
                    msg.extra["compact_summary"] = True
            else:
                if isinstance(msg_id, str):
                    by_id[msg_id] = len(messages)
                last_line_of[len(messages)] = body
            messages.append(msg)
            origin.append([i])
        for idx, body in last_line_of.items():
            if body.get("model") != "<synthetic>":
                messages[idx].usage = usage_from(body.get("usage"))
        return _jsonl.make_transcript(self.name, path, raw, lines, messages, origin, start=start)

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
        lines: list[_jsonl.Line] = transcript.meta["lines"]
        origin: list[list[int]] = transcript.meta["origin"]
        nl = _jsonl.newline_of(transcript.raw)
        conversation = [ln.obj for ln in lines if isinstance(ln.obj.get("uuid"), str)]
        last = next(
            (r for r in reversed(conversation) if r.get("type") in ("user", "assistant")),
            conversation[-1] if conversation else {},
        )
        envelope = {k: last[k] for k in _ENVELOPE if k in last}
        session = str(last.get("sessionId") or "")
        stamp = _jsonl.now_iso(info)
        last_uuid = conversation[-1]["uuid"] if conversation else None

        out: list[bytes] = []
        if mode == "shrink":
            kept: dict[str, bytes] = {}
            for ln in lines:
                kind = ln.obj.get("type")
                if kind in _KEEP_METADATA:
                    kept[str(kind)] = ln.text
            out.extend(kept.values())

        summary_text = next(
            (
                _jsonl.message_text(m)
                for m, j in zip(new_messages, matches, strict=True)
                if j is None and content_type(m) == "summary"
            ),
            "",
        )
        boundary_uuid = _jsonl.stable_uuid(session, "boundary", str(last_uuid), summary_text)
        metadata: dict[str, Any] = {"trigger": info.trigger if info else "auto"}
        metadata["preTokens"] = info.tokens_before if info and info.tokens_before else 0
        if info is not None and info.tokens_after is not None:
            metadata["postTokens"] = info.tokens_after
        boundary: dict[str, Any] = {
            "parentUuid": None,
            "logicalParentUuid": last_uuid,
            **envelope,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": stamp,
            "uuid": boundary_uuid,
            "level": "info",
            "compactMetadata": metadata,
        }
        out.append(_jsonl.dump(boundary))
        parent = boundary_uuid
        for msg, j in zip(new_messages, matches, strict=True):
            if j is None and content_type(msg) == "summary":
                uid = _jsonl.stable_uuid(session, "summary", parent, summary_text)
                rec: dict[str, Any] = {
                    "parentUuid": parent,
                    **envelope,
                    "type": "user",
                    "message": {"role": "user", "content": _jsonl.message_text(msg)},
                    "isVisibleInTranscriptOnly": True,
                    "isCompactSummary": True,
                    "uuid": uid,
                    "timestamp": stamp,
                }
                out.append(_jsonl.dump(rec))
                parent = uid
            elif j is not None:
                for i in origin[j]:
                    rec = dict(lines[i].obj)
                    if mode == "append" or rec.get("parentUuid") != parent:
                        if mode == "append":
                            rec["uuid"] = _jsonl.stable_uuid(session, "copy", str(rec.get("uuid")))
                        rec["parentUuid"] = parent
                        out.append(_jsonl.dump(rec))
                    else:
                        out.append(lines[i].text)
                    parent = str(rec.get("uuid"))
            elif msg.role in ("user", "assistant"):
                uid = _jsonl.stable_uuid(session, "message", parent, _jsonl.message_text(msg))
                body: dict[str, Any] = {"role": msg.role, "content": content_from_blocks(msg)}
                if msg.role == "assistant":
                    body = {"id": "msg_" + uid.replace("-", ""), "type": "message", **body}
                    body["model"] = "<synthetic>"
                rec = {
                    "parentUuid": parent,
                    **envelope,
                    "type": msg.role,
                    "message": body,
                    "uuid": uid,
                    "timestamp": stamp,
                }
                out.append(_jsonl.dump(rec))
                parent = uid
            # System messages have no place in a session log (the CLI sends its own prompt).
        body_bytes = nl.join(out) + nl
        if mode == "append":
            return _jsonl.with_final_newline(transcript.raw) + body_bytes
        prefix = _jsonl.BOM if transcript.raw.startswith(_jsonl.BOM) else b""
        return prefix + body_bytes
