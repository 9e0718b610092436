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
    One informative line per error: ``XxxError: message`` / ``XxxException…`` (the last line of a
    traceback), ``error: …`` / ``error[E0308]: …`` / ``error TS2322: …`` (also after a
    ``file:line:col:`` prefix), ``fatal: …``, ``FAILED …``, ``panic: …`` / ``panicked at …``,
    ``npm ERR! …``, ``…: command not found``, ``…: No such file or directory``; at most 200
    characters. From tool results, user and assistant text.
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

import bisect
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .schema import AgenticMessage, Block, M, Message, assistant_text, is_internal, user_text

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

MAX_LINE = 200
"""Longest error or instruction anchor, in characters (longer lines are cut at a word)."""
MAX_URL = 300
"""URLs longer than this are not anchors (signed links, tracking URLs)."""


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

    def to_dict(self) -> dict[str, Any]:
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
# Text sources

_USER, _ASSISTANT, _CALL, _RESULT = "user", "assistant", "call", "result"


def _is_injected(msg: Message | AgenticMessage) -> bool:
    return msg.extra.get("injected") is True


def _json_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _json_strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _json_strings(v)


def _argument_texts(arguments: str | None) -> Iterator[str]:
    if not arguments:
        return
    try:
        value = json.loads(arguments)
    except ValueError:
        yield arguments
        return
    yield from _json_strings(value)


def _block_texts(blocks: Sequence[Block]) -> Iterator[str]:
    for b in blocks:
        if b.type == "function_tool_result":
            yield from _block_texts(b.content)
        elif b.text and b.type != "reasoning":
            yield b.text


def _sources(msg: Message | AgenticMessage) -> Iterator[tuple[str, str]]:
    """(source, text) pairs of one message that anchors may come from."""
    if msg.role == "system" or is_internal(msg) or _is_injected(msg):
        return
    if isinstance(msg, Message):
        if msg.role == "tool":
            texts = [p.text or "" for p in msg.parts if p.type == "text"]
            yield _RESULT, "\n".join(texts) if texts else msg.content
        elif msg.role == "assistant":
            yield _ASSISTANT, assistant_text(msg)
            for call in msg.tool_calls:
                for text in _argument_texts(call.arguments):
                    yield _CALL, text
        elif msg.role == "user":
            yield _USER, user_text(msg)
        return
    if msg.role == "assistant":
        yield _ASSISTANT, assistant_text(msg)
        for b in msg.blocks:
            if b.type == "function_tool_call":
                for text in _argument_texts(b.arguments):
                    yield _CALL, text
        return
    for b in msg.blocks:  # in block order: a user text may follow the tool results
        if b.type == "function_tool_result":
            yield _RESULT, "\n".join(_block_texts(b.content))
        elif b.type == "user_input_text" and b.text:
            yield _USER, b.text


def _internal_text(msg: Message | AgenticMessage) -> str:
    if isinstance(msg, Message):
        return user_text(msg) if msg.role == "user" else assistant_text(msg) or msg.content
    return "\n".join(_block_texts(msg.blocks))


# --------------------------------------------------------------------------------------------------
# Patterns

_WS_RE = re.compile(r"\s+")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+|\n+")
_LINE_RE = re.compile(r"[^\n\r]+")

_INSTRUCTION_RE = re.compile(r"\b(?:must|never|don['’]?t|do not|always|make sure)\b", re.IGNORECASE)

