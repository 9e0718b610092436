"""Retention check: which hard facts of the compacted part did the summary drop, and put them back.

A summary is written by a model, and models drop things: the path of the file being edited, the
exact error message, a "never push to main" said two hours ago. This module pulls deterministic
*anchors* out of the messages that are summarized away (:func:`extract_anchors`), checks which of
them the summary still mentions (:func:`check_retention`) and appends the missing ones verbatim in
a tenth section (:func:`repair_summary`). :func:`apply_retention` does all three and reports the
scores (:class:`RetentionReport`).

Anchor kinds, in selection priority (see :data:`KIND_PRIORITY`):

``instruction``
    Sentences of the user's own messages (not tool results, not messages the compactor wrote,
    not text the agent CLI injected: ``is_internal`` / ``extra["injected"]``) containing *must*,
    *never*, *don't*, *do not*, *always* or *make sure*; at most 200 characters.
``error``
    One informative line per error (at most 200 characters). From a tool result: the error lines
    of a call that failed (its ``is_error`` flag, a non-zero exit code, or an error line in the
    output of a command that does not just read or search files: see
    :func:`compactor.facts.outcome`), so source lines a search printed are not errors. From user
    and assistant text: ``XxxError: message`` / ``XxxException…``, ``error: …`` /
    ``error[E0308]: …`` / ``error TS2322: …`` (also after ``file:line:col:`` or ``program:``
    prefixes), ``fatal: …``, ``FAILED …``, ``panic: …`` / ``panicked at …``, ``npm ERR! …``,
    ``…: command not found``, ``…: No such file or directory``, ``N failed``.
``path``
    File paths: ``src/app.py``, ``/etc/hosts``, ``./x/y.ts``, ``~/.ssh/config``, ``C:\\x\\y``,
    ``README.md``: a relative path needs a known extension on its last part, an absolute one two
    parts or an extension. From user and assistant text and tool-call arguments; from tool results
    only on traceback frames and ``path:line:`` diagnostics (listings would drown everything else).
``identifier``
    From user and assistant text only: ``snake_case(`` and ``dotted.name(`` calls, CamelCase names
    in backticks, after ``class``/``new``/``extends``/… or followed by ``(``/``.``/``::``,
    three-hump CamelCase names, dotted module paths of three or more lower-case parts, and
    identifier-like backtick spans (with ``_``, ``.``, ``::`` or an inner capital).
``url``
    ``http(s)``, ``ws(s)``, ``ftp``, ``file``, ``git``, ``ssh`` URLs from user and assistant text
    and tool-call arguments (URLs over 300 characters are skipped).
``number``
    Numbers with context only: versions (``3.11.7``, ``v2.0.1``, ``Python 3.11``,
    ``django==4.2``), ports (``port 8080``, ``localhost:3000``), issues (``#123``, ``issue 45``),
    non-zero exit codes (``exit code 2``, ``exited with code 1``) and HTTP statuses
    (``HTTP 404``, ``status code 500``). Exit codes and statuses also from tool results.

System messages and reasoning are never read. An internal message (an earlier summary) gives no
anchors of its own, except the facts of its ``<preserved_facts>`` block, so facts repaired once
survive the next compaction too.

Matching (:func:`check_retention`) compares case-folded text with whitespace collapsed and every
quote character (``"`` ``'`` ``‘`` ``’`` ``“`` ``”`` `````) made one, so a summary that re-quotes or
re-wraps a line still counts. An anchor is found when its text occurs in the summary with no word
character glued to either end, and also:

* ``path``: the path without a leading ``./``; for an absolute, ``~`` or Windows path its last two
  parts (``etc/hosts``, ``src/app.py``, also ``src\\app.py``);
* ``error``: the first 80 characters of a longer line (summaries shorten long messages);
* ``url``: the URL without a trailing ``/``;
* ``number``: the number itself for versions, ports, issues (``8080``, ``3.11.7``, ``#123``), and
  ``exit code N`` / ``exit status N`` / ``exited with code N`` for each other;
* ``instruction``: ≥ 80 % of its content words (words minus a short stop-word list; negations
  and modal verbs stay) occur in one sentence of the summary (sentences end at ``.``/``!``/``?``,
  a line break or a ``;``).

Only the summary text is read, ``<analysis>`` included: a fact mentioned there reaches the agent
too, since the default finalizer keeps the whole reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from compactor._json import JsonObject
from compactor._util import lazy_pattern
from compactor.facts import (
    ASSISTANT,
    CALL,
    RESULT,
    USER,
    Call,
    Result,
    error_lines,
    identifiers,
    instructions,
    internal_text,
    numbers,
    one_line,
    outcome,
    paths,
    result_paths,
    text_sources,
    urls,
)
from compactor.schema import AgenticMessage, M, Message, is_internal

__all__ = [
    "KIND_PRIORITY",
    "PRESERVED_FACTS_HEADER",
    "Anchor",
    "RetentionReport",
    "RetentionResult",
    "apply_retention",
    "check_retention",
    "extract_anchors",
    "repair_summary",
]

KIND_PRIORITY: tuple[str, ...] = ("instruction", "error", "path", "identifier", "url", "number")
"""Anchor kinds in selection priority: when there are more anchors than allowed, every
instruction is kept first (up to the limit), then the other kinds share what is left in rounds of
one anchor per kind in this order, each kind in order of first appearance."""

PRESERVED_FACTS_HEADER = (
    "10. Preserved facts (verbatim from the compacted part; the summary above missed them):"
)
"""The title of the section :func:`repair_summary` adds."""


@dataclass(frozen=True, slots=True)
class Anchor:
    """One fact a summary should keep: its kind (see the module docstring) and its exact text."""

    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class RetentionResult:
    """Which anchors a summary mentions; ``score`` = found / total (1.0 without anchors)."""

    found: list[Anchor]
    missing: list[Anchor]
    score: float


@dataclass(frozen=True, kw_only=True, slots=True)
class RetentionReport:
    """What :func:`apply_retention` measured and repaired."""

    score_before: float
    """Share of anchors the model's summary mentioned."""
    score_after: float
    """Share of anchors the repaired summary mentions (1.0 unless ``max_facts`` cut the repair)."""
    anchors: int
    """Number of anchors checked."""
    missing_before: int
    """Number of anchors the model's summary missed."""
    repaired: int
    """Number of missing anchors appended to the summary."""
    anchors_by_kind: dict[str, int] = field(default_factory=dict)
    missing_by_kind: dict[str, int] = field(default_factory=dict)
    repaired_by_kind: dict[str, int] = field(default_factory=dict)
    repaired_facts: tuple[Anchor, ...] = ()
    """The anchors appended (already transformed: they are in the summary text anyway)."""

    def to_dict(self) -> JsonObject:
        """JSON-safe: scores, counts by kind, and the texts of the repaired facts only."""
        return {
            "score_before": round(self.score_before, 4),
            "score_after": round(self.score_after, 4),
            "anchors": {"total": self.anchors, "by_kind": dict(self.anchors_by_kind)},
            "missing_before": {"total": self.missing_before, "by_kind": dict(self.missing_by_kind)},
            "repaired": {
                "total": self.repaired,
                "by_kind": dict(self.repaired_by_kind),
                "facts": [{"kind": a.kind, "text": a.text} for a in self.repaired_facts],
            },
        }


