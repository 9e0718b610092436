"""The embedded default summarizer: no network, no download, deterministic (SPEC §7).

It reads the summarizer input of SPEC §4 (``[system(instruction), *context, user(instruction)]``),
ignores the two instruction messages and writes the nine-section summary from the context itself:
requests and constraints, files and code, commands, errors, all user messages, pending work and the
current work. Every section is capped, so the summary stays a few thousand tokens at most (and
under 30 % of the input for inputs over 20k tokens). Same input → same bytes: no clock, no
randomness, and only insertion-ordered or sorted collections.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from compactor.schema import (
    MEDIA_BLOCK_TYPES,
    MEDIA_PART_TYPES,
    AgenticMessage,
    Block,
    Message,
    Usage,
    assistant_text,
    is_internal,
    make_assistant,
    message_kind,
    user_text,
)
from compactor.tokens import estimate_message, estimate_text

__all__ = ["LocalSummarizer", "summarize_transcript"]

MAX_SUMMARY_TOKENS = 6_000
"""Upper bound of the summary (also ≤ 30 % of any input over 20k tokens)."""

_CONSTRAINT_RE = re.compile(
    r"\b(must|never|don'?t|do not|should|shouldn'?t|please|always|avoid|make sure|required?)\b",
    re.IGNORECASE,
)
_PENDING_RE = re.compile(
    r"\b(TODO|FIXME|next step|next,|remaining|still need|not yet|later|pending|follow[- ]up)\b",
    re.IGNORECASE,
)
_DECISION_RE = re.compile(
    r"\b(I'll|I will|let's|let me|decided|instead|because|the fix|the issue|root cause|"
    r"the problem|solution|so we|we need)\b",
    re.IGNORECASE,
)
_ERROR_RE = re.compile(
    # Used only to test whether a text matches. "Error\b" finds the words "\b\w*Error\b" finds
    # (ValueError, Error), without retrying "\w*" from every letter of every word.
    r"(Traceback|Error\b|\bException\b|\bfailed\b|\bFAILED\b|\bfatal\b|"
    r"exit (?:code|status) [1-9]\d*|\berror:)",
)
_ERROR_HINTS = (
    "Traceback",
    "Error",
    "Exception",
    "failed",
    "FAILED",
    "fatal",
    "exit code",
    "exit status",
    "error:",
)
"""Every match of ``_ERROR_RE`` contains one of these: a text with none cannot match."""


def _has_error(text: str) -> bool:
    return any(hint in text for hint in _ERROR_HINTS) and _ERROR_RE.search(text) is not None


_URL_RE = re.compile(r"\b\w+://\S+")


def _without_urls(text: str) -> str:
    return _URL_RE.sub(" ", text) if "://" in text else text


_EXTS = (
    "py|pyi|js|mjs|ts|tsx|jsx|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|md|rst|txt|"
    "json|jsonl|yaml|yml|toml|cfg|ini|sh|bash|html|css|scss|sql|lock|xml|csv|ipynb|env|conf|"
    "gradle|proto|tf|vue|svelte|dockerfile|mk"
)
_PATH_RE = re.compile(
    r"(?<![\w/.\-])("
    r"(?:~|\.{1,2})?/?(?:[\w.\-]+/)+[\w\-][\w.\-]*\.[A-Za-z][A-Za-z0-9]{0,7}"
    rf"|[\w\-]+(?:\.[\w\-]+)*\.(?:{_EXTS})"
    r"|(?:Makefile|Dockerfile|README|LICENSE)"
    r")(?![\w/])"
)
_BACKTICK_RE = re.compile(r"`([^`\n]{2,60})`")
_IDENT_RE = re.compile(
    r"\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(|"
    r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b|"
    r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)\b"
)
_COMMAND_KEYS = ("command", "cmd", "script", "code", "query", "input")
_PATH_KEYS = ("path", "file", "file_path", "filename", "filepath", "file_name")
_SNIPPET_KEYS = ("new_str", "content", "replace", "new_content", "code", "patch", "diff", "text")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_LISTING_RE = re.compile(r"^\s*(\d+[:|]|(raise|except|class|def|import|from|assert)\b|#)")
_NULL_TEXTS = frozenset({"null", "None", "none"})


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    arguments: str
    index: int


@dataclass(slots=True)
class _Entry:
    """One context message, normalized across both message shapes."""

    index: int
    role: str
    text: str = ""
    calls: list[_Call] = field(default_factory=list)
    results: list[tuple[str, str, str]] = field(default_factory=list)  # (call_id, name, text)
    internal: bool = False


@dataclass(frozen=True, slots=True)
class _Limits:
    item_chars: int
    user_chars: int
    items: int
    users_head: int
    users_tail: int
    walk: int

    def scaled(self, factor: float) -> _Limits:
        return _Limits(
            item_chars=max(60, int(self.item_chars * factor)),
            user_chars=max(80, int(self.user_chars * factor)),
            items=max(2, int(self.items * factor)),
            users_head=max(2, int(self.users_head * factor)),
            users_tail=max(3, int(self.users_tail * factor)),
            walk=max(4, int(self.walk * factor)),
        )


_BASE_LIMITS = _Limits(
    item_chars=240, user_chars=300, items=12, users_head=10, users_tail=40, walk=14
)


def _clean(text: str) -> str:
    return _CONTROL_RE.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def _one_line(text: str, limit: int) -> str:
    text = " ".join(_clean(text).split())
    if len(text) <= limit:
        return text
    return text[: max(1, limit - 1)].rstrip() + "…"


def _quote(text: str, limit: int) -> str:
    return '"' + _one_line(text, limit).replace('"', "'") + '"'


def _placeholder(kind: str) -> str:
    return "[" + kind.removesuffix("_url").rsplit("_", 1)[-1] + "]"


def _blocks_text(blocks: list[Block]) -> str:
    out: list[str] = []
    for b in blocks:
        if b.type in MEDIA_BLOCK_TYPES:
            out.append(_placeholder(b.type))
        elif b.type == "function_tool_result":
            out.append(_blocks_text(b.content))
        elif b.text and b.type != "reasoning":
            out.append(b.text)
    return "\n".join(out)


def _normalize(index: int, msg: Message | AgenticMessage) -> _Entry:
    entry = _Entry(index=index, role=msg.role, internal=is_internal(msg))
    if isinstance(msg, Message):
        media = " ".join(_placeholder(p.type) for p in msg.parts if p.type in MEDIA_PART_TYPES)
        if msg.role == "tool":
            texts = [p.text or "" for p in msg.parts if p.type == "text"]
            body = "\n".join(texts) if texts else msg.content
            name = msg.tool_name or msg.name or "tool"
            entry.results.append((msg.tool_call_id or "", name, body))
        elif msg.role == "assistant":
            entry.text = assistant_text(msg)
            entry.calls = [_Call(c.id, c.name, c.arguments, index) for c in msg.tool_calls]
        elif msg.role == "user":
            entry.text = user_text(msg)
        else:
            entry.text = msg.content
        if entry.text.strip() in _NULL_TEXTS:
            entry.text = ""
        if media:
            entry.text = (entry.text + " " + media).strip()
        return entry
    if msg.role == "assistant":
        entry.text = assistant_text(msg)
        entry.calls = [
            _Call(b.call_id or "", b.name or "", b.arguments or "", index)
            for b in msg.blocks
            if b.type == "function_tool_call"
        ]
    else:
        entry.text = _blocks_text([b for b in msg.blocks if b.type != "function_tool_result"])
        entry.results = [
            (b.call_id or "", b.name or "tool", _blocks_text(b.content))
            for b in msg.blocks
            if b.type == "function_tool_result"
        ]
    if entry.text.strip() in _NULL_TEXTS:
        entry.text = ""
    return entry


def _is_real_user(e: _Entry) -> bool:
    return e.role == "user" and not e.internal and not e.results and bool(e.text.strip())


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_RE.split(_clean(text)) if s.strip()]


def _args(call: _Call) -> dict[str, Any]:
    try:
        value = json.loads(call.arguments) if call.arguments else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _call_texts(call: _Call) -> list[str]:
    """The string values of a call's JSON arguments (the raw arguments when not JSON)."""
    args = _args(call)
    if not args:
        return [call.arguments]
    return [v for _, v in sorted(args.items()) if isinstance(v, str)]


