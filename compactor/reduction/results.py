"""Tool results in a history: where they are, what they hold, and how one is replaced.

Both message shapes (SPEC §1): a chat ``tool`` message is one result; an agentic user message
holds one ``function_tool_result`` block per result (parallel calls). A result is found by
position, so one whose call is missing (an orphan) or whose call id repeats is still a result;
its tool name comes from its own message, else from the nearest earlier call with its id.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from compactor._json import JsonValue
from compactor.rejections import is_rejection
from compactor.schema import MEDIA_BLOCK_TYPES, AgenticMessage, Block, M, Message

__all__ = [
    "CLEARED_TEXT",
    "PERSISTED_CLOSE",
    "PERSISTED_OPEN",
    "PROCESSED_KEY",
    "ResultRef",
    "carries_user_words",
    "cutoff_of",
    "find_results",
    "is_rejection",
    "original_content",
    "original_payload",
    "replace_result",
    "result_payload",
    "result_state",
    "result_text",
    "retention_cutoff",
    "round_marks",
    "round_starts",
    "rounds_of",
    "text_state",
]

_ATOMIC = (str, int, float, bool, type(None))

PROCESSED_KEY = "_reduction_mw_processed"
"""Eino's marker in ``extra``: the result was processed (value: ``trunc`` or ``clear``). Keys
starting with ``_`` are not written to files; a re-read placeholder is recognised by its text."""
CLEARED_TEXT = "[Old tool result content cleared]"
"""Eino's placeholder for a cleared result without an offload backend."""
PERSISTED_OPEN = "<persisted-output>"
PERSISTED_CLOSE = "</persisted-output>"


@dataclass(frozen=True, slots=True)
class ResultRef:
    """One tool result: message ``index``, ``block`` within it (None: a chat tool message)."""

    index: int
    block: int | None
    call_id: str
    name: str


def round_starts(messages: Sequence[Message | AgenticMessage]) -> list[int]:
    """Where each tool round starts: the first of its assistant messages (see :func:`rounds_of`)."""
    return [start for start, _ in rounds_of(*round_marks(messages))]


def retention_cutoff(messages: Sequence[Message | AgenticMessage], keep: int) -> int:
    """The index from which results are retained: the start of the ``keep``-th newest round
    that has results (0: fewer rounds than that, nothing cleared; ``keep`` 0: every result)."""
    return cutoff_of(rounds_of(*round_marks(messages)), keep, len(messages))


def round_marks(
    messages: Sequence[Message | AgenticMessage],
) -> tuple[list[int], list[int], list[int]]:
    """The indexes :func:`rounds_of` reads: assistant messages with calls, messages holding
    results (once per result), and every other message that is not the assistant's."""
    calls: list[int] = []
    results: list[int] = []
    others: list[int] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, Message):
            if msg.role == "assistant":
                if msg.tool_calls:
                    calls.append(i)
            elif msg.role == "tool":
                results.append(i)
            else:
                others.append(i)
            continue
        kinds = [b.type for b in msg.blocks]
        if msg.role == "assistant":
            if "function_tool_call" in kinds:
                calls.append(i)
        else:
            n = kinds.count("function_tool_result")
            if n:
                results.extend([i] * n)
            else:
                others.append(i)
    return calls, results, others


def rounds_of(
    calls: Sequence[int], results: Sequence[int], others: Sequence[int]
) -> list[tuple[int, bool]]:
    """The tool rounds (start index, whether any result follows its calls), from the sorted
    indexes of the assistant messages making calls, of the results and of the other
    non-assistant messages. A round is one assistant turn's calls with their results (SPEC §10;
    RELIABILITY.md, Decisions): assistant messages making calls with no result or other message
    between them are one round, as a harness that writes each parallel call as its own item
    (Codex) splits one assistant message into several."""
    rounds: list[tuple[int, bool]] = []
    start, has, joinable = -1, False, False
    ri = oi = 0
    n_res, n_oth = len(results), len(others)
    for c in calls:
        between_result = ri < n_res and results[ri] < c
        between_other = oi < n_oth and others[oi] < c
        while ri < n_res and results[ri] < c:
            ri += 1
        while oi < n_oth and others[oi] < c:
            oi += 1
        if start >= 0 and between_result:
            has = True
        if joinable and not between_result and not between_other:
            continue  # another call of the same turn
        if start >= 0:
            rounds.append((start, has))
        start, has, joinable = c, False, True
    if start >= 0:
        rounds.append((start, has or ri < n_res))
    return rounds


def cutoff_of(rounds: Sequence[tuple[int, bool]], keep: int, n: int) -> int:
    """The retention cutoff of ``rounds`` in a history of ``n`` messages: the rounds with
    results are counted (a round whose calls are still in flight has nothing to clear or keep)."""
    if not keep:
        return n
    done = [start for start, has in rounds if has]
    return done[-keep] if len(done) >= keep else 0