# --------------------------------------------------------------------------------------------------
# Extraction (the patterns live in compactor.facts, shared with the embedded summarizer)

_PRESERVED_BLOCK_RE = lazy_pattern(
    r"\n?" + re.escape(PRESERVED_FACTS_HEADER) + r"\n<preserved_facts>\n(.*?)</preserved_facts>\n?",
    re.DOTALL,
)
_FACT_LINE_RE = lazy_pattern(r"^\s*- \[([a-z_]+)\] (.+)$")
_SPLIT_RE = lazy_pattern(r"[/\\]")


def _preserved_facts(text: str) -> Iterator[Anchor]:
    for block in _PRESERVED_BLOCK_RE.finditer(text):
        for line in block.group(1).splitlines():
            fact = _FACT_LINE_RE.match(line)
            if fact and fact.group(1) in KIND_PRIORITY:
                yield Anchor(fact.group(1), fact.group(2).strip())


def _result_errors(result: Result, call: Call | None) -> Iterator[tuple[int, str]]:
    """The error lines of a tool result whose call failed (:func:`compactor.facts.outcome`)."""
    failure = outcome(result, call)
    if not failure.failed:
        return
    found = list(error_lines(result.text))
    if found:
        yield from found
    elif failure.lines:
        yield 0, failure.lines[0]


