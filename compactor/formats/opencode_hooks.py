"""OpenCode transcripts written by oh-my-opencode's Claude-Code-compatible hooks.

oh-my-opencode (an OpenCode plugin) keeps a JSONL file per session, the ``transcript_path`` it
hands to Claude Code-style hooks, with one record per line (its ``claude-code-hooks``
``transcript.ts``: ``recordUserMessage`` / ``recordAssistantMessage`` / ``recordToolUse`` /
``recordToolResult``):

* ``{"type": "user", "timestamp", "content": str}`` → a user message;
* ``{"type": "assistant", "timestamp", "content": str}`` → an assistant message (the writer has
  it; the files seen hold none: the model's text is not logged);
* ``{"type": "tool_use", "timestamp", "tool_name", "tool_input": {…}}`` → a tool call;
* ``{"type": "tool_result", "timestamp", "tool_name", "tool_input": {…}, "tool_output"}`` → its
  result; ``tool_output`` is an object (``{"output": str}``, with ``agent`` / ``sessionId`` for
  a sub-agent's, ``{}`` for none) or a string. The text the model read is ``output`` (a string
  output as it is; any other object as JSON).

No record carries a call id. A result is paired with the oldest call still open of the same
``tool_name`` and equal ``tool_input``; a failed call's result is logged with an empty
``tool_input``, so a result with ``{}`` that equals no open call is paired with the oldest open
call of its name. A call with no result stays in flight. A result no open call claims is read
as its own call and result (both from its line): nothing it says is lost. The ids are made up
by the reader (``ohc-<line>``) and never written.

Written back (shrink): unchanged records are their own bytes; a changed result (a reduction's
placeholder) keeps its record with ``tool_output`` replaced (its ``output`` in an object, else
the text); other new messages are rendered as these four record shapes. **The summary is
written as a ``user`` record** (the format has no record for it, as cursor and copilot write
theirs): whatever reads the transcript sees it as the first message. Time of added records:
:func:`._jsonl.compaction_time`. No usage is logged: the token count is estimated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._json import JsonObject, JsonValue
from compactor.errors import TranscriptError
from compactor.schema import AgenticMessage, Block, Message

from . import _jsonl
from ._family import check_records
from ._opencode_hooks_records import ASSISTANT, CALL, RECORD_TYPES, USER
from ._opencode_hooks_write import write_records
from .base import CompactionInfo, FormatSpec, Transcript, TypedRecords, WriteMode
from .records import kind_by_type

if TYPE_CHECKING:
    from compactor.io import FileSource

__all__ = ["OpenCodeHooksFormat", "output_text"]

_FOREIGN_KEYS = ("role", "message", "payload", "data", "uuid", "sessionId", "parentUuid")
"""Keys of another format's record (chat, Claude Code, Codex, Copilot): never ours."""
_ID_PREFIX = "ohc-"


def _owns(rec: JsonObject, kind: str) -> bool:
    """One of the four record types, with none of another format's keys."""
    return kind in RECORD_TYPES and not any(k in rec for k in _FOREIGN_KEYS)


def _problem(rec: JsonObject, kind: str | None, owned: bool) -> tuple[str | None, str] | None:
    if owned:
        return None
    return "type", "must be user, assistant, tool_use or tool_result (an OpenCode hook transcript)"


SPEC = FormatSpec(
    name="opencode-hooks",
    help="OpenCode transcripts of oh-my-opencode's Claude Code-compatible hooks",
    detect_order=27,
    list_order=65,
    family="opencode-hooks",
    typed=TypedRecords(_owns, _problem),
    agent_session=True,
    read_tool="read",
    record_kind=kind_by_type("record"),
)


