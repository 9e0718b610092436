"""GitHub Copilot CLI session logs (``~/.copilot/session-state/<id>/events.jsonl``).

One event per line: ``{"type", "data": {...}, "id", "timestamp", "parentId"}``; ``parentId`` is
the id of the event before it (null for the first), so the events form one chain. The shapes
come from the ``session-events.schema.json`` the CLI ships (as read by public parsers of it):

* ``user.message`` {``content``, ``transformedContent``?, ``attachments``?, ``source``?, …} → a
  user message (``content``: the user's words; a ``source`` of ``skill-…``: injected); what
  ``transformedContent`` (the text the model was sent) adds around them is read as a message of
  its own marked injected: counted, never quoted as the user's;
* ``assistant.message`` {``messageId``, ``content``, ``toolRequests``: [{``toolCallId``,
  ``name``, ``arguments`` (any JSON), ``type``?}], ``reasoningText``?, ``outputTokens``?, …} →
  an assistant message: its text, reasoning and one tool call per request;
* ``tool.execution_complete`` {``toolCallId``, ``success``, ``result`` {``content``,
  ``detailedContent``?}, ``error``?, …} → the call's result, paired by ``toolCallId``
  (``success: false`` is a failed call);
* ``system.message`` {``content``} → a system message;
* ``permission.completed`` {``toolCallId``, ``result`` {``kind``}} whose ``kind`` starts with
  ``denied`` (``denied-interactively-by-user``, ``denied-by-rules``, …) for a call that has no
  ``tool.execution_complete`` → the call's result: the call never ran (blind check 74 W1: a
  denied ``mkdir`` was listed as in flight, "run them again"). A user's denial reads as the
  user's rejection (:mod:`compactor.rejections`, where Claude Code's rejected tool use goes),
  any other as a failed call; the event is that result's own record, written back as it was;
* ``abort`` (``reason``: ``user_initiated``, …) → the message before it ends a turn the user
  aborted (``TURN_ABORTED_KEY``, as Codex's ``turn_aborted`` event), the event kept in place.

Every other event is housekeeping, kept in place and never read as conversation:
``session.*`` (start, resume, info, model_change, plan_changed, usage_checkpoint,
compaction_start / compaction_complete, …), ``hook.*``, ``permission.*``, ``assistant.turn_*``,
``tool.execution_start`` (the request already names the call) and any type this
reader does not know (one warning per type). Events that carry an ``agentId`` come from a
sub-agent (the schema: "absent for events from the root/main agent"): the parent saw only its
tool call's result, so they are kept as housekeeping too. Copilot keeps no per-request context
size: the token count is estimated.

Written back (shrink): unchanged events are their own bytes, housekeeping stays in place (a
``tool.execution_start`` of a call the new history no longer holds goes with it), and the
``parentId`` chain is re-linked where an event before it was left out. **The summary is written
as a ``user.message``**: Copilot CLI has its own ``session.compaction_complete`` event (with
``summaryContent``, ``preCompactionTokens`` / ``postCompactionTokens``), but whether a resumed
session rebuilds its history from it is not documented, while ``user.message`` events are
replayed as the conversation — so the summary certainly reaches the model. A Copilot
compaction already in the file is kept as housekeeping: the history it replaced is still read
(counted too high rather than too low). ``--append`` is not offered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.rejections import REJECTED_BY_USER
from compactor.schema import TURN_ABORTED_KEY, AgenticMessage, Block, Message

from . import _jsonl
from ._copilot_events import ASSISTANT, RESULT, START, SYSTEM, USER
from ._copilot_write import write_events
from ._family import check_records, is_untyped_metadata, untyped_metadata
from ._unknown_types import refuse_outnumbered, tally
from .base import CompactionInfo, FormatSpec, Transcript, TypedRecords, WriteMode
from .records import kind_by_type

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = ["CopilotFormat"]

MESSAGE_TYPES = frozenset({USER, ASSISTANT, RESULT, SYSTEM})
"""Events that carry the conversation the model saw."""
KNOWN_TYPES = MESSAGE_TYPES | {
    START,
    "abort",
    "assistant.intent",
    "assistant.message_delta",
    "assistant.message_start",
    "assistant.reasoning",
    "assistant.reasoning_delta",
    "assistant.streaming_delta",
    "assistant.turn_end",
    "assistant.turn_start",
    "assistant.usage",
    "auto_mode_switch.completed",
    "auto_mode_switch.requested",
    "capabilities.changed",
    "command.completed",
    "command.execute",
    "command.queued",
    "commands.changed",
    "elicitation.completed",
    "elicitation.requested",
    "exit_plan_mode.completed",
    "exit_plan_mode.requested",
    "external_tool.completed",
    "external_tool.requested",
    "hook.end",
    "hook.start",
    "mcp.oauth_completed",
    "mcp.oauth_required",
    "model.call_failure",
    "pending_messages.modified",
    "permission.completed",
    "permission.requested",
    "sampling.completed",
    "sampling.requested",
    "skill.invoked",
    "system.notification",
    "tool.execution_partial_result",
    "tool.execution_progress",
    "tool.user_requested",
    "user_input.completed",
    "user_input.requested",
}
"""Events this reader knows (the schema's; others with a ``session.`` or ``subagent.`` prefix
too): housekeeping but for :data:`MESSAGE_TYPES`."""
_KNOWN_PREFIXES = ("session.", "subagent.")
INJECTED_SOURCES = ("skill-",)
"""``user.message.data.source`` of a message the CLI wrote, not the user (the schema: "skill-pdf"
for skill-injected messages hidden from the user's timeline)."""


def _owns(rec: JsonObject, kind: str) -> bool:
    """A Copilot event: a dotted type (or ``abort``) and a ``data`` object."""
    return ("." in kind or kind == "abort") and isinstance(rec.get("data"), dict)


def _problem(rec: JsonObject, kind: str | None, owned: bool) -> tuple[str | None, str] | None:
    if owned or is_untyped_metadata(rec):  # a tool's own header line: kept, with a warning
        return None
    if kind is not None and "." in kind:
        return "data", "must be an object (a Copilot event's payload)"
    return "type", "must be a Copilot event type (user.message, assistant.message, …)"


def _is_message(rec: JsonObject) -> bool:
    return rec.get("type") in MESSAGE_TYPES and "agentId" not in rec


_PERMISSION = "permission.completed"


def _denial(rec: JsonObject) -> tuple[str, str] | None:
    """The call id and the ``result.kind`` of a main agent's ``permission.completed`` event that
    denied its call (None: not such an event)."""
    data = rec.get("data")
    if rec.get("type") != _PERMISSION or "agentId" in rec or not isinstance(data, dict):
        return None
    call, result = data.get("toolCallId"), data.get("result")
    kind = result.get("kind") if isinstance(result, dict) else None
    if not isinstance(call, str) or not isinstance(kind, str) or not kind.startswith("denied"):
        return None
    return call, kind


def _is_message_record(rec: JsonObject) -> bool:
    """A record the reader may read as a message (a denial is one when its call has no result)."""
    return _is_message(rec) or _denial(rec) is not None


def _denied_result(call_id: str, kind: str, name: str | None) -> AgenticMessage:
    """The result of a call whose permission was denied: it never ran. A user's denial in the
    words of a rejection (:func:`compactor.rejections.is_rejection`), any other a failure."""
    if "user" in kind:
        text = f"{REJECTED_BY_USER}: permission for this call was denied ({kind}); it did not run."
    else:
        text = f"Permission for this call was denied ({kind}); it did not run."
    result = Block("function_tool_result", call_id=call_id, name=name)
    result.content, result.is_error = [Block("user_input_text", text)], True
    return AgenticMessage("user", [result])


SPEC = FormatSpec(
    name="copilot",
    help="GitHub Copilot CLI session logs (~/.copilot/session-state/*/events.jsonl)",
    detect_order=25,
    list_order=60,
    family="copilot",
    typed=TypedRecords(_owns, _problem),
    agent_session=True,
    read_tool="view",
    record_kind=kind_by_type("event"),
    is_message_record=_is_message_record,
)


def _text(value: JsonValue) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def _call_id(rec: JsonObject) -> JsonValue:
    data = rec.get("data")
    return data.get("toolCallId") if isinstance(data, dict) else None


def _result_text(data: JsonObject) -> str:
    """What the model read of a result: ``result.content`` (else the error's message)."""
    result = data.get("result")
    if isinstance(result, dict) and "content" in result:
        return _text(result.get("content"))
    if isinstance(result, str):
        return result
    error = data.get("error")
    if isinstance(error, dict):
        return _text(error.get("message", error))
    return _text(error)


def _injected(data: JsonObject) -> str:
    """What a ``user.message``'s ``transformedContent`` (the text the model was sent: the
    user's words wrapped, with timestamps and other augmentations) adds to its ``content``."""
    sent, typed = data.get("transformedContent"), data.get("content")
    if not isinstance(sent, str) or not isinstance(typed, str) or sent.strip() == typed.strip():
        return ""
    at = sent.find(typed) if typed else -1
    if at < 0:
        return sent.strip()  # not found in it: all of it was sent (the words counted twice)
    parts = (sent[:at].strip(), sent[at + len(typed) :].strip())
    return "\n".join(p for p in parts if p)


def _messages(
    path: str, line: int, kind: str, data: JsonObject, names: dict[str, str]
) -> list[AgenticMessage]:
    """The messages of one event: a user message whose ``transformedContent`` added context
    is two, the context (marked injected) and the user's words."""
    msg = _message(path, line, kind, data, names)
    source = data.get("source")
    if kind == USER and isinstance(source, str) and source.startswith(INJECTED_SOURCES):
        msg.extra["injected"] = True  # the CLI's, hidden from the user's timeline
    context = _injected(data) if kind == USER else ""
    if not context:
        return [msg]
    added = AgenticMessage("user", [Block("user_input_text", context)])
    added.extra["injected"] = True
    return [added, msg]


def _message(
    path: str, line: int, kind: str, data: JsonObject, names: dict[str, str]
) -> AgenticMessage:
    if kind in (USER, SYSTEM):
        content = data.get("content")
        if not isinstance(content, str):
            raise TranscriptError(path, line, "data.content", "must be a string")
        return AgenticMessage(
            "user" if kind == USER else "system", [Block("user_input_text", content)]
        )
    if kind == RESULT:
        call_id = data.get("toolCallId")
        if not isinstance(call_id, str):
            raise TranscriptError(path, line, "data.toolCallId", "must be a string")
        text = Block("user_input_text", _result_text(data))
        failed = data.get("success") is False
        result = Block("function_tool_result", call_id=call_id, name=names.get(call_id))
        result.content, result.is_error = [text], failed
        return AgenticMessage("user", [result])
    blocks: list[Block] = []
    reasoning = data.get("reasoningText")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(Block("reasoning", reasoning))
    content = data.get("content")
    if isinstance(content, str) and content:
        blocks.append(Block("assistant_gen_text", content))
    requests = data.get("toolRequests")
    if requests is not None and not isinstance(requests, list):
        raise TranscriptError(path, line, "data.toolRequests", "must be a list")
    for req in requests or []:
        if not isinstance(req, dict) or not isinstance(req.get("toolCallId"), str):
            raise TranscriptError(
                path, line, "data.toolRequests", "each request must have a string toolCallId"
            )
        call_id, name = str(req["toolCallId"]), str(req.get("name") or "")
        names[call_id] = name
        args = req.get("arguments")
        arguments = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
        blocks.append(Block("function_tool_call", call_id=call_id, name=name, arguments=arguments))
    return AgenticMessage("assistant", blocks)


def _outnumbered(first: str, unread: int, kinds: list[str], spoken: int) -> str:
    """Events of types this reader does not know that outnumber the events it reads as messages
    are a Copilot CLI of another shape (renamed message events): refused at the first of them,
    never read as a nearly empty history (the misread guard, :mod:`.misread`, for events)."""
    return (
        f"{unread} events of types copilot does not read ({', '.join(kinds[:5])}) outnumber the "
        f"{spoken} it reads as messages ({first!r} here): a Copilot CLI log of another shape; "
        "not read as a nearly empty history"
    )


class CopilotFormat:
    """``copilot``: GitHub Copilot CLI ``events.jsonl``."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        return any(
            isinstance(r, dict)
            and isinstance(r.get("type"), str)
            and (r["type"] in MESSAGE_TYPES or r["type"] == "session.start")
            and isinstance(r.get("data"), dict)
            for r in records
        )

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        names: dict[str, str] = {}
        messages: list[AgenticMessage] = []
        origin: list[list[int]] = []
        unknown: list[tuple[str, int]] = []
        answered = {
            call
            for ln in lines
            if ln.obj.get("type") == RESULT and isinstance(call := _call_id(ln.obj), str)
        }
        for i, ln in enumerate(lines):
            rec = ln.obj
            kind = rec.get("type")
            if not isinstance(kind, str):
                continue  # untyped metadata (check_records let it through)
            if _is_message(rec):
                data = rec["data"]
                assert isinstance(data, dict)  # _owns
                for msg in _messages(path, ln.number, kind, data, names):
                    _jsonl.mark_earlier_summary(msg)
                    messages.append(msg)
                    origin.append([i])
            elif (denied := _denial(rec)) is not None:
                call, why = denied
                if call in names and call not in answered:  # (blind check 74 W1)
                    answered.add(call)
                    messages.append(_denied_result(call, why, names.get(call)))
                    origin.append([i])
            elif kind == "abort" and messages and "agentId" not in rec:
                data = rec["data"]
                assert isinstance(data, dict)  # _owns
                messages[-1].extra[TURN_ABORTED_KEY] = _text(data.get("reason")) or "aborted"
            elif kind not in KNOWN_TYPES and not kind.startswith(_KNOWN_PREFIXES):
                unknown.append((kind, ln.number))
        found, spoken = tally(unknown), len({where[0] for where in origin})
        refuse_outnumbered(path, found, spoken, "type", _outnumbered)
        transcript = _jsonl.make_transcript(self.name, path, raw, lines, messages, origin=origin)
        transcript.meta.unknown = found + untyped_metadata(lines)
        return transcript

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        return write_events(transcript, new_messages, mode, info)


FORMAT = CopilotFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