def find_results(messages: Sequence[Message | AgenticMessage]) -> list[ResultRef]:
    """Every tool result, oldest first."""
    names: dict[str, str] = {}  # call id → tool name of its latest call
    found: list[ResultRef] = []
    for i, msg in enumerate(messages):
        if isinstance(msg, Message):
            if msg.role == "assistant":
                for call in msg.tool_calls:
                    names[call.id] = call.name
            elif msg.role == "tool":
                cid = msg.tool_call_id or ""
                found.append(ResultRef(i, None, cid, msg.tool_name or names.get(cid, "")))
            continue
        for b, block in enumerate(msg.blocks):
            if block.type == "function_tool_call":
                names[block.call_id or ""] = block.name or ""
            elif block.type == "function_tool_result":
                cid = block.call_id or ""
                found.append(ResultRef(i, b, cid, block.name or names.get(cid, "")))
    return found


def _texts_and_media(msg: Message | AgenticMessage, ref: ResultRef) -> tuple[list[str], int]:
    if isinstance(msg, Message):
        if not msg.parts:
            return [msg.content], 0
        texts = [p.text or "" for p in msg.parts if p.type == "text"]
        media = sum(1 for p in msg.parts if p.type != "text")
        return texts, media
    assert ref.block is not None
    content = msg.blocks[ref.block].content
    texts = [b.text or "" for b in content if b.type in ("user_input_text", "assistant_gen_text")]
    media = sum(1 for b in content if b.type in MEDIA_BLOCK_TYPES or b.text is None)
    return texts, media


def result_text(msg: Message | AgenticMessage, ref: ResultRef) -> tuple[str, bool]:
    """(the result's text, whether it holds anything but text: images, files, ...)."""
    texts, media = _texts_and_media(msg, ref)
    return "\n".join(texts), media > 0


def result_payload(msg: Message | AgenticMessage, ref: ResultRef) -> str:
    """What an offload file holds: exactly the result's text when it is one text; else its
    parts as a JSON array (``type``, ``text``, ``url``), images and files included."""
    if isinstance(msg, Message):
        if not msg.parts:
            return msg.content
        items = [(p.type, p.text, p.url) for p in msg.parts]
    else:
        assert ref.block is not None
        items = [(b.type, b.text, b.url) for b in msg.blocks[ref.block].content]
    if len(items) == 1 and items[0][0] in ("text", "user_input_text") and items[0][2] is None:
        return items[0][1] or ""
    parts = [
        {k: v for k, v in (("type", t), ("text", x), ("url", u)) if v is not None}
        for t, x, u in items
    ]
    return json.dumps(parts, ensure_ascii=False, indent=1)


_ID_KEYS = ("tool_use_id", "tool_call_id", "call_id")
"""Keys naming the call a result answers (Anthropic/Claude Code, OpenAI/Eino, Codex)."""
_CONTENT_KEYS = (
    "user_input_multi_content",
    "multi_content",
    "content",
    "output",
)
"""Where a result record keeps what the tool returned, most specific first (Eino's parts, then
Anthropic/OpenAI ``content``, then Codex ``output``)."""
_SEARCH_DEPTH = 6


def original_content(rec: JsonValue, call_id: str, depth: int = _SEARCH_DEPTH) -> JsonValue:
    """The content of the result answering ``call_id`` exactly as the input record ``rec``
    holds it (a string, or the list of parts / blocks as written); None when ``rec`` holds no
    such result. An object naming ``call_id`` with one of the content keys is the result
    (a Codex ``function_call`` names it too, but holds ``arguments``)."""
    if depth <= 0:
        return None
    if isinstance(rec, dict):
        if any(rec.get(k) == call_id for k in _ID_KEYS):
            for key in _CONTENT_KEYS:
                value = rec.get(key)
                if value is None or (key.endswith("multi_content") and not value):
                    continue  # Eino: no parts, its ``content`` is the result
                if key.endswith("multi_content") and not isinstance(value, list):
                    continue
                return value
        children: list[JsonValue] = list(rec.values())
    elif isinstance(rec, list):
        children = list(rec)
    else:
        return None
    for child in children:
        if isinstance(child, dict | list):
            found = original_content(child, call_id, depth - 1)
            if found is not None:
                return found
    return None


_STYLES = (((",", ":"), False), ((", ", ": "), False), ((",", ":"), True), ((", ", ": "), True))
"""JSON writers' styles: JSON.stringify / orjson, Python's json.dumps (each as UTF-8 or ASCII)."""