def output_text(output: JsonValue) -> str:
    """The text the model read of a ``tool_output``."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict) and isinstance(output.get("output"), str):
        return str(output["output"])
    if output is None or output == {}:
        return ""
    return _jsonl.dump(output).decode("utf-8")


def _string(path: str, line: int, rec: JsonObject, key: str) -> str:
    value = rec.get(key)
    if key not in rec:
        raise TranscriptError(path, line, key, "missing")
    if not isinstance(value, str):
        raise TranscriptError(path, line, key, "must be a string")
    return value


def _input(path: str, line: int, rec: JsonObject) -> JsonObject:
    value = rec.get("tool_input", {})
    if not isinstance(value, dict):
        raise TranscriptError(path, line, "tool_input", "must be an object")
    return value


def _call(call_id: str, name: str, args: JsonObject) -> AgenticMessage:
    arguments = _jsonl.dump(args).decode("utf-8")
    return AgenticMessage(
        "assistant", [Block("function_tool_call", call_id=call_id, name=name, arguments=arguments)]
    )


class _Pairing:
    """Open calls, oldest first, and which of them a result closes."""

    def __init__(self) -> None:
        self.open: list[tuple[str, str, JsonObject]] = []  # (call id, name, input)

    def opened(self, call_id: str, name: str, args: JsonObject) -> None:
        self.open.append((call_id, name, args))

    def close(self, name: str, args: JsonObject) -> str | None:
        found = next((i for i, (_, n, a) in enumerate(self.open) if n == name and a == args), None)
        if found is None and not args:  # a failed call's result: logged with {}
            found = next((i for i, (_, n, _a) in enumerate(self.open) if n == name), None)
        return None if found is None else self.open.pop(found)[0]


def read_messages(
    path: str, lines: Sequence[_jsonl.Line]
) -> tuple[list[AgenticMessage], list[list[int]]]:
    """The messages of the records and, for each, the index of the line it was read from."""
    pairing = _Pairing()
    messages: list[AgenticMessage] = []
    origin: list[list[int]] = []
    for i, ln in enumerate(lines):
        rec, number = ln.obj, ln.number
        kind = rec.get("type")
        if not isinstance(kind, str):
            continue  # check_records refused it
        if kind in (USER, ASSISTANT):
            text = _string(path, number, rec, "content")
            block = "user_input_text" if kind == USER else "assistant_gen_text"
            msg = AgenticMessage(kind, [Block(block, text)])
            _jsonl.mark_earlier_summary(msg)
            messages.append(msg)
            origin.append([i])
            continue
        name = _string(path, number, rec, "tool_name")
        args = _input(path, number, rec)
        if kind == CALL:
            call_id = f"{_ID_PREFIX}{number}"
            pairing.opened(call_id, name, args)
            messages.append(_call(call_id, name, args))
            origin.append([i])
            continue
        if "tool_output" not in rec:
            raise TranscriptError(path, number, "tool_output", "missing")
        found = pairing.close(name, args)
        if found is None:  # no open call claims it: read as its own call and result
            found = f"{_ID_PREFIX}{number}"
            messages.append(_call(found, name, args))
            origin.append([i])
        result = Block("function_tool_result", call_id=found, name=name)
        result.content = [Block("user_input_text", output_text(rec["tool_output"]))]
        messages.append(AgenticMessage("user", [result]))
        origin.append([i])
    return messages, origin


class OpenCodeHooksFormat:
    """``opencode-hooks``: oh-my-opencode's Claude Code-compatible transcript."""

    spec = SPEC
    name = SPEC.name

    def sniff(self, records: Sequence[JsonValue]) -> bool:
        return any(
            isinstance(r, dict) and isinstance(r.get("type"), str) and _owns(r, r["type"])
            for r in records
        )

    def read(self, path: str, raw: bytes | FileSource) -> Transcript:
        lines = _jsonl.parse_lines(path, raw)
        check_records(path, self.name, lines)
        messages, origin = read_messages(path, lines)
        return _jsonl.make_transcript(self.name, path, raw, lines, messages, origin=origin)

    def write(
        self,
        transcript: Transcript,
        new_messages: Sequence[Message | AgenticMessage],
        *,
        mode: WriteMode = "shrink",
        info: CompactionInfo | None = None,
    ) -> bytes:
        return write_records(transcript, new_messages, mode, info)


FORMAT = OpenCodeHooksFormat()
"""The format this module declares (:data:`SPEC`); the registry collects it."""
