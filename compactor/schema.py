"""Message types and the helpers every part of the core uses (SPEC §1).

Two message shapes exist and the core is generic over them (``M``):

* :class:`Message` — chat-completions style (role, content, parts, tool calls, ...).
* :class:`AgenticMessage` — content-block style (Anthropic / Responses API shape).

The helpers at the bottom (role tests, user/assistant text, building messages of the same type,
the content-type marker) live here once; other modules must not re-implement them. How the
messages are stored and copied cheaply is :mod:`compactor._slots`; JSON held in strings is parsed
by :mod:`compactor.jsontext` (both re-exported here).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, overload

from compactor._json import JsonObject
from compactor._slots import (
    SHARED_EMPTY_CALLS,
    SHARED_EMPTY_DICT,
    SHARED_EMPTY_LIST,
    deepcopy_slots,
)
from compactor.jsontext import MAX_JSON_DEPTH, json_deeper_than, loads_json

if TYPE_CHECKING:
    from typing_extensions import TypeIs

__all__ = [
    "CALL_ENDS_KEY",
    "CONTENT_TYPE_KEY",
    "CWD_KEY",
    "EARLIER_CALLS_KEY",
    "HARNESS_TEXT_KEY",
    "HEAD_MOVED_KEY",
    "INTERRUPTED_BEFORE_KEY",
    "MAX_JSON_DEPTH",
    "MEDIA_BLOCK_TYPES",
    "MEDIA_PART_TYPES",
    "MID_TURN_KEY",
    "PERMISSION_MODE_KEY",
    "PROCESS_KEY",
    "REASONING_NOTES_KEY",
    "SHARED_EMPTY_CALLS",
    "SHARED_EMPTY_DICT",
    "SHARED_EMPTY_LIST",
    "SKILL_BODY_KEY",
    "STILL_QUEUED_KEY",
    "STILL_QUEUED_NOTE",
    "SUBAGENT_TOOLS_KEY",
    "TOOL_OUTPUT_KEY",
    "TURN_ABORTED_KEY",
    "AgentState",
    "AgenticMessage",
    "Block",
    "ContentType",
    "HistoryView",
    "M",
    "Message",
    "Part",
    "ToolCall",
    "ToolInfo",
    "Usage",
    "assistant_text",
    "blocks_text",
    "content_type",
    "is_agentic",
    "is_internal",
    "is_system",
    "is_tool_result",
    "is_user",
    "json_deeper_than",
    "loads_json",
    "make_assistant",
    "make_system",
    "make_user",
    "media_placeholder",
    "message_kind",
    "parts_text",
    "split_system",
    "user_text",
    "with_content_type",
]

CONTENT_TYPE_KEY = "_compactor_content_type"
"""Key in ``extra`` that marks messages the compactor wrote itself (SPEC §1)."""

CALL_ENDS_KEY = "_compactor_call_ends"
"""Key in ``extra`` of a message with tool calls: ``{call id: {"exit_code": int | None,
"output": str}}`` for calls the harness recorded as ended only in an event (Codex's
``event_msg/exec_command_end``), never as a result item. Read by the summarizer (the call is
not in flight); never written back (the resumed client sees the file as it was)."""

TURN_ABORTED_KEY = "_compactor_turn_aborted"
"""Key in ``extra`` of the last message before a turn the user aborted, when the harness recorded
the abort only as an event (Codex's ``event_msg/turn_aborted``): its reason (``interrupted``).
Read by the summarizer (the turn was interrupted); never written back."""

REASONING_NOTES_KEY = "_compactor_reasoning_notes"
"""Key in ``extra`` of a history's last message: the readable summaries of the model's reasoning
in the current turn (after the last user message), in order (Codex's ``reasoning`` items'
``summary_text``; never ``encrypted_content``). Read by the summarizer (the agent's working notes
of a turn that ended mid-work, blind check 48 N1); never written back."""

EARLIER_CALLS_KEY = "_compactor_earlier_calls"
"""Key in ``extra`` of the first message of a history a harness's own compaction started (a Codex
``compacted`` record): ``{"changed": [paths], "said": text}``, the files the calls before it
changed and their arguments, cut short (the summarizer no longer sees those calls). Never
written back."""

CWD_KEY = "_compactor_cwd"
"""Key in ``extra`` of a message with tool calls: the directory the harness recorded its calls
run in (Claude Code's record ``cwd``, Codex's latest ``turn_context.cwd``). Read by the
summarizer (a relative path in a call is resolved against it); never written back."""

HEAD_MOVED_KEY = "_compactor_head_moved"
"""Key in ``extra`` of the first message after a harness's snapshot of the repository found its
HEAD at another commit than the snapshot before (Codex's ``ghost_snapshot`` items:
``ghost_commit.parent``): ``[old, new]`` (old ``""``: no commit yet). Commits the user made
between turns show only there. Read by the summarizer (a ``git status`` printed before is
dated, blind check 69 N4); never written back."""

PROCESS_KEY = "_compactor_cli_process"
"""Key in ``extra``: the id of the agent CLI process that wrote the message's record (Claude
Code's ``sessionId``, which a restart or ``--resume`` changes), set only when a file holds more
than one. A background shell ends with its process. Never written back."""

TOOL_OUTPUT_KEY = "_compactor_tool_output"
"""Key in ``extra`` of a tool-result message: ``{call id: output}`` for a result whose visible
text is a bare stub ("ok", empty) while the harness recorded the command's real output beside it
(Claude Code's ``toolUseResult`` ``stdout``/``stderr``, BENCH49 W1). Read by the summarizer in the
stub's place; never written back."""

PERMISSION_MODE_KEY = "_compactor_permission_mode"
"""Key in ``extra`` of a history's last message: the permission mode the session was last in
(Claude Code's ``permission-mode`` records and the ``permissionMode`` of its user records:
``plan``, ``default``, ``acceptEdits``, ...). Read by the summarizer (a session in ``plan`` mode
must present its plan for approval before editing); never written back."""

SIDECHAIN_FILE_KEY = "_compactor_sidechain_file"
"""Key in ``extra`` of a history's first message: every record of the file is a sub-agent's
(Claude Code's ``agent-*.jsonl``, each record ``isSidechain``), so its first user message is the
task the parent agent gave it, not the user's words, and a file without one holds no task at
all (blind check 77 N1). Read by the summarizer; never written back."""

HARNESS_TEXT_KEY = "_compactor_harness_text"
"""Key in ``extra`` of a tool-result record's message whose text blocks the harness wrote beside
the results (Claude Code's "Tool loaded."; blind check 60 W2): never the user's words."""

STILL_QUEUED_KEY = "_compactor_still_queued"
"""Key in ``extra`` of a user message read from a prompt the user typed while the agent worked
that was still queued when the session ended (Claude Code's ``queue-operation`` ``enqueue``
never dequeued nor removed; blind check 39): the user's latest words, never delivered to the
model. Read by the summarizer; the message has no record of its own and is never written."""

MID_TURN_KEY = "_compactor_mid_turn"
"""Key in ``extra`` of a user message Codex delivered into a running turn (typed while the agent
worked; no turn record before it): a note to that turn's request. Read by the summarizer."""

STILL_QUEUED_NOTE = (
    "typed while the agent worked; still queued, not yet delivered when the session ended"
)
"""What a summary says beside such a message (sections 1 and 6)."""

INTERRUPTED_BEFORE_KEY = "_compactor_interrupted_before"
"""Key in ``extra`` of the summary of a harness's own compaction: the last user turn before the
boundary was interrupted by the user (``[Request interrupted by user]``), so the work that
summary lists as pending was the work the user stopped. Read by the summarizer; never written
back."""

SUBAGENT_TOOLS_KEY = "_compactor_subagent_tools"
"""Key in ``extra`` of a message with sub-agent calls (Claude Code's ``Task``): ``{call id: [the
tool names its sub-agent called]}`` for a sub-agent whose conversation the file holds inline
(1.0.x's ``isSidechain`` records, left out of the main history). Read by the summarizer (a
sub-agent seen only reading wrote no file: blind check 68, W4); never written back."""

SKILL_BODY_KEY = "source_tool_use_id"
"""Key in ``extra`` of a message carrying the text a skill-tool call loaded (the call's id).

Claude Code answers its skill tool with "Launching skill: NAME" and sends the skill itself as
a separate user message that names the call; PreserveSkills keeps that body (SPEC §5.3).
"""

ContentType = Literal["summary", "skills"]

MEDIA_PART_TYPES = frozenset({"image_url", "audio_url", "video_url", "file_url"})
MEDIA_BLOCK_TYPES = frozenset(
    {
        "user_input_image",
        "user_input_audio",
        "user_input_video",
        "user_input_file",
        "assistant_gen_image",
        "assistant_gen_audio",
        "assistant_gen_video",
    }
)


@dataclass(slots=True)
class Usage:
    """Token usage reported by a provider for one model call."""

    __deepcopy__ = deepcopy_slots

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


@dataclass(slots=True)
class Part:
    """One part of a multi-part chat message: ``text``, ``image_url``, ``reasoning``, ...

    A part a reader does not model (``input_text``, ``refusal``, ``input_audio``, a text part with
    more keys than ``type`` and ``text``) keeps the object it was read from in ``raw``: a part
    with text in it is a ``text`` part (so it is counted, summarized and quoted like one), and a
    writer puts ``raw`` back as it was unless the text was changed.
    """

    __deepcopy__ = deepcopy_slots

    type: str
    text: str | None = None
    url: str | None = None
    raw: JsonObject | None = None


@dataclass(slots=True)
class ToolCall:
    """A function call made by the assistant; ``arguments`` is a JSON string."""

    __deepcopy__ = deepcopy_slots

    id: str
    name: str
    arguments: str = ""


@dataclass(slots=True)
class Message:
    """A chat-completions style message (``role`` is system, user, assistant or tool)."""

    __deepcopy__ = deepcopy_slots

    role: str
    content: str = ""
    parts: list[Part] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    name: str | None = None
    reasoning_content: str | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    extra: JsonObject = field(default_factory=dict)


@dataclass(slots=True)
class Block:
    """One content block of an :class:`AgenticMessage`.

    ``type`` is one of ``user_input_text``, ``user_input_image|audio|video|file``,
    ``assistant_gen_text``, ``assistant_gen_image|audio|video``, ``reasoning``,
    ``function_tool_call`` (``call_id``, ``name``, ``arguments``) or ``function_tool_result``
    (``call_id``, ``name``, ``content``: a list of blocks, ``is_error``: the tool reported a
    failure, as Anthropic's ``tool_result.is_error``).

    A block a reader does not model in full (Anthropic ``document``, ``server_tool_use``,
    ``web_search_tool_result``, a thinking block's signature, ...) keeps the object it was read
    from in ``raw``; its text (or a ``[type]`` placeholder) is in ``text`` of a text block, so it
    is counted and summarized, and a writer puts ``raw`` back as it was unless the text changed.
    """

    __deepcopy__ = deepcopy_slots

    type: str
    text: str | None = None
    url: str | None = None
    call_id: str | None = None
    name: str | None = None
    arguments: str | None = None
    content: list[Block] = field(default_factory=list)
    is_error: bool = False
    raw: JsonObject | None = None


@dataclass(slots=True)
class AgenticMessage:
    """A content-block message; tool results travel in user-role messages."""

    __deepcopy__ = deepcopy_slots

    role: str
    blocks: list[Block] = field(default_factory=list)
    usage: Usage | None = None
    extra: JsonObject = field(default_factory=dict)


M = TypeVar("M", Message, AgenticMessage)


@dataclass(slots=True)
class ToolInfo:
    """A tool definition visible to the agent (counted by the token counter)."""

    __deepcopy__ = deepcopy_slots

    name: str
    description: str = ""
    parameters: JsonObject = field(default_factory=dict)


@dataclass(slots=True)
class AgentState(Generic[M]):
    """What the middleware sees before a model call: the history and the tools."""

    messages: list[M]
    tools: list[ToolInfo] = field(default_factory=list)

    def copy(self) -> AgentState[M]:
        """A deep copy, so callbacks and events can never change the caller's state."""
        return AgentState(messages=copy.deepcopy(self.messages), tools=copy.deepcopy(self.tools))


class HistoryView(Sequence[M]):
    """A read-only view of a history, for code outside the pipeline (event sinks).

    Its length costs nothing; a message is deep-copied when it is read (by index, slice or
    iteration), so a consumer can never change the history it was shown, and the pipeline does
    not copy a 60 MB history for a sink that only counts it. Equal to any sequence of equal
    messages (a list included).
    """

    __slots__ = ("_items",)

    def __init__(self, items: Sequence[M]) -> None:
        self._items: tuple[M, ...] = tuple(items)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> M: ...

    @overload
    def __getitem__(self, index: slice) -> list[M]: ...

    def __getitem__(self, index: int | slice) -> M | list[M]:
        if isinstance(index, slice):
            return copy.deepcopy(list(self._items[index]))
        return copy.deepcopy(self._items[index])

    def __iter__(self) -> Iterator[M]:
        for item in self._items:
            yield copy.deepcopy(item)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HistoryView):
            return self._items == other._items
        if isinstance(other, Sequence) and not isinstance(other, str | bytes):
            return len(other) == len(self._items) and all(
                a == b for a, b in zip(self._items, other, strict=True)
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"HistoryView({len(self._items)} messages)"


# --------------------------------------------------------------------------------------------------
# Helpers (SPEC §1): one place, used by every module.


def split_system(messages: list[M]) -> tuple[list[M], list[M]]:
    """(leading contiguous system messages, the rest) — SPEC §4."""
    i = 0
    while i < len(messages) and messages[i].role == "system":
        i += 1
    return messages[:i], messages[i:]


def is_system(msg: Message | AgenticMessage) -> bool:
    return msg.role == "system"


def is_user(msg: Message | AgenticMessage) -> bool:
    return msg.role == "user"


def is_tool_result(msg: Message | AgenticMessage) -> bool:
    """A chat ``tool`` message, or an agentic user message made only of tool results."""
    if isinstance(msg, Message):
        return msg.role == "tool"
    return (
        msg.role == "user"
        and bool(msg.blocks)
        and all(b.type == "function_tool_result" for b in msg.blocks)
    )


def user_text(msg: Message | AgenticMessage) -> str:
    """Text of a user message: text parts joined with ``\\n``, else ``content``.

    Agentic: ``user_input_text`` blocks joined with ``\\n``.
    """
    if type(msg) is Message and not msg.parts:  # most messages (a million reads on tiny)
        return msg.content
    if isinstance(msg, Message):
        texts = [p.text or "" for p in msg.parts if p.type == "text"]
        return "\n".join(texts) if texts else msg.content
    if HARNESS_TEXT_KEY in msg.extra:  # text the harness put beside tool results
        return ""
    return "\n".join(b.text or "" for b in msg.blocks if b.type == "user_input_text")


def assistant_text(msg: Message | AgenticMessage) -> str:
    """Text of an assistant reply: non-empty text parts joined with ``\\n``, else ``content``.

    Agentic: ``assistant_gen_text`` blocks joined. Reasoning is never included.
    """
    if isinstance(msg, Message):
        texts = [p.text for p in msg.parts if p.type == "text" and p.text]
        return "\n".join(texts) if texts else msg.content
    return "\n".join(b.text or "" for b in msg.blocks if b.type == "assistant_gen_text")


def media_placeholder(kind: str) -> str:
    """The text that stands for a media part or block: ``image_url`` / ``user_input_image`` /
    ``assistant_gen_image`` → ``[image]``."""
    return f"[{kind.removesuffix('_url').rsplit('_', 1)[-1]}]"


def parts_text(msg: Message) -> str:
    """A message as plain text: its non-empty text parts, each media part as its placeholder,
    joined with ``\\n``; ``content`` when it has neither (what a text-only server is sent)."""
    texts: list[str] = []
    for part in msg.parts:
        if part.type == "text" and part.text:
            texts.append(part.text)
        elif part.type in MEDIA_PART_TYPES or (part.text is None and part.raw is not None):
            texts.append(media_placeholder(part.type))
    return "\n".join(texts) if texts else msg.content


def blocks_text(blocks: list[Block]) -> str:
    """Agentic blocks as plain text: user and assistant text, media as placeholders, a tool
    result's own blocks (recursively), joined with ``\\n``; tool calls and reasoning left out."""
    texts: list[str] = []
    for block in blocks:
        if block.type in ("user_input_text", "assistant_gen_text") and block.text:
            texts.append(block.text)
        elif block.type in MEDIA_BLOCK_TYPES:
            texts.append(media_placeholder(block.type))
        elif block.type == "function_tool_result":
            texts.append(blocks_text(block.content))
    return "\n".join(texts)


def message_kind(messages: list[M] | list[Message] | list[AgenticMessage]) -> type[Any]:
    """The message type of a history (``Message`` for an empty one)."""
    for m in messages:
        return type(m)
    return Message


def is_agentic(
    messages: Sequence[Message] | Sequence[AgenticMessage],
) -> TypeIs[Sequence[AgenticMessage]]:
    """A parsed history's type from its first message (one history holds one type), so a
    generic step can be called with it: the union of the two lists binds no ``M``."""
    return bool(messages) and isinstance(messages[0], AgenticMessage)


def make_system(kind: type[M], text: str) -> M:
    """A new system message of type ``kind``."""
    if issubclass(kind, AgenticMessage):
        return AgenticMessage(role="system", blocks=[Block("user_input_text", text)])
    return Message(role="system", content=text)


def make_user(kind: type[M], text: str) -> M:
    """A new user message of type ``kind``."""
    if issubclass(kind, AgenticMessage):
        return AgenticMessage(role="user", blocks=[Block("user_input_text", text)])
    return Message(role="user", content=text)


def make_assistant(kind: type[M], text: str, usage: Usage | None = None) -> M:
    """A new assistant message of type ``kind``."""
    if issubclass(kind, AgenticMessage):
        blocks = [Block("assistant_gen_text", text)]
        return AgenticMessage(role="assistant", blocks=blocks, usage=usage)
    return Message(role="assistant", content=text, usage=usage)


def content_type(msg: Message | AgenticMessage) -> str | None:
    """The compactor content-type marker (``"summary"`` / ``"skills"``) or None."""
    value = msg.extra.get(CONTENT_TYPE_KEY)
    return value if isinstance(value, str) else None


def with_content_type(msg: M, kind: ContentType) -> M:
    """Set the content-type marker on ``msg`` (in place) and return it."""
    msg.extra[CONTENT_TYPE_KEY] = kind
    return msg


def is_internal(msg: Message | AgenticMessage) -> bool:
    """Messages written by the compactor itself; never quoted back as user messages."""
    return content_type(msg) is not None