_ERROR_LINE_RES = (
    # Python / JS / Java exceptions: the line that names the exception (last line of a traceback)
    re.compile(
        r"^(?:Uncaught |Caused by: |Unhandled exception: )?"
        r"(?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*)?(?:Error|Exception)(?::\s*\S.*)?$"
    ),
    # compilers, linters, tools: error: ..., file:1:2: error[E0308]: ..., error TS2322: ...
    re.compile(
        r"^(?:\S+?:\d+(?::\d+)?:?\s+|\S+\(\d+,\d+\):\s+)?(?:fatal )?error"
        r"(?:\[[A-Za-z]*\d+\])?(?: [A-Z]+\d+)?:\s*\S.*$",
        re.IGNORECASE,
    ),
    re.compile(r"^(?:fatal|FATAL|panic|FAILED|ERROR)[: ]\s*\S.*$"),
    re.compile(r"^thread '.*' panicked at .+$"),
    re.compile(r"^npm ERR! .+$"),
    re.compile(r"^\S.*: (?:command not found|No such file or directory|Permission denied)$"),
)
# Lines that are code or listings, never error reports.
_NOT_ERROR_RE = re.compile(
    r"^(?:\d+\s*[:→|\t]|[→│|>#]|//|raise\b|throw\b|except\b|catch\b|class\b|def\b|import\b|"
    r"from\b|assert\b|return\b|export\b|const\b|let\b|var\b|if\b|elif\b|else\b|"
    r"[-*+] |\w+\s*=[^=])"
)

_EXTS = (
    "py|pyi|pyx|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|kts|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|"
    "md|mdx|rst|txt|json|jsonl|yaml|yml|toml|cfg|ini|sh|bash|zsh|ps1|html|htm|css|scss|sass|sql|"
    "lock|xml|csv|tsv|ipynb|env|conf|gradle|proto|tf|vue|svelte|mk|dockerfile|pem|log|sol|lua|"
    "dart|ex|exs|erl|hs|ml|r|jl|zig|nim|pl|pm|graphql|gql|prisma|wasm|bin|so|dll|exe|pdf|png|"
    "jpg|jpeg|gif|svg|webp|ico|zip|gz|tar|tgz|whl|plist|xcconfig|pbxproj|bat|cmd|service"
)
_SEG = r"[\w.@+\-]+"
_PATH_RE = re.compile(
    r"(?<![\w/.\-\\:@$])("
    # absolute, home-relative or dot-relative POSIX paths
    rf"(?:~|\.{{1,2}})?/(?:{_SEG}/)*{_SEG}"
    # relative paths with at least one directory
    rf"|(?:{_SEG}/)+{_SEG}"
    # Windows paths
    r"|[A-Za-z]:\\(?:[\w .\-]+\\)*[\w.\-]+"
    # bare file names with a known extension, and the usual extension-less names
    rf"|[\w\-]+(?:\.[\w\-]+)*\.(?:{_EXTS})"
    r"|(?:Makefile|Dockerfile|Justfile|Gemfile|Rakefile|Procfile|Jenkinsfile)"
    r")(?![\w/\\])",
    re.IGNORECASE,
)
_EXT_END_RE = re.compile(rf"\.(?:{_EXTS})$", re.IGNORECASE)
_NOISE_PATHS = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_PRODUCT_RE = re.compile(r"[A-Z][A-Za-z0-9]*\.js")
_BARE_NAME_RE = re.compile(
    r"(?:Makefile|Dockerfile|Justfile|Gemfile|Rakefile|Procfile|Jenkinsfile)"
)
# tool-result lines whose paths matter: traceback frames and file:line diagnostics
_RESULT_PATH_LINE_RE = re.compile(r'^\s*File "|^\s*at .*:\d+|^\S+:\d+(?::\d+)?[: ]')

_URL_RE = re.compile(r"\b(?:https?|wss?|ftp|file|git|ssh)://[^\s<>\"'`\]}|\\]+", re.IGNORECASE)
_URL_TRAIL = ".,;:!?*_"

_CALL_IDENT_RE = re.compile(
    r"(?<![\w.$])([a-z_][a-z0-9_]*_[a-z0-9_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\("
)
_CAMEL = r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+"
_CAMEL_CONTEXT_RE = re.compile(
    rf"(?:\b(?:class|new|extends|implements|interface|type|struct|enum|trait|impl)\s+)({_CAMEL})\b"
    rf"|\b({_CAMEL})(?=\(|\.[A-Za-z_]|::)"
    r"|\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,})\b"
)
_MODULE_RE = re.compile(r"(?<![\w./\-])([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,})(?![\w/\-(])")
_BACKTICK_RE = re.compile(r"`([^`\n]{2,80})`")
_BACKTICK_IDENT_RE = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\(\))?")
_TLDS = frozenset(
    "com org net io dev ai app co uk de fr jp cn ru edu gov info biz me us ca eu sh xyz "
    "cloud".split()
)