def _call_line(call: _Call, limit: int) -> str:
    args = _args(call)
    for key in _COMMAND_KEYS:
        if isinstance(args.get(key), str):
            return f"{call.name}: {_one_line(args[key], limit)}"
    return f"{call.name}({_one_line(call.arguments, limit)})"


def _dedup(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def _head_tail(items: list[str], head: int, tail: int, what: str) -> list[str]:
    if len(items) <= head + tail:
        return items
    omitted = len(items) - head - tail
    return [*items[:head], f"… ({omitted} {what} omitted)", *items[len(items) - tail :]]


def _bullets(items: list[str], empty: str = "None.") -> str:
    """``   - item`` lines; items starting with two spaces become nested ``     - item``."""
    if not items:
        return f"   - {empty}"
    return "\n".join(
        f"     - {item[2:]}" if item.startswith("  ") else f"   - {item}" for item in items
    )


def _prior_user_messages(text: str) -> list[str]:
    """User message lines carried in an earlier summary's ``<all_user_messages>`` block."""
    match = re.search(r"<all_user_messages>(.*?)</all_user_messages>", text, re.DOTALL)
    if not match:
        return []
    return [
        line.strip()[2:].strip()
        for line in match.group(1).splitlines()
        if line.strip().startswith("- ") and not line.strip().startswith("- …")
    ]


class _Facts:
    """Everything extracted from the context, before formatting.

    The scans (paths, identifiers, errors, sentences) do not depend on the section limits, so
    each runs once however many limits :func:`summarize_transcript` tries.
    """

    def __init__(self, entries: list[_Entry]) -> None:
        self.entries = entries
        self.users = [e for e in entries if _is_real_user(e)]
        self.assistants = [e for e in entries if e.role == "assistant"]
        self.calls = [c for e in entries for c in e.calls]
        answered = {cid for e in entries for cid, _, _ in e.results if cid}
        self.unanswered = [c for c in self.calls if c.id and c.id not in answered]
        self.prior: list[str] = []
        self.prior_users: list[str] = []
        for e in entries:
            if e.internal:
                self.prior.append(e.text)
                self.prior_users.extend(_prior_user_messages(e.text))

    @cached_property
    def paths(self) -> list[tuple[str, int, str, bool]]:
        """(path, mentions, last tool that touched it, named by a message or a tool call)."""
        counts: Counter[str] = Counter()
        order: dict[str, None] = {}
        touched: dict[str, str] = {}
        spoken: set[str] = set()
        for e in self.entries:
            if e.role in ("user", "assistant") and not e.internal:
                cleaned = _without_urls(e.text)
                spoken.update(m.group(1).rstrip(".") for m in _PATH_RE.finditer(cleaned))

        def scan(text: str) -> None:
            for match in _PATH_RE.finditer(_without_urls(text)):
                path = match.group(1).rstrip(".")
                if path.count(".") and path.replace(".", "").isdigit():
                    continue
                order.setdefault(path, None)
                counts[path] += 1

        for e in self.entries:
            if e.internal:
                continue
            scan(e.text)
            for _, _, body in e.results:
                scan(body[:20_000])
            for call in e.calls:
                args = _args(call)
                for key in _PATH_KEYS:
                    value = args.get(key)
                    if isinstance(value, str) and value:
                        order.setdefault(value, None)
                        counts[value] += 1
                        touched[value] = call.name
                for text in _call_texts(call):
                    scan(text)
        return [(p, counts[p], touched.get(p, ""), p in touched or p in spoken) for p in order]

    @cached_property
    def snippets(self) -> dict[str, str]:
        """The last code snippet written to each path by a tool call."""
        out: dict[str, str] = {}
        for call in self.calls:
            args = _args(call)
            path = next(
                (args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None
            )
            if path is None:
                continue
            for key in _SNIPPET_KEYS:
                value = args.get(key)
                if isinstance(value, str) and value.strip():
                    out[path] = value
                    break
        return out

    @cached_property
    def identifiers(self) -> list[tuple[str, int]]:
        counts: Counter[str] = Counter()
        order: dict[str, None] = {}
        for e in self.entries:
            if e.internal:
                continue
            texts = [e.text, *(t for c in e.calls for t in _call_texts(c))]
            for text in texts:
                for match in _BACKTICK_RE.finditer(text):
                    word = match.group(1).strip()
                    if not re.search(r"[A-Za-z]", word):
                        continue
                    order.setdefault(word, None)
                    counts[word] += 2
                for match in _IDENT_RE.finditer(text):
                    word = next(g for g in match.groups() if g)
                    order.setdefault(word, None)
                    counts[word] += 1
        position = {w: i for i, w in enumerate(order)}
        ranked = sorted(order, key=lambda w: (-counts[w], position[w]))
        return [(w, counts[w]) for w in ranked]

    @cached_property
    def errors(self) -> list[tuple[str, str]]:
        """(error line, what the assistant said next) pairs, in order."""
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        for pos, e in enumerate(self.entries):
            for _, name, body in e.results:
                cleaned = _clean(body)
                if not _has_error(cleaned):
                    continue  # no line of it can match either (the pattern has no anchors)
                lines = [ln.strip() for ln in cleaned.splitlines() if ln.strip()]
                hits = [ln for ln in lines if _has_error(ln) and not _LISTING_RE.match(ln)]
                if not hits:
                    continue
                # The last matching line usually carries the actual exception message.
                line = f"{name}: {hits[-1]}"
                key = " ".join(line.split())[:120]
                if key in seen:
                    continue
                seen.add(key)
                out.append((line, self._next_assistant_text[pos]))
        return out

    @cached_property
    def _next_assistant_text(self) -> list[str]:
        """Per entry: the text of the first later assistant message that has one ("" if none)."""
        out = [""] * len(self.entries)
        following = ""
        for pos in range(len(self.entries) - 1, -1, -1):
            out[pos] = following
            e = self.entries[pos]
            if e.role == "assistant" and e.text.strip():
                following = e.text
        return out

    @cached_property
    def failed(self) -> set[int]:
        """Positions of the entries with a tool result that reports an error."""
        return {
            pos
            for pos, e in enumerate(self.entries)
            if any(_has_error(body) for _, _, body in e.results)
        }

    @cached_property
    def constraints(self) -> list[str]:
        return [s for u in self.users for s in _sentences(u.text) if _CONSTRAINT_RE.search(s)]

    @cached_property
    def decisions(self) -> list[str]:
        return [s for a in self.assistants for s in _sentences(a.text) if _DECISION_RE.search(s)]

    @cached_property
    def pending(self) -> list[str]:
        return [
            s
            for e in self.entries
            if (_is_real_user(e) or e.role == "assistant") and not e.internal
            for s in _sentences(e.text)
            if _PENDING_RE.search(s)
        ]


def _sections(facts: _Facts, lim: _Limits) -> tuple[str, str]:
    """(analysis, summary body) for the given limits."""
    ic, n = lim.item_chars, lim.items
    users = facts.users

    # -- analysis: a short chronological walk -----------------------------------------------
    steps: list[str] = []
    current: list[str] = []
    for pos, e in enumerate(facts.entries):
        if e.internal:
            steps.append("An earlier summary of the conversation was given.")
        elif _is_real_user(e):
            steps.append(f"User: {_quote(e.text, min(ic, 160))}")
        elif e.role == "assistant":
            current = [c.name for c in e.calls]
            said = f"Assistant: {_quote(e.text, min(ic, 120))}" if e.text.strip() else ""
            tools = f"called {', '.join(current)}" if current else ""
            line = "; ".join(x for x in (said, tools) if x)
            if line:
                steps.append(line if said else f"Assistant {line}")
        elif pos in facts.failed:
            steps.append("A tool result reported an error.")
    merged: list[str] = []
    for step in steps:
        if merged and step.startswith("Assistant called") and merged[-1].startswith("Assistant"):
            merged[-1] = merged[-1] + "; then " + step.removeprefix("Assistant ")
            merged[-1] = _one_line(merged[-1], ic)
        else:
            merged.append(step)
    walk = _head_tail(merged, lim.walk // 3, lim.walk - lim.walk // 3, "steps")
    n_tools = len(facts.calls)
    analysis = "\n".join(
        [
            f"The conversation has {len(facts.entries)} messages: {len(users)} from the user, "
            f"{len(facts.assistants)} from the assistant and {n_tools} tool calls.",
            *(f"{i}. {s}" for i, s in enumerate(walk, 1)),
        ]
    )

    # -- 1. primary request and intent ------------------------------------------------------
    intent: list[str] = []
    if users:
        intent.append(f"Initial request: {_quote(users[0].text, ic * 2)}")
        later = [
            _quote(_sentences(u.text)[0] if _sentences(u.text) else u.text, ic) for u in users[1:]
        ]
        if later:
            intent.append("Later requests: " + "; ".join(_head_tail(later, 2, n // 3, "more")))
    elif facts.prior:
        intent.append("Continues the work described in the earlier summary.")
    constraints = _dedup([_one_line(s, ic) for s in facts.constraints if len(s) > 8])
    sec1 = "\n".join(f"   {x}" for x in intent) or "   No explicit request in this part."
    if constraints:
        sec1 += "\n   Constraints and preferences stated by the user:\n" + "\n".join(
            f"   - {c}" for c in _head_tail(constraints, n // 2, n // 2, "more")
        )

    # -- 2. key technical concepts ----------------------------------------------------------
    tool_counts: Counter[str] = Counter(c.name for c in facts.calls)
    tool_order = list(dict.fromkeys(c.name for c in facts.calls))
    concepts: list[str] = []
    if tool_order:
        ranked = sorted(tool_order, key=lambda t: (-tool_counts[t], tool_order.index(t)))
        concepts.append(
            "Tools used: " + ", ".join(f"{t} ({tool_counts[t]}×)" for t in ranked[: n + 4])
        )
    idents = [w for w, _ in facts.identifiers[: n * 2]]
    if idents:
        concepts.append("Identifiers: " + ", ".join(f"`{w}`" for w in idents))
    sec2 = _bullets(concepts)

    # -- 3. files and code sections ---------------------------------------------------------
    snippets = facts.snippets
    files: list[str] = []
    found = facts.paths
    primary = [p for p in found if p[3]]
    others = [p for p in found if not p[3]]
    cap = n + 3
    omitted = 0
    if len(primary) > cap:
        head = cap // 3
        omitted = len(primary) - cap
        chosen = primary[:head] + primary[len(primary) - (cap - head) :]
    else:
        chosen = primary + others[: cap - len(primary)]
    for pos, (path, count, tool, _) in enumerate(chosen):
        if omitted and pos == cap // 3:
            files.append(f"… ({omitted} more files omitted)")
        line = f"{path} (mentioned {count}×" + (f", last touched by {tool})" if tool else ")")
        snippet = snippets.get(path)
        if snippet:
            code = "\n".join(_clean(snippet).splitlines()[:6])[: ic * 2]
            line += "\n     ```\n" + "\n".join(f"     {ln}" for ln in code.splitlines())
            line += "\n     ```"
        files.append(line)
    sec3 = _bullets(files, "No files were mentioned.")

    # -- 4. errors and fixes ----------------------------------------------------------------
    errs = []
    for line, follow in facts.errors:
        item = _one_line(line, ic)
        if follow:
            item += f"\n     Next: {_quote(follow, ic)}"
        errs.append(item)
    sec4 = _bullets(_head_tail(errs, n // 3, n - n // 3, "errors"), "No errors were reported.")

    # -- 5. problem solving -----------------------------------------------------------------
    commands = [_call_line(c, ic) for c in facts.calls]
    decisions = _dedup([_one_line(s, ic) for s in facts.decisions if len(s) > 15])
    solving: list[str] = []
    if facts.prior:
        solving.append(
            "Earlier work is recorded in a previous summary (kept below where relevant)."
        )
    if commands:
        solving.append(f"Commands and tool calls ({len(commands)} in total):")
        solving.extend(f"  {c}" for c in _head_tail(commands, n // 3, n - n // 3, "calls"))
    if decisions:
        solving.append("Reasoning and decisions:")
        solving.extend(f"  {d}" for d in _head_tail(decisions, n // 4, n // 2, "more"))
    sec5 = _bullets(solving, "No problem solving recorded.")

    # -- 6. all user messages ---------------------------------------------------------------
    all_users = [*facts.prior_users, *(_one_line(u.text, lim.user_chars) for u in users)]
    all_users = _head_tail(all_users, lim.users_head, lim.users_tail, "messages")
    sec6 = "<all_user_messages>\n"
    sec6 += "".join(f"    - {_one_line(u, lim.user_chars)}\n" for u in all_users)
    sec6 += "</all_user_messages>"

    # -- 7. pending tasks -------------------------------------------------------------------
    pending: list[str] = []
    last_user_pos = max((e.index for e in users), default=-1)
    last_asst_pos = max((e.index for e in facts.assistants), default=-1)
    if users and last_user_pos > last_asst_pos:
        pending.append(f"Answer the latest user message: {_quote(users[-1].text, ic)}")
    for call in facts.unanswered:
        pending.append(f"Tool call without a result yet: {_call_line(call, ic)}")
    pending.extend(_dedup([_one_line(s, ic) for s in facts.pending])[-(n // 2) :])
    sec7 = _bullets(_dedup(pending)[:n], "No pending tasks were stated.")

    # -- 8. current work --------------------------------------------------------------------
    work: list[str] = []
    last_text = next((a for a in reversed(facts.assistants) if a.text.strip()), None)
    last_calls = next((a.calls for a in reversed(facts.assistants) if a.calls), [])
    if last_text is not None:
        work.append(f"Last assistant message: {_quote(last_text.text, ic * 2)}")
    if last_calls:
        work.append("Last tool calls: " + "; ".join(_call_line(c, ic) for c in last_calls[:3]))
    last_result = next(
        (r for e in reversed(facts.entries) for r in reversed(e.results) if r[2].strip()), None
    )
    if last_result is not None:
        work.append(f"Last tool result ({last_result[1]}): {_quote(last_result[2], ic)}")
    if users:
        exchange = f"Last exchange: user said {_quote(users[-1].text, ic)}"
        reply = next(
            (a for a in facts.assistants if a.index > users[-1].index and a.text.strip()), None
        )
        if reply is not None:
            exchange += f"; assistant replied {_quote(reply.text, ic)}"
        work.append(exchange)
    sec8 = _bullets(work, "No work in progress.")

    # -- 9. optional next step --------------------------------------------------------------
    if users and last_user_pos > last_asst_pos:
        nxt = f"Respond to the user's latest request: {_quote(users[-1].text, ic)}"
    elif facts.unanswered:
        nxt = f"Get the result of the pending tool call {_call_line(facts.unanswered[-1], ic)}."
    elif last_text is not None:
        nxt = (
            "Continue in line with the latest request; work stopped at: "
            f"{_quote(last_text.text, ic)}"
        )
    else:
        nxt = "None."
    sec9 = f"   {nxt}"

    summary = "\n".join(
        [
            "1. Primary Request and Intent:",
            sec1,
            "2. Key Technical Concepts:",
            sec2,
            "3. Files and Code Sections:",
            sec3,
            "4. Errors and fixes:",
            sec4,
            "5. Problem Solving:",
            sec5,
            "6. All user messages:",
            sec6,
            "7. Pending Tasks:",
            sec7,
            "8. Current Work:",
            sec8,
            "9. Optional Next Step:",
            sec9,
        ]
    )
    return analysis, summary


def summarize_transcript(context: list[Message] | list[AgenticMessage] | list[Any]) -> str:
    """The ``<analysis>`` + ``<summary>`` text for a context (no instruction messages)."""
    items: list[Message | AgenticMessage] = list(context)
    entries = [_normalize(i, m) for i, m in enumerate(items)]
    facts = _Facts(entries)
    input_tokens = sum(estimate_message(m) for m in items)
    budget = MAX_SUMMARY_TOKENS
    if input_tokens > 20_000:
        budget = min(budget, int(input_tokens * 0.3))
    text = ""
    for factor in (1.0, 0.7, 0.5, 0.35, 0.25, 0.15, 0.1):
        analysis, summary = _sections(facts, _BASE_LIMITS.scaled(factor))
        text = f"<analysis>\n{analysis}\n</analysis>\n\n<summary>\n{summary}\n</summary>"
        if estimate_text(text) <= budget:
            break
    return text


def _strip_instructions(messages: list[Any]) -> list[Any]:
    context = list(messages)
    if context and context[0].role == "system":
        context = context[1:]
    if context and context[-1].role == "user":
        last = context[-1]
        is_result = isinstance(last, AgenticMessage) and any(
            b.type == "function_tool_result" for b in last.blocks
        )
        if not is_result and not is_internal(last):
            context = context[:-1]
    return context


class LocalSummarizer:
    """The embedded summarizer (``name = "local"``); see the module docstring."""

    name = "local"

    def __repr__(self) -> str:
        return "LocalSummarizer()"

    async def generate(self, messages: list[Any], **options: Any) -> Any:
        """Summarize the context between the instruction messages; deterministic."""
        kind = message_kind(messages)
        context = _strip_instructions(messages)
        text = summarize_transcript(context)
        prompt = sum(estimate_message(m) for m in messages)
        completion = estimate_text(text)
        usage = Usage(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )
        msg = make_assistant(kind, text, usage)
        if isinstance(msg, Message):
            msg.finish_reason = "stop"
        return msg
