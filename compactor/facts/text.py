"""Plain text and the message views every fact extractor reads (see :mod:`compactor.facts`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from compactor._json import JsonObject, JsonValue
from compactor._util import lazy_pattern
from compactor.formats.cli_errors import CLI_ERROR_KEY, CLI_NOOP_KEY
from compactor.formats.harness_asks import harness_ask_tag
from compactor.formats.notices import CLAUDE_INJECTED, TEAMMATE_TAG, after_injected_blocks
from compactor.schema import (
    CALL_ENDS_KEY,
    CWD_KEY,
    HARNESS_TEXT_KEY,
    PROCESS_KEY,
    STILL_QUEUED_KEY,
    SUBAGENT_TOOLS_KEY,
    TOOL_OUTPUT_KEY,
    TURN_ABORTED_KEY,
    AgenticMessage,
    Block,
    Message,
    assistant_text,
    is_internal,
    loads_json,
    user_text,
)

from .boilerplate import drop_boilerplate, drop_trailer
from .ide import has_ide_markup, without_ide_markup
from .noise import drop_banner, strip_ansi, unwrapped_output, without_reminders

MAX_LINE = 200
"""Longest error or instruction fact, in characters (longer lines are cut at a word)."""

USER, ASSISTANT, CALL, RESULT = "user", "assistant", "call", "result"
"""Where a text comes from (see :func:`text_sources`)."""

_WS_RE = lazy_pattern(r"\s+")
_CONTROL_RE = lazy_pattern(r"[\x00-\x08\x0e-\x1f\x7f]")
"""Control characters that are not whitespace (tabs, line breaks, \\v, \\f stay)."""
_CLEAN_RE = lazy_pattern(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SENTENCE_RE = lazy_pattern(r"[.!?](\s+)|\n+")
"""A sentence's end: its ``.``/``!``/``?`` and the space after it (group 1, the separator), or
line breaks. ``(?<=[.!?])\\s+|\\n+`` says the same, but a pattern that starts by looking behind is
tried at every character; this one only where one of ``.!?`` or a line break stands
(``test_facts`` checks they split every text the same, with hypothesis)."""
_LINE_RE = lazy_pattern(r"[^\n\r]+")


_FOLDS_TO_ASCII_RE = lazy_pattern("[\u0130\u0131\u017f\u212a]")


def lowers_exactly(text: str) -> bool:
    """Whether ``text.lower()`` meets ASCII patterns as ``re.IGNORECASE`` does (so a pattern's
    ASCII words can be looked for in it with ``in``): true unless ``text`` holds one of the
    four characters that case-fold to an ASCII letter (``İ``, ``ı``, ``ſ``, the Kelvin sign;
    ``İ`` also grows when lower-cased). ``test_facts`` checks there are no others."""
    return text.isascii() or _FOLDS_TO_ASCII_RE.search(text) is None


def finds_any(text: str, words: Sequence[str], pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern``, the case-insensitive alternation of ``words`` (ASCII, no
    metacharacters), finds one in ``text``: looked for with ``in`` in the lower-cased text when
    lower-casing is what the pattern compares (:func:`lowers_exactly`). Such a pattern, without
    a literal start, is tried at every character (~180 ns each: a third of the run on a chat of
    long requests, issue 28 point 7); ``test_speed_paths`` checks with hypothesis that both say
    the same."""
    if lowers_exactly(text):
        low = text.lower()
        return any(word in low for word in words)
    return pattern.search(text) is not None


def clean(text: str) -> str:
    """``\\r\\n`` / ``\\r`` made ``\\n``, other control characters (not tabs) dropped."""
    if "\x1b" in text:  # ANSI colour codes: not text (blind check 9)
        text = strip_ansi(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.isascii():  # the same characters dropped in C: five times faster than the pattern
        raw = text.encode("ascii")
        kept = raw.translate(None, _CLEAN_BYTES)
        return text if len(kept) == len(raw) else kept.decode("ascii")
    return _CLEAN_RE.sub("", text)


_CLEAN_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])
"""The characters :data:`_CLEAN_RE` matches, as bytes (``test_speed_agent`` checks both agree)."""
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])
"""The characters :data:`_CONTROL_RE` matches, as bytes (``test_speed_agent`` checks it)."""