_NUMBER_RES: tuple[tuple[re.Pattern[str], bool], ...] = (
    # (pattern, also read from tool results)
    (
        re.compile(
            r"(?<![\w.\-])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\w\-]|\.\d)"
        ),
        False,
    ),
    (
        re.compile(
            r"\b(?:Python|Node(?:\.js)?|Go|Java|Ruby|PHP|Rust|TypeScript|Postgres(?:QL)?|MySQL|"
            r"Ubuntu|Debian|Alpine|Redis|Django|React|Next\.js|version)\s+v?\d+(?:\.\d+)+\b"
        ),
        False,
    ),
    (re.compile(r"(?<![\w.\-])[A-Za-z][\w.\-]*(?:==|>=|~=)\d+(?:\.\d+)+\b"), False),
    (re.compile(r"\bport\s*[:=]?\s*\d{2,5}\b", re.IGNORECASE), False),
    (re.compile(r"(?<![\w.])(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}\b"), False),
    (re.compile(r"(?<![\w#&/])#\d{1,6}(?![\w\-])"), False),
    (re.compile(r"\b(?:issue|PR|pull request|bug|ticket)\s+#?\d{1,6}\b", re.IGNORECASE), False),
    (
        re.compile(
            r"\b(?:exit (?:code|status)|exited with(?: code| status)?|"
            r"returned non-zero exit status)[:\s]\s*[1-9]\d{0,2}\b",
            re.IGNORECASE,
        ),
        True,
    ),
    (re.compile(r"\b(?:HTTP(?:/\d(?:\.\d)?)?|status code)[:\s]\s*[1-5]\d\d\b"), True),
)
_NUMBER_CORE_RE = re.compile(r"#?\d+(?:\.\d+)*(?:-[0-9A-Za-z.]+)?$")

_PRESERVED_BLOCK_RE = re.compile(
    r"\n?" + re.escape(PRESERVED_FACTS_HEADER) + r"\n<preserved_facts>\n(.*?)</preserved_facts>\n?",
    re.DOTALL,
)
_FACT_LINE_RE = re.compile(r"^\s*- \[([a-z_]+)\] (.+)$")


def _one_line(text: str) -> str:
    return _WS_RE.sub(" ", _CONTROL_RE.sub("", text)).strip()


def _cut(text: str, limit: int = MAX_LINE) -> str:
    text = _one_line(text)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit // 2 else cut).rstrip(" ,;:")


# --------------------------------------------------------------------------------------------------
# Extraction per kind


def _sentence_spans(text: str) -> Iterator[tuple[int, str]]:
    pos = 0
    for sep in _SENTENCE_RE.finditer(text):
        yield pos, text[pos : sep.start()]
        pos = sep.end()
    yield pos, text[pos:]


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for match in _LINE_RE.finditer(text):
        yield match.start(), match.group()


def _instructions(text: str) -> Iterator[tuple[int, str]]:
    for pos, sentence in _sentence_spans(text):
        if _INSTRUCTION_RE.search(sentence) and len(_words(sentence)) >= 3:
            yield pos, _cut(sentence)


def _errors(text: str) -> Iterator[tuple[int, str]]:
    for pos, raw in _lines(text):
        line = raw.strip()
        if len(line) < 6 or _NOT_ERROR_RE.match(line):
            continue
        if any(p.match(line) for p in _ERROR_LINE_RES):
            yield pos, _cut(line)