def _anchors_of(
    source: str, text: str, result: Result | None, calls: dict[str, Call]
) -> list[tuple[str, str]]:
    """(kind, text) anchors of one text, in order of position (ties: kind priority)."""
    found: list[tuple[int, int, str, str]] = []  # (position, kind order, kind, text)

    def collect(kind: str, items: Iterator[tuple[int, str]]) -> None:
        order = KIND_PRIORITY.index(kind)
        found.extend((pos, order, kind, item) for pos, item in items)

    if source == USER:
        collect("instruction", instructions(text))
    if source == RESULT and result is not None:
        collect("error", _result_errors(result, calls.get(result.call_id)))
    elif source != CALL:
        collect("error", error_lines(text))
    if source == RESULT:
        collect("path", result_paths(text))
    else:
        collect("path", paths(text))
        collect("url", urls(text))
    if source in (USER, ASSISTANT):
        collect("identifier", identifiers(text))
    collect("number", numbers(text, from_result=source == RESULT))
    found.sort(key=lambda f: (f[0], f[1]))
    return [(kind, item) for _, _, kind, item in found]


def _calls_by_id(messages: Sequence[Message | AgenticMessage]) -> dict[str, Call]:
    calls: dict[str, Call] = {}
    for msg in messages:
        if msg.role != "assistant":
            continue
        if isinstance(msg, Message):
            for c in msg.tool_calls:
                calls[c.id] = Call(c.id, c.name, c.arguments, 0)
        else:
            for b in msg.blocks:
                if b.type == "function_tool_call" and b.call_id:
                    calls[b.call_id] = Call(b.call_id, b.name or "", b.arguments or "", 0)
    return calls


def _all_anchors(messages: Sequence[Message | AgenticMessage]) -> list[Anchor]:
    """Every anchor, deduplicated (case, quotes and whitespace ignored), in order of appearance."""
    seen: dict[tuple[str, str], Anchor] = {}
    calls = _calls_by_id(messages)
    for msg in messages:
        if is_internal(msg):
            pairs = [(a.kind, a.text) for a in _preserved_facts(internal_text(msg))]
        else:
            pairs = [
                pair
                for source, text, result in text_sources(msg)
                if text.strip()
                for pair in _anchors_of(source, text, result, calls)
            ]
        for kind, text in pairs:
            text = one_line(text)
            if text:
                seen.setdefault((kind, _norm(text)), Anchor(kind, text))
    # a bare file name adds nothing when a path ending in it is an anchor too
    dirs = {
        _norm(_SPLIT_RE.split(a.text)[-1])
        for a in seen.values()
        if a.kind == "path" and _SPLIT_RE.search(a.text)
    }
    return [
        a
        for a in seen.values()
        if not (a.kind == "path" and not _SPLIT_RE.search(a.text) and _norm(a.text) in dirs)
    ]


def _select(anchors: Sequence[Anchor], limit: int) -> list[Anchor]:
    """At most ``limit`` anchors, chosen by :data:`KIND_PRIORITY`; kept in their original order."""
    if len(anchors) <= limit:
        return list(anchors)
    by_kind: dict[str, list[int]] = {kind: [] for kind in KIND_PRIORITY}
    for i, anchor in enumerate(anchors):
        by_kind.setdefault(anchor.kind, []).append(i)
    chosen: list[int] = by_kind["instruction"][:limit]
    queues = [list(reversed(by_kind[k])) for k in by_kind if k != "instruction"]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop())
    return [anchors[i] for i in sorted(chosen)]


def extract_anchors(messages: Sequence[M], *, max_anchors: int = 200) -> list[Anchor]:
    """The anchors of ``messages`` (the part being summarized away), in order of first appearance.

    Deterministic and deduplicated (case and whitespace ignored). When there are more than
    ``max_anchors``, the selection follows :data:`KIND_PRIORITY`.
    """
    if max_anchors < 0:
        raise ValueError(f"max_anchors must be >= 0, got {max_anchors!r}")
    items: Sequence[Message | AgenticMessage] = messages
    return _select(_all_anchors(items), max_anchors)


