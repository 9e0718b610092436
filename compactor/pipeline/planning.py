"""Where a history may be cut, what stays verbatim, and how to split it for the summarizer.

Pure functions over ``Sequence[M]`` (no I/O, nothing printed, inputs never mutated):

* **Tool-pair safety.** :func:`tool_links` pairs each tool call with its result by call id;
  :func:`safe_cuts` lists the indices where a history can be split without separating a call
  from its result and without starting a part on a tool result.
* **Verbatim tail.** :func:`tail_start` is where the newest messages, kept unsummarized, begin.
* **Chunk plan.** :func:`plan_chunks` splits a history that overflows the summarizer into
  sequential chunks that each fit ``budget`` (at safe cuts only); :func:`truncate_to_budget`
  cuts the longest texts of a run that cannot fit on its own.

Pairing rules (lenient: real transcripts hold dangling calls, orphan results and reused ids):

* ``Message``: each ``tool_calls[i].id`` (on any role; normally the assistant) pairs with a
  ``role == "tool"`` message whose ``tool_call_id`` is that id. ``AgenticMessage``: each
  ``function_tool_call`` block pairs with a ``function_tool_result`` block of the same
  ``call_id``, whichever message (normally assistant, then user) holds them.
* A result pairs with the **newest still-unpaired call of its id before it**. An id reused on
  every turn (``call_0``) thus pairs turn by turn, even when an earlier turn's call never got
  its result.
* A result whose calls before it are all paired already (a repeated result) pairs with the
  newest call of its id before it.
* A result with no call of its id before it pairs with the **nearest call of its id after it**
  (a result written before its call), or in the same message.
* Anything left over is unpaired: a **dangling call** (no result yet) or an **orphan result**
  (no call). They do not constrain cuts, except that no part may start on a tool result.
* A missing or empty id (``None`` / ``""``) never pairs: it cannot say which call it answers.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import json
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NoReturn, TypeAlias, cast

from compactor._json import JsonValue
from compactor.counting.tokens import estimate_message
from compactor.schema import AgenticMessage, Block, M, Message, loads_json

_Msg: TypeAlias = Message | AgenticMessage

__all__ = [
    "CUT_MARKER",
    "Chunk",
    "carries_tool_result",
    "fits",
    "plan_chunks",
    "safe_cuts",
    "tail_start",
    "tool_links",
    "truncate_to_budget",
]

CUT_MARKER = "…[{n} characters cut to fit the summarizer's context]…"
"""What :func:`truncate_to_budget` puts in the middle of a cut text (``n``: characters removed)."""


# --------------------------------------------------------------------------------------------------
# Tool-pair safety


def _call_ids(msg: Message | AgenticMessage) -> Iterator[str | None]:
    if isinstance(msg, Message):
        for call in msg.tool_calls:
            yield call.id
    else:
        for block in msg.blocks:
            if block.type == "function_tool_call":
                yield block.call_id


def _result_ids(msg: Message | AgenticMessage) -> Iterator[str | None]:
    if isinstance(msg, Message):
        if msg.role == "tool":
            yield msg.tool_call_id
    else:
        for block in msg.blocks:
            if block.type == "function_tool_result":
                yield block.call_id


def carries_tool_result(msg: Message | AgenticMessage) -> bool:
    """Whether ``msg`` carries a tool result: a chat ``tool`` message, or an agentic message with
    at least one ``function_tool_result`` block.

    Broader than :func:`compactor.schema.is_tool_result` (agentic: *only* result blocks), which
    decides who is a user-message candidate. Here the question is whether a part of the history
    may start on ``msg``: providers reject a result without its call before it, even when text
    follows the result in the same message.
    """
    if isinstance(msg, Message):
        return msg.role == "tool"
    return any(block.type == "function_tool_result" for block in msg.blocks)


def tool_links(messages: Sequence[M]) -> list[tuple[int, int]]:
    """``(index of the call's message, index of the result's message)`` for every paired result.

    One entry per distinct pair of messages, sorted by result index, then call index. Pairing
    rules: see the module docstring. The call index is larger than the result index when a
    result was written before its call, and equal to it when one agentic message holds both.
    """
    unpaired: defaultdict[str, list[int]] = defaultdict(list)  # id -> calls without a result
    calls: defaultdict[str, list[int]] = defaultdict(list)  # id -> every call so far, ascending
    early: list[tuple[int, str]] = []  # results with no call of their id before them
    links: set[tuple[int, int]] = set()
    for i, msg in enumerate(messages):
        # Results first: a message that both answers and calls with one id (agentic) answers an
        # earlier call, not its own.
        for call_id in _result_ids(msg):
            if not call_id:
                continue
            if unpaired[call_id]:
                links.add((unpaired[call_id].pop(), i))
            elif calls[call_id]:
                links.add((calls[call_id][-1], i))  # a repeated result stays with its call
            else:
                early.append((i, call_id))
        for call_id in _call_ids(msg):
            if call_id:
                unpaired[call_id].append(i)
                calls[call_id].append(i)
    for i, call_id in early:
        later = calls[call_id]
        j = bisect.bisect_left(later, i)
        if j < len(later):
            links.add((later[j], i))
    return sorted(links, key=lambda link: (link[1], link[0]))


def safe_cuts(messages: Sequence[M]) -> list[int]:
    """Every ``i`` in ``0..len(messages)`` where ``messages[:i] | messages[i:]`` is a safe split.

    Safe: no paired call and result (:func:`tool_links`) end up on different sides, and
    ``messages[i]`` is not a tool result (:func:`carries_tool_result`), orphan or not. ``0`` and
    ``len(messages)`` are always safe. Ascending.
    """
    n = len(messages)
    # crossing[i] > 0 ⇔ some pair has one message before i and the other at or after it.
    delta = [0] * (n + 2)
    for a, b in tool_links(messages):
        lo, hi = min(a, b), max(a, b)
        if lo < hi:
            delta[lo + 1] += 1
            delta[hi + 1] -= 1
    cuts = [0]
    crossing = delta[0]
    for i in range(1, n):
        crossing += delta[i]
        if crossing == 0 and not carries_tool_result(messages[i]):
            cuts.append(i)
    if n > 0:
        cuts.append(n)
    return cuts


# --------------------------------------------------------------------------------------------------
# Verbatim tail


def _check_count(name: str, value: int | None) -> None:
    # bool is an int: reject it rather than read True as 1.
    if value is not None and (isinstance(value, bool) or value < 0):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def tail_start(
    context: Sequence[M],
    *,
    keep_messages: int | None = None,
    keep_tokens: int | None = None,
    count: Callable[[M], int] = estimate_message,
) -> int:
    """Index in ``context`` where the tail kept verbatim begins (``len(context)``: no tail).

    ``keep_messages=N`` starts it nominally at ``len - N``; ``keep_tokens=T`` at the smallest
    index whose suffix totals at most ``T`` tokens by ``count`` (which must not return negative
    numbers). With both, the smaller tail wins; with neither, there is no tail. The start then
    moves forward to the nearest :func:`safe_cuts` index, so the tail never exceeds its budget
    and may become empty. It is never ``0`` for a non-empty context, since something must be
    left to summarize: the next safe cut is taken instead (``len`` when there is none).

    Raises ``ValueError`` for a negative ``keep_messages`` or ``keep_tokens``.
    """
    _check_count("keep_messages", keep_messages)
    _check_count("keep_tokens", keep_tokens)
    n = len(context)
    if n == 0:
        return 0
    nominal = n
    if keep_messages is not None:
        nominal = max(0, n - keep_messages)
    if keep_tokens is not None:
        suffix = 0
        by_tokens = n
        for i in range(n - 1, -1, -1):
            suffix += count(context[i])
            if suffix > keep_tokens:
                break
            by_tokens = i
        nominal = by_tokens if keep_messages is None else max(nominal, by_tokens)
    for cut in safe_cuts(context):
        if cut >= nominal and cut > 0:
            return cut
    return n  # unreachable: n is always a safe cut and n > 0


# --------------------------------------------------------------------------------------------------
# Chunk plan


@dataclass(frozen=True, slots=True)
class Chunk:
    """Messages ``[start, end)`` of a history, summarized in one model call."""

    start: int
    end: int
    tokens: int
    """Sum of the messages' counts."""
    oversized: bool
    """One run between two consecutive safe cuts that alone exceeds the budget; the caller
    truncates its texts (:func:`truncate_to_budget`) before sending it."""


