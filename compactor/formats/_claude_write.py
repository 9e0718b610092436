"""A compaction written as Claude Code records (:mod:`.claude_code`, "Writing").

:class:`Writer` puts the ``compact_boundary`` and the summary record (with the session's
envelope and the input's newest time), lists the kept messages in ``preservedSegment`` /
``preservedMessages``, and writes the rest: ``shrink`` keeps the session-level metadata and
re-links the kept records into one chain; ``append`` keeps the file byte for byte, leaves the
kept messages in place and writes what it cannot leave there as copies with fresh uuids and
message ids and their usage zeroed. Apart from the reader: the two share only what a record is
(:mod:`._claude_records`).
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._json import JsonObject, JsonValue
from compactor.schema import AgenticMessage, Message, content_type

from . import _jsonl
from ._claude_history import in_place
from ._claude_records import MESSAGE_TYPES, READ_SKILL_TOOL, SKILL_TOOL, is_unknown_metadata
from ._convert import as_agentic
from .anthropic import content_from_blocks
from .base import CompactionInfo, Transcript, WriteMode
from .patching import ZEROED_USAGE_KEYS

KEEP_METADATA = frozenset(
    {"permission-mode", "mode", "ai-title", "custom-title", "tag"}
    | {"agent-name", "agent-color", "agent-setting", "worktree-state", "pr-link"}
)
"""Metadata a shrunk session keeps (the latest of each type): its name, title, mode, tags, the
agent it runs as and its worktree and pull request (2.1.158+ write the last five)."""
ENVELOPE = (
    "isSidechain",
    "userType",
    "entrypoint",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "slug",
)


class Writer:
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
            if ln.obj.get("type") in MESSAGE_TYPES
            and isinstance(ln.obj.get("uuid"), str)
            and not ln.obj.get("isSidechain")
        ]
        self.envelope: JsonObject = {}
        for key in ENVELOPE:
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
                if kind in KEEP_METADATA or is_unknown_metadata(ln.obj, kind):
                    kept[str(kind) if kind in KEEP_METADATA else i] = (i, ln.text)
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
        return _jsonl.file_of(self.t, out, self.mode)

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
                if block.get("type") == "tool_use" and block.get("name") == READ_SKILL_TOOL:
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