# --------------------------------------------------------------------------------------------------
# Checking

_QUOTES = str.maketrans(dict.fromkeys("\"'‘’“”`´", "'"))
_STOP_WORDS = frozenset(
    "a an the to of in on at for by with from and or as is are be been it its this that these "
    "those i you we he she they me my our your us them their there here so if then than also "
    "into onto about".split()
)
_WORD_RE = lazy_pattern(r"[a-z0-9][a-z0-9_'\-]*")


def _norm(text: str) -> str:
    """Case-folded, quotes made one, control characters dropped, whitespace collapsed."""
    return one_line(text.casefold().translate(_QUOTES))


def _words(text: str) -> list[str]:
    return [w.strip("'-") for w in _WORD_RE.findall(_norm(text)) if w.strip("'-")]


def _content_words(text: str) -> list[str]:
    words = _words(text)
    content = [w for w in words if w not in _STOP_WORDS]
    return list(dict.fromkeys(content or words))


def _contains(hay: str, needle: str, *, right: bool = True) -> bool:
    """``needle`` in ``hay`` with no word character glued to its ends (both normalized)."""
    if not needle:
        return False
    start = hay.find(needle)
    while start >= 0:
        end = start + len(needle)
        ok_left = start == 0 or not (_is_word(hay[start - 1]) and _is_word(needle[0]))
        ok_right = not right or end == len(hay) or not (_is_word(hay[end]) and _is_word(needle[-1]))
        if ok_left and ok_right:
            return True
        start = hay.find(needle, start + 1)
    return False


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _path_variants(path: str) -> list[str]:
    variants = [path]
    if path.startswith("./"):
        variants.append(path[2:])
    if path.startswith(("/", "~/")) or re.match(r"[a-z]:\\", path):
        parts = [p for p in re.split(r"[/\\]", path) if p and p != "~"]
        if len(parts) >= 2:
            variants.append("/".join(parts[-2:]))
            if "\\" in path:
                variants.append("\\".join(parts[-2:]))
    return variants


_ISSUE_WORD_RE = lazy_pattern(r"(?:issue|pr|pull request|bug|ticket) #?(\d+)$")
_EXIT_RE = lazy_pattern(r"exit\D*?(\d+)$")
_VERSION_CORE_RE = lazy_pattern(r"v?(\d+(?:\.\d+)+(?:-[0-9a-z.]+)?)$")
_PORT_RE = lazy_pattern(r"(?:port\D*|:)(\d+)$")


def _number_variants(text: str) -> list[str]:
    """Other spellings that count as mentioning the (normalized) number anchor ``text``."""
    if match := _EXIT_RE.search(text):
        n = match.group(1)
        return [f"exit code {n}", f"exit status {n}", f"exited with code {n}", f"exit code: {n}"]
    if text.startswith(("http", "status code")):
        return []
    if match := _ISSUE_WORD_RE.search(text):
        return [f"#{match.group(1)}"]
    if match := _PORT_RE.search(text):
        return [match.group(1)]
    if match := _VERSION_CORE_RE.search(text):
        return [match.group(1)]
    return []


_CLAUSE_RE = lazy_pattern(r"(?<=[.!?])\s+|\n+|;\s*")


class _Summary:
    """The summary, normalized once for many checks."""

    def __init__(self, text: str) -> None:
        self.text = _norm(text)
        self.sentences = [set(_words(s)) for s in _CLAUSE_RE.split(text.translate(_QUOTES))]

    def has(self, anchor: Anchor) -> bool:
        text = _norm(anchor.text)
        if _contains(self.text, text):
            return True
        if anchor.kind == "path":
            return any(_contains(self.text, v) for v in _path_variants(text)[1:])
        if anchor.kind == "error":
            return len(text) > 80 and _contains(self.text, text[:80], right=False)
        if anchor.kind == "url":
            return text.endswith("/") and _contains(self.text, text.rstrip("/"))
        if anchor.kind == "number":
            return any(_contains(self.text, v) for v in _number_variants(text))
        if anchor.kind == "instruction":
            words = _content_words(text)
            need = 0.8 * len(words)
            return any(len(s.intersection(words)) >= need for s in self.sentences)
        return False