def _check_budget(budget: int) -> None:
    if isinstance(budget, bool) or budget <= 0:
        raise ValueError(f"budget must be a positive integer, got {budget!r}")


def plan_chunks(messages: Sequence[M], budget: int, count: Callable[[M], int]) -> list[Chunk]:
    """Sequential chunks covering ``messages`` in order, each cut at a :func:`safe_cuts` index.

    Greedy: each chunk takes as many whole runs between consecutive safe cuts as fit in
    ``budget`` tokens (by ``count``, called once per message). A run that alone exceeds the
    budget becomes a chunk of its own with ``oversized=True``. An empty history gives ``[]``.

    Raises ``ValueError`` when ``budget <= 0``.
    """
    _check_budget(budget)
    counts = [count(m) for m in messages]
    cuts = safe_cuts(messages)
    chunks: list[Chunk] = []
    start = 0
    tokens = 0
    for a, b in itertools.pairwise(cuts):
        run = sum(counts[a:b])
        if a > start and tokens + run > budget:
            chunks.append(Chunk(start, a, tokens, tokens > budget))
            start, tokens = a, 0
        tokens += run
    if cuts[-1] > start:
        chunks.append(Chunk(start, cuts[-1], tokens, tokens > budget))
    return chunks


def fits(messages: Sequence[M], budget: int, count: Callable[[M], int]) -> bool:
    """Whether the messages total at most ``budget`` tokens by ``count``.

    Raises ``ValueError`` when ``budget <= 0``.
    """
    _check_budget(budget)
    return sum(count(m) for m in messages) <= budget