def one_line(text: str) -> str:
    """Control characters dropped, whitespace runs made one space, stripped."""
    # str.split() splits at the runs of what \s matches and drops them at the ends: the same
    # as _WS_RE.sub(" ", ...).strip(), in a third of the time
    if "\x1b" in text:
        text = strip_ansi(text)
    if text.isascii():  # the same characters dropped in C (as clean does): twice as fast
        raw = text.encode("ascii")
        kept = raw.translate(None, _CONTROL_BYTES)
        return " ".join((text if len(kept) == len(raw) else kept.decode("ascii")).split())
    return " ".join(_CONTROL_RE.sub("", text).split())


def cut(text: str, limit: int = MAX_LINE) -> str:
    """:func:`one_line`, then at most ``limit`` characters, cut at a word when one is near."""
    return shorten(one_line(text), limit)


def shorten(text: str, limit: int) -> str:
    """:func:`cut` of a text already on one line (``one_line(text) == text``)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    space = head.rfind(" ")
    return (head[:space] if space >= limit // 2 else head).rstrip(" ,;:")


def sentence_spans(text: str) -> Iterator[tuple[int, str]]:
    """(position, sentence) pairs: sentences end at ``.``/``!``/``?`` + space, or a line break."""
    pos = 0
    for sep in _SENTENCE_RE.finditer(text):
        start = sep.start(1) if sep.group(1) is not None else sep.start()
        yield pos, text[pos:start]
        pos = sep.end()
    yield pos, text[pos:]


def sentences_holding(text: str, positions: Sequence[int]) -> Iterator[str]:
    """The sentences of :func:`sentence_spans` in which one of ``positions`` (in order) stands,
    each once; the others are not cut out of ``text``."""
    pos = at = 0
    count = len(positions)
    for sep in _SENTENCE_RE.finditer(text):
        end = sep.start(1) if sep.group(1) is not None else sep.start()
        while at < count and positions[at] < pos:
            at += 1
        if at == count:
            return
        if positions[at] < end:
            yield text[pos:end]
        pos = sep.end()
    while at < count and positions[at] < pos:
        at += 1
    if at < count and positions[at] < len(text):
        yield text[pos:]


def sentences(text: str) -> list[str]:
    """The non-empty, stripped sentences of ``text``."""
    return [s.strip() for _, s in sentence_spans(clean(text)) if s.strip()]


def lines_of(text: str) -> Iterator[tuple[int, str]]:
    for match in _LINE_RE.finditer(text):
        yield match.start(), match.group()


# --------------------------------------------------------------------------------------------------
# Message views

_INJECTED_PREFIXES = (
    "<environment_context>",
    "# AGENTS.md instructions",
    "<user_instructions>",
    "<permissions instructions>",
    "<system-reminder>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",  # the echo of a `!` shell command the user ran (<bash-input>)
    "<bash-stderr>",
    "Caveat: The messages below were generated",
    "<task-notification>",
    "<bash-notification>",
    "<agent-notification>",
    TEAMMATE_TAG,  # an agent-team lead's mailbox delivery (blind check 47, W3)
    "Base directory for this skill:",
    "[Request interrupted by user",
    "<turn_aborted>",
    "This session is being continued from a previous conversation",
)


def is_injected(msg: Message | AgenticMessage, text: str | None = None) -> bool:
    """Text the agent CLI put into a user-role message (context, not the user's words)."""
    if msg.extra.get("injected") is True:
        return True
    if msg.role != "user":
        return False
    if text is None:
        text = user_text(msg)
    text = text.strip()
    if text[:1] not in _INJECTED_FIRSTS:  # (a test of sixteen prefixes costs 0.5 µs)
        return False
    if text.startswith(_INJECTED_PREFIXES):  # unless the user's words follow (72 N5)
        own = after_injected_blocks(text) if text.startswith(CLAUDE_INJECTED) else text
        return own == text or not own or is_injected(msg, own)
    # a harness block is a notice, unless it asks for work (blind check 52 W2)
    return _HARNESS_BLOCK_RE.fullmatch(text) is not None and not harness_ask_tag(text)


_INJECTED_FIRSTS = frozenset(p[0] for p in _INJECTED_PREFIXES) | {"<"}
"""How an injected text can start (a prefix, or a harness block's ``<``)."""
_HARNESS_BLOCK_RE = lazy_pattern(r"<([a-z]+(?:[_-][a-z]+)+)>.*</\1>", re.DOTALL)
"""A whole message that is one ``<snake_case>`` block (``<turn_aborted>``, ``<user_shell_command>``
…): a notice the harness wrote, never the user's request (judged by shape, not by tag name)."""
INTERRUPT_RE = lazy_pattern(
    r"\A\s*(?:<turn_aborted>|\[Request interrupted by user)|interrupted the previous turn"
)
"""A harness notice that the user interrupted the turn (Codex ``<turn_aborted>``, Claude Code)."""


def parse_arguments(arguments: str | None) -> JsonObject:
    """A tool call's JSON arguments as a dict ({} when not a JSON object)."""
    if not arguments:
        return {}
    try:
        value = loads_json(arguments)  # ValueError also when nested too deep
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


_COMMAND_KEYS = ("command", "cmd", "script", "commands")
FILE_KEYS = ("file_path", "path", "filename", "notebook_path", "file", "target_file", "filepath")
"""The arguments in which a file tool names its file (Read, Edit, Write, NotebookEdit, view,
an MCP or editor tool's ``file``/``target_file``/``filepath``), the usual first."""
_WRITE_KEYS = ("old_string", "new_string", "content", "edits", "new_source", "file_text")


@dataclass(slots=True)
class Call:
    """One tool call: id, name, raw arguments and where it was made (entry index)."""

    id: str
    name: str
    arguments: str
    index: int
    _args: JsonObject | None = field(default=None, repr=False)
    _command: tuple[str | None] | None = field(default=None, repr=False)
    ended: str = ""
    """How the harness recorded the call's process ending after its result came back (Codex's
    ``exec_command_end`` of a unified-exec process: ``exit code 1``); empty when it did not."""
    job: str = ""
    """For a poll of a background job (``write_stdin(session_id=N)``): the command that started
    the job (set by the session model), so that its exit code is read as that command's."""
    cwd: str = ""
    """The directory the harness recorded the call running in (``CWD_KEY``); empty when none."""
    inner: tuple[str | None] | None = field(default=None, repr=False, compare=False)
    """:func:`~compactor.facts.shellwrap.inner_command`'s answer, once found (asked some fifteen
    times per shell call)."""
    reads: bool | None = field(default=None, repr=False, compare=False)
    """:func:`~compactor.facts.commands.is_reading_call`'s answer, once found."""
    lines: dict[tuple[int, bool], str] | None = field(default=None, repr=False, compare=False)
    """:func:`~compactor.models.local_text.call_line`'s answers by (limit, keep_end), once found
    (a dozen judges name the same calls: the dry-run, edit-fix and retry judges each name all)."""
    subagent: tuple[str, ...] | None = None
    """For a sub-agent call whose conversation the file holds inline: the tools it called
    (``SUBAGENT_TOOLS_KEY``); None when not seen."""

    @property
    def args(self) -> JsonObject:
        """The parsed JSON arguments ({} when not a JSON object); parsed once."""
        if self._args is None:
            self._args = parse_arguments(self.arguments)
        return self._args

    @property
    def command(self) -> str | None:
        """The shell command the call runs (``command`` / ``cmd`` / ``script`` argument), if
        any; found once (the summarizer asks a dozen times per call)."""
        if self._command is None:
            self._command = (_command(self.args),)
        return self._command[0]

    @property
    def written_file(self) -> str:
        """The file the call writes text to (an Edit, Write, MultiEdit, NotebookEdit,
        str_replace: a file argument and the text it puts there), or '' (a read, a shell call)."""
        args = self.args
        if not any(k in args for k in _WRITE_KEYS):
            return ""
        for key in FILE_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value:
                return value
        return ""


def _command(args: JsonObject) -> str | None:
    for key in _COMMAND_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return " ".join(value)
    return None


@dataclass(slots=True)
class Result:
    """One tool result: the call it answers, the tool's name, its text and its error flag."""

    call_id: str
    name: str
    text: str
    is_error: bool = False


@dataclass(slots=True)
class Entry:
    """One message, the same for both message shapes."""

    index: int
    role: str
    text: str = ""
    calls: Sequence[Call] = ()
    """The calls an assistant message makes (one shared empty tuple when none: a million tiny
    messages would each hold an empty list)."""
    results: Sequence[Result] = ()
    internal: bool = False
    """Written by the compactor (an earlier summary)."""
    injected: bool = False
    """A user-role message the agent CLI wrote (context, not a request)."""
    aborted: bool = False
    """The user aborted the turn right after this message (the harness recorded it only as an
    event: ``extra[TURN_ABORTED_KEY]``)."""
    process: str = ""
    """The agent CLI process that wrote it, when a file holds several (``PROCESS_KEY``)."""
    queued: bool = False
    """A prompt the user typed that was still queued, undelivered, at the end
    (``STILL_QUEUED_KEY``)."""
    cli_error: ClassVar[bool] = False
    """An assistant message the agent CLI wrote for a failed model call, not the model
    (``formats.cli_errors``: ``isApiErrorMessage``): never an answer (blind check 63 W3). A
    class attribute (:class:`_CliErrorEntry`'s is True): no slot in each of a million entries."""


@dataclass(slots=True)
class _CliErrorEntry(Entry):
    """The :class:`Entry` of a message the agent CLI wrote for a failed model call."""

    cli_error: ClassVar[bool] = True


READ_CHARS = 4_000_000
"""How many characters of the newest dialogue (user and assistant texts) the embedded summary
scores for decisions and counts identifiers in (issue 28 point 7): about a million tokens, more
than any model's context window holds, so a head compacted when a window filled is read whole;
a longer one (``run --force`` on a 50 MB chat log) is read from its newest messages back to
this many characters, so that its summary costs time bounded by what a summary can show."""


def newest_from(entries: Sequence[Entry], chars: int = READ_CHARS) -> int:
    """The index of the oldest of the newest ``entries`` whose user and assistant texts add up
    to at most ``chars`` characters (0 when they all do: every entry is read)."""
    total = 0
    for e in reversed(entries):
        if e.role == USER or e.role == ASSISTANT:
            total += len(e.text)
            if total > chars:
                return e.index + 1
    return 0


_MEDIA_NAMES = {"image_url": "[image]", "audio_url": "[audio]", "video_url": "[video]"}
_NULL_TEXTS = frozenset({"null", "None", "none"})


def _placeholder(kind: str) -> str:
    return _MEDIA_NAMES.get(kind) or "[" + kind.removesuffix("_url").rsplit("_", 1)[-1] + "]"


def _block_texts(blocks: Sequence[Block]) -> Iterator[str]:
    for b in blocks:
        if b.type == "function_tool_result":
            yield from _block_texts(b.content)
        elif b.text and b.type != "reasoning":
            yield b.text


def _media_texts(blocks: Sequence[Block]) -> Iterator[str]:
    for b in blocks:
        if b.type.startswith(("user_input_", "assistant_gen_")) and not b.type.endswith("_text"):
            yield _placeholder(b.type)


def _ended_results(calls: Sequence[Call], ended: JsonObject) -> Iterator[Result]:
    """The results of ``calls`` that the harness recorded only as an end event
    (``extra[CALL_ENDS_KEY]``, see :data:`compactor.schema.CALL_ENDS_KEY`)."""
    for call in calls:
        end = ended.get(call.id)
        if isinstance(end, dict):
            code, output = end.get("exit_code"), end.get("output")
            if end.get("answered") is True:  # its result came back: only its process is over
                call.ended = f"exit code {code}" if isinstance(code, int) else "ended"
                continue
            text = f"Exit code: {code}\nOutput:\n{output if isinstance(output, str) else ''}"
            failed = isinstance(code, int) and code != 0
            yield Result(call.id, call.name, text, failed)


def entry_of(index: int, msg: Message | AgenticMessage) -> Entry:
    """The :class:`Entry` view of one message (``index`` = its position in the context)."""
    if type(msg) is Message and not msg.parts and msg.role != "tool":
        if msg.role != "assistant" or not msg.tool_calls:  # most messages: their content
            text = msg.content
            internal = is_internal(msg)
            if text.strip() in _NULL_TEXTS:
                text = ""
            if msg.role == "user" and has_ide_markup(text):
                text = without_ide_markup(text)
            injected = msg.role == "user" and not internal and is_injected(msg, text)
            entry = Entry(index, msg.role, text, internal=internal, injected=injected)
            entry.aborted = TURN_ABORTED_KEY in msg.extra
            return entry
    cls = _CliErrorEntry if CLI_ERROR_KEY in msg.extra else Entry  # (blind check 63 W3)
    entry = cls(index=index, role=msg.role, internal=is_internal(msg))
    if isinstance(msg, Message):
        media = [_placeholder(p.type) for p in msg.parts if p.type.endswith("_url")]
        if msg.role == "tool":
            texts = [p.text or "" for p in msg.parts if p.type == "text"]
            body = "\n".join(texts) if texts else msg.content
            name = msg.tool_name or msg.name or "tool"
            flag = msg.extra.get("is_error") is True
            body = unwrapped_output(body)  # a result written as JSON: its meaning
            entry.results = [Result(msg.tool_call_id or "", name, without_reminders(body), flag)]
        elif msg.role == "assistant":
            entry.text = assistant_text(msg)
            if msg.tool_calls:
                entry.calls = [Call(c.id, c.name, c.arguments, index) for c in msg.tool_calls]
        elif msg.role == "user":
            entry.text = user_text(msg)
        else:
            entry.text = msg.content
        if media:
            entry.text = (entry.text + " " + " ".join(media)).strip()
    elif msg.role == "assistant":
        entry.text = assistant_text(msg)
        entry.calls = [
            Call(b.call_id or "", b.name or "", b.arguments or "", index)
            for b in msg.blocks
            if b.type == "function_tool_call"
        ]
        if CLI_NOOP_KEY in msg.extra:  # "No response requested.": no words (blind 64 N1)
            entry.text = ""
    else:
        texts = [b.text or "" for b in msg.blocks if b.type in ("user_input_text", "text")]
        if HARNESS_TEXT_KEY in msg.extra:  # beside tool results: the harness's (60 W2)
            texts = []
        entry.text = "\n".join([*texts, *_media_texts(msg.blocks)]).strip("\n")
        entry.results = [
            Result(
                b.call_id or "",
                b.name or "tool",
                without_reminders(unwrapped_output("\n".join(_block_texts(b.content)))),
                b.is_error,
            )
            for b in msg.blocks
            if b.type == "function_tool_result"
        ]
        if isinstance(recorded := msg.extra.get(TOOL_OUTPUT_KEY), dict):  # a stub (49 W1)
            for r in entry.results:
                if isinstance(out := recorded.get(r.call_id), str):
                    r.text = out
    if msg.role == "user" and "<system-reminder>" in entry.text:
        entry.text = without_reminders(entry.text) or entry.text  # a reminder alone is injected
    if msg.role == "user" and has_ide_markup(entry.text):  # IDE context, not the request
        entry.text = without_ide_markup(entry.text)
    if entry.text.strip() in _NULL_TEXTS:
        entry.text = ""
    entry.aborted = TURN_ABORTED_KEY in msg.extra  # Codex's turn_aborted event (blind check 19)
    if entry.calls and isinstance(cwd := msg.extra.get(CWD_KEY), str):
        for call in entry.calls:
            call.cwd = cwd
    if entry.calls and isinstance(used := msg.extra.get(SUBAGENT_TOOLS_KEY), dict):
        for call in entry.calls:  # (blind check 68, W4)
            if isinstance(names := used.get(call.id), list):
                call.subagent = tuple(str(n) for n in names)
    if msg.role == "assistant" and isinstance(ended := msg.extra.get(CALL_ENDS_KEY), dict):
        entry.results = list(_ended_results(entry.calls, ended))
    entry.injected = msg.role == "user" and not entry.internal and is_injected(msg, entry.text)
    entry.queued = STILL_QUEUED_KEY in msg.extra  # typed, never delivered (blind check 39)
    if PROCESS_KEY in msg.extra:  # the CLI restarted in this history (blind check 19)
        entry.process = str(msg.extra[PROCESS_KEY])
    return entry


def entries_of(items: Iterable[Message | AgenticMessage]) -> list[Entry]:
    """``[entry_of(i, m) for i, m in enumerate(items)]``; a plain short text (a message of its
    content alone, no marker) is judged once per text (a chat of a million "ok"s)."""
    out: list[Entry] = []
    append = out.append
    users: dict[str, tuple[str, bool]] = {}  # a user text's (text shown, injected)
    others: dict[str, tuple[str, bool]] = {}  # (never injected)
    for index, msg in enumerate(items):
        if type(msg) is not Message or msg.parts or msg.extra or msg.tool_calls:
            append(entry_of(index, msg))
            continue
        role = msg.role
        if role == "tool":
            append(entry_of(index, msg))
            continue
        text = msg.content
        known = users if role == "user" else others
        seen = known.get(text) if len(text) <= _SHORT_TEXT else None  # (no long text's hash)
        if seen is None:
            shown = "" if text.strip() in _NULL_TEXTS else text
            if role == "user" and has_ide_markup(shown):
                shown = without_ide_markup(shown)
            seen = (shown, role == "user" and is_injected(msg, shown))
            if len(text) <= _SHORT_TEXT and len(known) < _MEMO_MOST:
                known[text] = seen
        append(Entry(index, role, seen[0], (), (), False, seen[1]))
    drop_banner(out)
    drop_boilerplate(out)
    drop_trailer(out)  # the shell's lines after every output (blind check 72 W3)
    return out


_SHORT_TEXT, _MEMO_MOST = 200, 4096
"""A text this short is judged once per walk, in at most this many texts."""


def argument_texts(arguments: str | None) -> Iterator[str]:
    """Every string in a call's JSON arguments (the raw arguments when they are not JSON)."""
    if not arguments:
        return
    try:
        value = loads_json(arguments)  # ValueError also when nested too deep
    except ValueError:
        yield arguments
        return
    yield from _json_strings(value)


def _json_strings(value: JsonValue) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _json_strings(v)


def text_sources(msg: Message | AgenticMessage) -> Iterator[tuple[str, str, Result | None]]:
    """(source, text, tool result or None) of one message that facts may come from, in block
    order.

    Nothing from system messages, internal messages (earlier summaries) or messages marked
    ``extra["injected"]``; a user text that starts like injected context is skipped too.
    """
    if msg.role == "system" or is_internal(msg) or msg.extra.get("injected") is True:
        return
    if isinstance(msg, Message):
        if msg.role == "tool":
            texts = [p.text or "" for p in msg.parts if p.type == "text"]
            body = "\n".join(texts) if texts else msg.content
            name = msg.tool_name or msg.name or "tool"
            flag = msg.extra.get("is_error") is True
            yield RESULT, body, Result(msg.tool_call_id or "", name, body, flag)
        elif msg.role == "assistant":
            yield ASSISTANT, assistant_text(msg), None
            for call in msg.tool_calls:
                for text in argument_texts(call.arguments):
                    yield CALL, text, None
        elif msg.role == "user":
            text = user_text(msg)
            if not text.lstrip().startswith(_INJECTED_PREFIXES):
                yield USER, text, None
        return
    if msg.role == "assistant":
        yield ASSISTANT, assistant_text(msg), None
        for b in msg.blocks:
            if b.type == "function_tool_call":
                for text in argument_texts(b.arguments):
                    yield CALL, text, None
        return
    for b in msg.blocks:  # in block order: a user text may follow the tool results
        if b.type == "function_tool_result":
            body = "\n".join(_block_texts(b.content))
            yield RESULT, body, Result(b.call_id or "", b.name or "tool", body, b.is_error)
        elif b.type == "user_input_text" and b.text and HARNESS_TEXT_KEY not in msg.extra:
            if not b.text.lstrip().startswith(_INJECTED_PREFIXES):
                yield USER, b.text, None


def internal_text(msg: Message | AgenticMessage) -> str:
    """The text of an internal message (an earlier summary)."""
    if isinstance(msg, Message):
        return user_text(msg) if msg.role == "user" else assistant_text(msg) or msg.content
    return "\n".join(_block_texts(msg.blocks))