def check_retention(anchors: Sequence[Anchor], summary_text: str) -> RetentionResult:
    """Which ``anchors`` ``summary_text`` mentions (matching rules: see the module docstring)."""
    summary = _Summary(summary_text)
    found: list[Anchor] = []
    missing: list[Anchor] = []
    for anchor in anchors:
        (found if summary.has(anchor) else missing).append(anchor)
    score = len(found) / len(anchors) if anchors else 1.0
    return RetentionResult(found=found, missing=missing, score=score)


# --------------------------------------------------------------------------------------------------
# Repair


def _facts_block(facts: Sequence[Anchor]) -> str:
    lines = "".join(f"    - [{a.kind}] {a.text}\n" for a in facts)
    return f"\n{PRESERVED_FACTS_HEADER}\n<preserved_facts>\n{lines}</preserved_facts>\n"


def repair_summary(summary_text: str, missing: Sequence[Anchor]) -> str:
    """``summary_text`` with ``missing`` appended verbatim in a ``<preserved_facts>`` section.

    The section goes just before the last ``</summary>`` (else at the end). An existing section
    (from an earlier repair) is merged with the new facts, not duplicated, so repairing twice with
    the same facts gives the same text. Without facts to add, the text is returned unchanged.
    """
    existing: list[Anchor] = []
    blocks = list(_PRESERVED_BLOCK_RE.finditer(summary_text))
    for block in blocks:
        for line in block.group(1).splitlines():
            fact = _FACT_LINE_RE.match(line)
            if fact:
                existing.append(Anchor(fact.group(1), fact.group(2)))
    merged: dict[tuple[str, str], Anchor] = {}
    for anchor in [*existing, *(Anchor(a.kind, one_line(a.text)) for a in missing)]:
        if anchor.text:
            merged.setdefault((anchor.kind, _norm(anchor.text)), anchor)
    if not merged:
        return summary_text
    text = _PRESERVED_BLOCK_RE.sub("", summary_text)
    section = _facts_block(list(merged.values()))
    close = text.rfind("</summary>")
    if close < 0:
        return text + section
    return text[:close] + section + text[close:]


def _by_kind(anchors: Sequence[Anchor]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for anchor in anchors:
        counts[anchor.kind] = counts.get(anchor.kind, 0) + 1
    return {k: counts[k] for k in sorted(counts, key=_kind_order)}


def _kind_order(kind: str) -> tuple[int, str]:
    return (KIND_PRIORITY.index(kind) if kind in KIND_PRIORITY else len(KIND_PRIORITY), kind)


def apply_retention(
    dropped: Sequence[M],
    summary_text: str,
    *,
    max_anchors: int = 200,
    max_facts: int = 50,
    transform: Callable[[str], str] | None = None,
) -> tuple[str, RetentionReport]:
    """Check ``summary_text`` against the anchors of ``dropped`` and repair what it missed.

    ``transform`` (the pipeline passes the secret masker's ``mask_text``) is applied to every
    anchor text before it is checked and inserted: the summarizer saw the transformed text, and no
    secret must be put back. At most ``max_facts`` missing anchors are appended, chosen by
    :data:`KIND_PRIORITY`. Returns the (possibly unchanged) summary and the report.
    """
    if max_facts < 0:
        raise ValueError(f"max_facts must be >= 0, got {max_facts!r}")
    anchors = extract_anchors(dropped, max_anchors=max_anchors)
    if transform is not None:
        unique: dict[tuple[str, str], Anchor] = {}
        for anchor in anchors:
            text = one_line(transform(anchor.text))
            if text:
                unique.setdefault((anchor.kind, _norm(text)), Anchor(anchor.kind, text))
        anchors = list(unique.values())
    before = check_retention(anchors, summary_text)
    facts = _select(before.missing, max_facts)
    repaired_text = repair_summary(summary_text, facts) if facts else summary_text
    after = check_retention(anchors, repaired_text) if facts else before
    report = RetentionReport(
        score_before=before.score,
        score_after=after.score,
        anchors=len(anchors),
        missing_before=len(before.missing),
        repaired=len(facts),
        anchors_by_kind=_by_kind(anchors),
        missing_by_kind=_by_kind(before.missing),
        repaired_by_kind=_by_kind(facts),
        repaired_facts=tuple(facts),
    )
    return repaired_text, report