# --------------------------------------------------------------------------------------------------
# Truncation of an oversized run


def _cut(text: str, cap: int) -> str:
    """``text`` cut in the middle to at most ``cap`` characters, marker included, if that makes
    it shorter; the marker alone when ``cap`` leaves no room; else ``text`` unchanged."""
    n = len(text)
    if n <= cap:
        return text
    keep = max(0, cap - len(CUT_MARKER.format(n=n)))
    # Fewer characters cut may need one digit less: take the room (still at most ``cap``).
    keep = max(keep, min(n, cap - len(CUT_MARKER.format(n=n - keep))))
    head = (keep + 1) // 2
    tail = keep // 2
    cut = text[:head] + CUT_MARKER.format(n=n - keep) + text[n - tail :]
    return cut if len(cut) < n else text


class _Unparsable(ValueError):
    pass


def _reject_constant(name: str) -> NoReturn:
    raise _Unparsable(name)  # NaN / Infinity are not JSON


def _json_leaves(value: JsonValue) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _json_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_leaves(item)


def _cap_leaves(value: JsonValue, cap: int) -> JsonValue:
    if isinstance(value, str):
        return _cut(value, cap)
    if isinstance(value, dict):
        return {key: _cap_leaves(item, cap) for key, item in value.items()}
    if isinstance(value, list):
        return [_cap_leaves(item, cap) for item in value]
    return value


@dataclass(slots=True)
class _Arguments:
    """Tool-call arguments: parsed JSON (string values are cut), or raw text that, once cut,
    becomes a JSON string so the arguments parse."""

    raw: str
    parsed: JsonValue
    valid: bool
    longest: int
    """The longest string value (valid JSON), else the length of the raw text."""

    @classmethod
    def of(cls, raw: str) -> _Arguments:
        try:
            parsed = loads_json(raw, parse_constant=_reject_constant)
        except ValueError:  # json.JSONDecodeError and _Unparsable
            return cls(raw, None, False, len(raw))
        longest = max((len(leaf) for leaf in _json_leaves(parsed)), default=0)
        return cls(raw, parsed, True, longest)

    def capped(self, cap: int) -> str:
        if not self.valid:
            cut = _cut(self.raw, cap)
            return self.raw if cut == self.raw else json.dumps(cut, ensure_ascii=False)
        if self.longest <= cap:
            return self.raw
        capped = _cap_leaves(self.parsed, cap)
        if capped == self.parsed:  # every long value was too short to gain from a cut
            return self.raw
        return json.dumps(capped, ensure_ascii=False, separators=(",", ":"))


@dataclass(slots=True)
class _Slot:
    """One cuttable field of a message: ``get``/``set`` work on any copy of that message."""

    get: Callable[[_Msg], str]
    set: Callable[[_Msg, str], None]
    arguments: _Arguments | None = None  # tool-call arguments: JSON-aware cutting

    def longest(self, msg: _Msg) -> int:
        return self.arguments.longest if self.arguments else len(self.get(msg))

    def apply(self, msg: _Msg, original: _Msg, cap: int) -> None:
        if self.arguments is not None:
            self.set(msg, self.arguments.capped(cap))
        else:
            self.set(msg, _cut(self.get(original), cap))