def _clean_path(path: str) -> str | None:
    path = path.rstrip(".,:;")
    if path in _NOISE_PATHS or path.startswith("@"):
        return None  # /dev/null; @scope/package is an npm name
    if path.startswith(("a/", "b/")) and len(path) > 2:
        path = path[2:]  # git diff headers: --- a/src/x.py, +++ b/src/x.py
    if "\\" in path and not re.match(r"[A-Za-z]:\\", path):
        return None
    last = re.split(r"[/\\]", path)[-1]
    if not re.search(r"[A-Za-z]", last):
        return None  # 1/2, 10/20/30
    if _PRODUCT_RE.fullmatch(path):
        return None  # Node.js, Next.js: names, not files
    has_ext = bool(_EXT_END_RE.search(path)) or bool(_BARE_NAME_RE.fullmatch(last))
    if path.startswith(("/", "~/", "./", "../")) or re.match(r"[A-Za-z]:\\", path):
        parts = [p for p in re.split(r"[/\\]", path) if p and p not in (".", "..", "~")]
        if len(parts) < 2 and not has_ext:
            return None  # /tmp, /s, ./x
        return path
    return path if has_ext else None


def _blank_urls(text: str) -> str:
    """``text`` with URLs blanked out (same length, so positions stay valid)."""
    if "://" not in text:
        return text
    return _URL_RE.sub(lambda m: " " * len(m.group()), text)


def _paths(text: str, offset: int = 0) -> Iterator[tuple[int, str]]:
    for match in _PATH_RE.finditer(_blank_urls(text)):
        path = _clean_path(match.group(1))
        if path is not None:
            yield offset + match.start(1), path


def _result_paths(text: str) -> Iterator[tuple[int, str]]:
    for pos, line in _lines(text):
        if _RESULT_PATH_LINE_RE.match(line):
            yield from _paths(line, pos)


def _urls(text: str) -> Iterator[tuple[int, str]]:
    for match in _URL_RE.finditer(text):
        url = match.group().rstrip(_URL_TRAIL)
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1].rstrip(_URL_TRAIL)  # "(see https://x.dev/a)." keeps a_(b)
        if len(url) <= MAX_URL and "://" in url and len(url.split("://", 1)[1]) > 2:
            yield match.start(), url