def original_payload(value: JsonValue, line: bytes | None = None) -> str | None:
    """What an offload file holds for a result whose original content is ``value``: the text
    itself when it is text (a string, or one text part with nothing but its text); else the
    original JSON, so a reader gets the original value back (images with their base64 data,
    ``tool_reference`` blocks, ...): written as the record ``line`` writes it when one of the
    common styles is found in it (then byte for byte), else compact. None: no value."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and len(value) == 1:
        only = value[0]
        if (
            isinstance(only, dict)
            and only.keys() == {"type", "text"}
            and isinstance(only["type"], str)
            and only["type"].endswith("text")
            and isinstance(only["text"], str)
        ):
            return only["text"]
    first = ""
    for separators, ascii_only in _STYLES:
        text = json.dumps(value, ensure_ascii=ascii_only, separators=separators)
        if line is None:
            return text
        if text.encode("utf-8", "surrogatepass") in line:
            return text
        first = first or text
    return first


def result_state(msg: Message | AgenticMessage, ref: ResultRef) -> str | None:
    """``trunc`` / ``clear`` when the result was reduced already (marker, or a placeholder read
    back from a file), else None."""
    marker = msg.extra.get(PROCESSED_KEY)
    if isinstance(marker, dict) and isinstance(marker.get(ref.call_id), str):
        return str(marker[ref.call_id])
    return text_state(result_text(msg, ref)[0])


def text_state(text: str) -> str | None:
    """``trunc`` / ``clear`` when ``text`` is a placeholder this reduction wrote, else None."""
    first = text[:1]
    if first != "[" and first != "<" and not first.isspace():
        return None  # both placeholders start with "[" / "<" after blanks (most results: here)
    head = text[:160].lstrip()  # not the whole result: a placeholder starts near the start
    if len(head) < 80 and len(text) > 160:  # a long run of leading blanks: the rest decides
        head = text.lstrip()
    head = head[:80]
    if head.startswith(CLEARED_TEXT):
        return "clear"
    if head.startswith(PERSISTED_OPEN):
        return "trunc" if "Output too large" in head else "clear"
    return None


def replace_result(msg: M, ref: ResultRef, text: str, kind: str) -> M:
    """A copy of ``msg`` whose result ``ref`` is ``text`` (marked ``kind``); the message's other
    results, its texts and reasoning are untouched. ``msg`` itself is never changed."""
    marker = msg.extra.get(PROCESSED_KEY)
    marked = {**(marker if isinstance(marker, dict) else {}), ref.call_id: kind}
    if isinstance(msg, Message) and type(msg) is Message:  # its own lists, the result new
        extra = {k: v if type(v) in _ATOMIC else copy.deepcopy(v) for k, v in msg.extra.items()}
        extra[PROCESSED_KEY] = marked
        return Message(
            role=msg.role,
            content=text,
            tool_calls=copy.deepcopy(msg.tool_calls) if msg.tool_calls else [],
            tool_call_id=msg.tool_call_id,
            tool_name=msg.tool_name,
            name=msg.name,
            reasoning_content=msg.reasoning_content,
            usage=copy.deepcopy(msg.usage),
            finish_reason=msg.finish_reason,
            extra=extra,
        )
    new = copy.deepcopy(msg)
    new.extra[PROCESSED_KEY] = marked
    if isinstance(new, Message):  # a subclass: copied whole
        new.content = text
        new.parts = []
        return new
    assert ref.block is not None
    new.blocks[ref.block].content = [Block("user_input_text", text)]
    return new


_USER_WORDS_RE = re.compile(
    r"\A[^\n]{0,40}?(?:The user (?:doesn['’]t|does not) want to proceed with this tool use.{0,300}?"
    r"(?:how to proceed, the user said|reason for (?:the )?(?:rejection|denial))\s*:"
    r"|User has answered your questions?\s*:|Your questions? (?:have|has) been answered\s*:)",
    re.IGNORECASE | re.DOTALL,
)


def carries_user_words(text: str) -> bool:
    """Whether a tool result carries the user's own words or decision: Claude Code's rejection
    of a call, bare or with what the user said ("The user doesn't want to proceed with this tool
    use … the user said: …"), any harness's short "rejected by user" (:func:`is_rejection`), or
    the user's answers to the agent's questions (``AskUserQuestion``: "User has answered your
    questions: …"), each at the start of the result, as the CLI writes them. Reduction never
    clears or truncates such a result: issue 30 keeps every user text (blind check 21: the
    user's corrections and answers went to offload files; blind check 22: bare rejections were
    cleared, so a rejected Write's input read as written). Anchored at the start, so a test
    costs about a microsecond whatever the result's length."""
    head = text[:80].casefold()  # the phrases hold "user" / "your" / "reject" early on
    if "user" not in head and "your" not in head and "reject" not in head:
        return False  # (casefold: as the IGNORECASE match, "ſ" is an "s"); most results: here
    if _USER_WORDS_RE.match(text, 0, 800) is not None:
        return True
    return is_rejection(text)