def _attr_slot(obj_of: Callable[[_Msg], object], attr: str) -> _Slot:
    def get(msg: _Msg) -> str:
        return getattr(obj_of(msg), attr) or ""

    def put(msg: _Msg, text: str) -> None:
        setattr(obj_of(msg), attr, text)

    return _Slot(get, put)


def _block_slots(path: Callable[[_Msg], list[Block]], blocks: list[Block]) -> Iterator[_Slot]:
    for j, block in enumerate(blocks):

        def at(msg: _Msg, j: int = j) -> Block:
            return path(msg)[j]

        if block.text:
            yield _attr_slot(at, "text")
        if block.type == "function_tool_call" and block.arguments:
            slot = _attr_slot(at, "arguments")
            slot.arguments = _Arguments.of(block.arguments)
            yield slot
        if block.content:

            def inner(msg: _Msg, at: Callable[[_Msg], Block] = at) -> list[Block]:
                return at(msg).content

            yield from _block_slots(inner, block.content)


def _item(attr: str, j: int) -> Callable[[_Msg], object]:
    def at(msg: _Msg) -> object:
        item: object = getattr(msg, attr)[j]
        return item

    return at


def _slots(msg: Message | AgenticMessage) -> Iterator[_Slot]:
    """Every text field of ``msg`` that truncation may cut."""
    if isinstance(msg, AgenticMessage):
        # a slot is applied to copies of the message it came from: an AgenticMessage here
        yield from _block_slots(lambda m: cast(AgenticMessage, m).blocks, msg.blocks)
        return
    if msg.content:
        yield _attr_slot(lambda m: m, "content")
    for j, part in enumerate(msg.parts):
        if part.text:
            yield _attr_slot(_item("parts", j), "text")
    if msg.reasoning_content:
        yield _attr_slot(lambda m: m, "reasoning_content")
    for j, call in enumerate(msg.tool_calls):
        if call.arguments:
            slot = _attr_slot(_item("tool_calls", j), "arguments")
            slot.arguments = _Arguments.of(call.arguments)
            yield slot


def truncate_to_budget(messages: list[M], budget: int, count: Callable[[M], int]) -> list[M]:
    """Deep copies of ``messages`` whose longest texts are cut in the middle until they fit.

    Cut texts: content, text and reasoning parts, reasoning content, text blocks, tool results
    and tool-call arguments (string values inside the JSON are cut and the JSON re-serialized;
    arguments that do not parse become a JSON string once cut). A cut text keeps its two ends
    around ``CUT_MARKER``. Water-filling: the largest cap on text length that makes the total
    fit is applied to every text longer than it, so only the longest texts lose anything and
    short ones are untouched. A text whose cutting does not lower ``count`` of its message is
    left alone. When even the harshest cut (markers only) does not fit, that is returned.

    The result has the same messages, roles, ids, names and tool-call structure; only texts
    change. Raises ``ValueError`` when ``budget <= 0``.
    """
    _check_budget(budget)
    originals = messages
    counts = [count(m) for m in originals]
    result = copy.deepcopy(originals)
    total = sum(counts)
    if total <= budget:
        return result

    # Only the fields the counter sees are worth cutting: probe each one alone at cap 0.
    slots: dict[int, list[_Slot]] = {}
    for i, msg in enumerate(originals):
        useful: list[_Slot] = []
        for slot in _slots(msg):
            probe = copy.deepcopy(msg)
            slot.apply(probe, msg, 0)
            if count(probe) < counts[i]:
                useful.append(slot)
        if useful:
            slots[i] = useful
    if not slots:
        return result

    def build(cap: int) -> tuple[dict[int, M], int]:
        """The messages changed by ``cap``, and the new total."""
        changed: dict[int, M] = {}
        new_total = total
        for i, useful in slots.items():
            original = originals[i]
            longer = [s for s in useful if s.longest(original) > cap]
            if not longer:
                continue
            msg = copy.deepcopy(original)
            for slot in longer:
                slot.apply(msg, original, cap)
            changed[i] = msg
            new_total += count(msg) - counts[i]
        return changed, new_total

    harshest, harshest_total = build(0)
    if harshest_total <= budget:
        # Largest cap that fits: lo fits, hi does not (at the longest length nothing is cut).
        lo = 0
        hi = max(s.longest(originals[i]) for i, useful in slots.items() for s in useful)
        best = harshest
        while hi - lo > 1:
            mid = (lo + hi) // 2
            changed, mid_total = build(mid)
            if mid_total <= budget:
                lo, best = mid, changed
            else:
                hi = mid
        harshest = best
    for i, msg in harshest.items():
        result[i] = msg
    return result