def _is_module_path(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last not in _TLDS and not _EXT_END_RE.search(name)


def _longest_first(items: Iterator[tuple[int, int, str]]) -> Iterator[tuple[int, str]]:
    """(position, text) of the spans that overlap no longer one (``3.11.7`` in ``Python 3.11.7``
    and ``a.b`` in ``a.b.c(`` are the same fact)."""
    starts: list[int] = []  # kept spans, sorted by start (they never overlap each other)
    ends: list[int] = []
    texts: list[str] = []
    for start, end, text in sorted(set(items), key=lambda i: (i[0] - i[1], i[0], i[2])):
        at = bisect.bisect_left(starts, start)
        if at > 0 and ends[at - 1] > start:
            continue  # overlaps the kept span before it
        if at < len(starts) and starts[at] < end:
            continue  # overlaps the kept span after it
        starts.insert(at, start)
        ends.insert(at, end)
        texts.insert(at, text)
    yield from zip(starts, texts, strict=True)


def _identifier_spans(text: str) -> Iterator[tuple[int, int, str]]:
    for match in _CALL_IDENT_RE.finditer(text):
        if not _EXT_END_RE.search(match.group(1)):
            yield match.start(1), match.end(1), match.group(1)
    for match in _CAMEL_CONTEXT_RE.finditer(text):
        group = next(g for g in (1, 2, 3) if match.group(g))
        yield match.start(group), match.end(group), match.group(group)
    for match in _MODULE_RE.finditer(text):
        if _is_module_path(match.group(1)):
            yield match.start(1), match.end(1), match.group(1)
    for match in _BACKTICK_RE.finditer(text):
        word = match.group(1).strip()
        if not _BACKTICK_IDENT_RE.fullmatch(word) or len(word) < 3:
            continue
        word = word.removesuffix("()")
        inner_cap = re.search(r"[a-z][A-Z]", word) is not None
        if ("_" in word.strip("_") or "." in word or "::" in word or inner_cap) and (
            not _EXT_END_RE.search(word)
        ):
            yield match.start(1), match.start(1) + len(word), word


def _identifiers(text: str) -> Iterator[tuple[int, str]]:
    return _longest_first(_identifier_spans(text))


def _number_spans(text: str, source: str) -> Iterator[tuple[int, int, str]]:
    text = _blank_urls(text)
    for pattern, in_results in _NUMBER_RES:
        if source == _RESULT and not in_results:
            continue
        for match in pattern.finditer(text):
            yield match.start(), match.end(), _one_line(match.group())


def _numbers(text: str, source: str) -> Iterator[tuple[int, str]]:
    return _longest_first(_number_spans(text, source))


def _preserved_facts(text: str) -> Iterator[Anchor]:
    for block in _PRESERVED_BLOCK_RE.finditer(text):
        for line in block.group(1).splitlines():
            fact = _FACT_LINE_RE.match(line)
            if fact and fact.group(1) in KIND_PRIORITY:
                yield Anchor(fact.group(1), fact.group(2).strip())


def _anchors_of(source: str, text: str) -> list[tuple[str, str]]:
    """(kind, text) anchors of one text, in order of position (ties: kind priority)."""
    found: list[tuple[int, int, str, str]] = []  # (position, kind order, kind, text)

    def collect(kind: str, items: Iterator[tuple[int, str]]) -> None:
        order = KIND_PRIORITY.index(kind)
        found.extend((pos, order, kind, item) for pos, item in items)

    if source == _USER:
        collect("instruction", _instructions(text))
    if source != _CALL:
        collect("error", _errors(text))
    if source == _RESULT:
        collect("path", _result_paths(text))
    else:
        collect("path", _paths(text))
        collect("url", _urls(text))
    if source in (_USER, _ASSISTANT):
        collect("identifier", _identifiers(text))
    collect("number", _numbers(text, source))
    found.sort(key=lambda f: (f[0], f[1]))
    return [(kind, item) for _, _, kind, item in found]


def _all_anchors(messages: Sequence[Message | AgenticMessage]) -> list[Anchor]:
    """Every anchor, deduplicated (case, quotes and whitespace ignored), in order of appearance."""
    seen: dict[tuple[str, str], Anchor] = {}
    for msg in messages:
        if is_internal(msg):
            pairs = [(a.kind, a.text) for a in _preserved_facts(_internal_text(msg))]
        else:
            pairs = [
                pair
                for source, text in _sources(msg)
                if text.strip()
                for pair in _anchors_of(source, text)
            ]
        for kind, text in pairs:
            text = _one_line(text)
            if text:
                seen.setdefault((kind, _norm(text)), Anchor(kind, text))
    # a bare file name adds nothing when a path ending in it is an anchor too
    dirs = {
        _norm(re.split(r"[/\\]", a.text)[-1])
        for a in seen.values()
        if a.kind == "path" and re.search(r"[/\\]", a.text)
    }
    return [
        a
        for a in seen.values()
        if not (a.kind == "path" and not re.search(r"[/\\]", a.text) and _norm(a.text) in dirs)
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
_WORD_RE = re.compile(r"[a-z0-9][a-z0-9_'\-]*")


def _norm(text: str) -> str:
    """Case-folded, quotes made one, control characters dropped, whitespace collapsed."""
    return _one_line(text.casefold().translate(_QUOTES))


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


_ISSUE_WORD_RE = re.compile(r"(?:issue|pr|pull request|bug|ticket) #?(\d+)$")
_EXIT_RE = re.compile(r"exit\D*?(\d+)$")
_VERSION_CORE_RE = re.compile(r"v?(\d+(?:\.\d+)+(?:-[0-9a-z.]+)?)$")
_PORT_RE = re.compile(r"(?:port\D*|:)(\d+)$")


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


_CLAUSE_RE = re.compile(r"(?<=[.!?])\s+|\n+|;\s*")


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
    for anchor in [*existing, *(Anchor(a.kind, _one_line(a.text)) for a in missing)]:
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
            text = _one_line(transform(anchor.text))
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
