"""Paths, URLs, identifiers, numbers and instructions in text (see :mod:`compactor.facts`)."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator

from compactor._util import lazy_pattern

from .text import cut, lowers_exactly, one_line, sentence_spans
from .tracebacks import blank_frames

MAX_URL = 300
"""URLs longer than this are not facts (signed links, tracking URLs)."""

_EXTS = (
    "py|pyi|pyx|js|mjs|cjs|ts|tsx|jsx|go|rs|java|kt|kts|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|"
    "md|mdx|rst|txt|json|jsonl|yaml|yml|toml|cfg|ini|sh|bash|zsh|ps1|html|htm|css|scss|sass|sql|"
    "lock|xml|csv|tsv|ipynb|env|conf|gradle|proto|tf|vue|svelte|mk|dockerfile|pem|log|sol|lua|"
    "dart|ex|exs|erl|hs|ml|r|jl|zig|nim|pl|pm|graphql|gql|prisma|wasm|bin|so|dll|exe|pdf|png|"
    "jpg|jpeg|gif|svg|webp|ico|zip|gz|tar|tgz|whl|plist|xcconfig|pbxproj|bat|cmd|service"
)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
"""Chinese, Japanese and Korean letters: words glued to a path without a space."""
_SEG = r"[\w.@+\-]+"
_DIR = rf"(?:{_SEG}|\[\[?(?:\.\.\.)?[\w\-]+\]\]?|\([\w.\-]+\))"
"""A directory: a plain name, or a route segment of file-system routers (Next.js, SvelteKit,
Nuxt: ``[slug]``, ``[...rest]``, ``[[...opt]]``, ``(group)``), so that ``app/[slug]/page.tsx``
is one path and not its fragment ``/page.tsx``."""
_PATH_RE = lazy_pattern(
    r"(?<![\w/.\-\\:@$])("
    # absolute, home-relative or dot-relative POSIX paths (a folder's with its closing slash)
    rf"(?:~|\.{{1,2}})?/(?:{_DIR}/)*{_SEG}/?"
    # relative paths with at least one directory
    rf"|(?:{_DIR}/)+{_SEG}/?"
    # Windows paths
    r"|[A-Za-z]:\\(?:[\w .\-]+\\)*[\w.\-]+"
    # bare file names with a known extension, and the usual extension-less names
    rf"|[\w\-]+(?:\.[\w\-]+)*\.(?:{_EXTS})"
    r"|(?:Makefile|Dockerfile|Justfile|Gemfile|Rakefile|Procfile|Jenkinsfile)"
    r")(?![\w/\\\-]|\.\w)",  # never cut inside a name: ``/a/foo`` of ``/a/foo-bar/``, ``x.env.CI``
    re.IGNORECASE,
)
_EXT_END_RE = lazy_pattern(rf"\.(?:{_EXTS})$", re.IGNORECASE)
_NOISE_PATHS = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_PRODUCT_RE = lazy_pattern(r"[A-Z][A-Za-z0-9]*\.js")
_BARE_NAME_RE = lazy_pattern(
    r"(?:Makefile|Dockerfile|Justfile|Gemfile|Rakefile|Procfile|Jenkinsfile)"
)
_WINDOWS_RE = lazy_pattern(r"[A-Za-z]:\\")
_SPLIT_RE = lazy_pattern(r"[/\\]")
_LETTER_RE = lazy_pattern(r"[A-Za-z]")
# tool-result lines whose paths matter: traceback frames and file:line diagnostics
_RESULT_PATH_LINE_RE = lazy_pattern(r'^\s*File "|^\s*at .*:\d+|^\S+:\d+(?::\d+)?[: ]')

_URL_RE = lazy_pattern(r"\b(?:https?|wss?|ftp|file|git|ssh)://[^\s<>\"'`\]}|\\]+", re.IGNORECASE)
_URL_TRAIL = ".,;:!?*_"


def clean_path(path: str) -> str | None:
    """The path as a fact, or None when it is not one (``/dev/null``, ``1/2``, ``Node.js``)."""
    path = path.rstrip(".,:;")
    if path in _NOISE_PATHS or path.startswith("@"):
        return None  # /dev/null; @scope/package is an npm name
    if path.startswith(("a/", "b/")) and len(path) > 2:
        path = path[2:]  # git diff headers: --- a/src/x.py, +++ b/src/x.py
    windows = _WINDOWS_RE.match(path) is not None
    if "\\" in path and not windows:
        return None
    last = _SPLIT_RE.split(path.rstrip("/"))[-1]  # a folder's closing slash (``/a/foo-bar/``)
    if not _LETTER_RE.search(last):
        return None  # 1/2, 10/20/30
    if _PRODUCT_RE.fullmatch(path):
        return None  # Node.js, Next.js: names, not files
    has_ext = bool(_EXT_END_RE.search(path)) or bool(_BARE_NAME_RE.fullmatch(last))
    if path.startswith(("/", "~/", "./", "../")) or windows:
        parts = [p for p in _SPLIT_RE.split(path) if p and p not in (".", "..", "~")]
        if len(parts) < 2 and not has_ext:
            return None  # /tmp, /s, ./x
        return path
    return path if has_ext else None


def has_known_extension(path: str) -> bool:
    """Whether the last part of ``path`` has an extension of a known file type."""
    return _EXT_END_RE.search(path) is not None


def blank_urls(text: str) -> str:
    """``text`` with URLs blanked out (same length, so positions stay valid)."""
    if "://" not in text:
        return text
    return _URL_RE.sub(lambda m: " " * len(m.group()), text)


_PATH_NEEDS_RE = lazy_pattern(r"[/\\]|\.[a-z]|file", re.IGNORECASE)
"""What any path needs (a separator, a dot before an extension's first letter, a bare name's
``file``): most prose has none, and this scan is a tenth of the path pattern's."""


_PATH_ANCHOR_RE = lazy_pattern(r"/|\.[a-z]|file", re.IGNORECASE)
"""What a path holds when the text has no ``:\\`` (no Windows path): a ``/``, a dot before an
extension's first letter, a bare name's ``file``."""
_PATH_RUN_RE = re.compile(r"[\w.@+\-/~\[\]()]*")
"""The characters of a path that is not a Windows one (on the text, and reversed: backwards)."""


def _run(chars: re.Pattern[str], text: str, pos: int) -> int:
    """How many characters of the run ``chars`` (a ``[...]*`` pattern, which always matches)
    ``text`` holds from ``pos`` on (on the reversed text: before a position)."""
    match = chars.match(text, pos)
    return match.end() - pos if match is not None else 0


def paths(text: str, offset: int = 0) -> Iterator[tuple[int, str]]:
    """(position, path) of the file paths in ``text`` (URLs excluded)."""
    if _PATH_NEEDS_RE.search(text) is None:
        return
    text = blank_urls(text)
    globs = "*" in text or "?" in text or "{" in text
    for start, end in _path_windows(text):
        for match in _PATH_RE.finditer(text, start, end):
            at, raw = match.start(1), match.group(1)
            if globs and in_glob(text, match.start(1), match.end(1)):
                continue  # a piece of a pattern (``01-data-reception/*-SUMMARY.md``): no file
            if not raw.isascii():
                at, raw = _unglued(at, raw)
            path = clean_path(raw)
            if path is not None and not _is_member(text, path, match.end(1)):
                yield offset + at, path


_MEMBER_RE = lazy_pattern(r"\((?!\d)|\[|\?[.\[]")
"""What follows a name used in code, not a file: a call, an index, an optional member access
(``res.json()``, ``process.env["CI"]``, ``process.env?.CI``); not ``cli.ts(877,31)``, tsc's
position of an error."""


def _is_member(text: str, path: str, end: int) -> bool:
    """Whether ``path``, a bare name without a folder, is a member or call in code (blind check
    36 W3: ``process.env`` of ``retries: process.env.CI ? 2 : 1`` named as a file)."""
    return "/" not in path and "\\" not in path and _MEMBER_RE.match(text, end) is not None


_GLOB_RUN_RE = re.compile(r"[\w.@+\-/~\[\]()*?{},]*")
"""The characters of a path or of a glob pattern (``src/**/*.ts``, ``{a,b}.md``)."""
_GLOB_CHARS = frozenset("_.@+-/~[](){}*?,")
_BRACES_RE = lazy_pattern(r"\{[^{}]*,[^{}]*\}")


def in_glob(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is a piece of a glob pattern (``/x/01-data`` and
    ``-SUMMARY.md`` of ``cat /x/01-data-reception/*-SUMMARY.md``, blind check 35 W5): the run
    of path and pattern characters around it holds a ``*``, a ``?`` or a ``{a,b}`` inside it
    (a markdown ``**bold**`` and a closing ``?`` or ``*`` at its ends are no pattern)."""
    begin = start
    while begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] in _GLOB_CHARS):
        begin -= 1
    stop = end + _run(_GLOB_RUN_RE, text, end)
    core = text[begin:stop].lstrip("*_").rstrip("*_?,.:;)")
    return "*" in core or "?" in core or _BRACES_RE.search(core) is not None


_FOLDER_WORD_RE = lazy_pattern(r"(?:\.{0,2}/)?[A-Z0-9][\w.-]*$|[\w.~-]*/[\w./-]*$")
"""A word of a folder name with spaces (``Acceptance``, ``./Use``): capitalised or a path
head; not a sentence's lowercase word ("fix the bug in src/app.py")."""


def whole_paths(text: str) -> Iterator[tuple[int, str]]:
    """:func:`paths`, with a path quoted whole that has spaces in its folders
    (``'./Acceptance Tests/UC-04-AT.md'``) given whole, never as the tail after its last space
    (blind check 31 W6)."""
    for at, path in paths(text):
        if at >= 2 and text[at - 1] == " " and not path.startswith(("/", "~")):
            end = at + len(path)
            quote = text[end : end + 1]
            if quote in ("'", '"', "`"):
                start = text.rfind(quote, max(0, at - 200), at)
                words = text[start + 1 : at].split() if start >= 0 else []
                if words and len(words) <= 4 and all(_FOLDER_WORD_RE.match(w) for w in words):
                    at, path = start + 1, clean_path(text[start + 1 : end]) or path
        yield at, path


_GLUED_HEAD_RE = lazy_pattern(rf"[{_CJK}]+(?=[A-Za-z0-9_~./])")
_GLUED_TAIL_RE = lazy_pattern(rf"(?<=[A-Za-z0-9_.\-])[{_CJK}]+$")


def _unglued(at: int, raw: str) -> tuple[int, str]:
    """A path without the CJK word glued to it (``查看/home/u/x/summary.md`` →
    ``/home/u/x/summary.md``, ``summary.md然后`` → ``summary.md``): Chinese, Japanese and Korean
    need no space between words, and ``\\w`` holds their letters (blind check 27, N3). A
    folder or file named in those scripts (``/home/u/文档/报告.md``) is kept."""
    head = _GLUED_HEAD_RE.match(raw)
    if head is not None:
        at, raw = at + head.end(), raw[head.end() :]
    tail = _GLUED_TAIL_RE.search(raw)
    return at, raw[: tail.start()] if tail is not None else raw


def _path_windows(text: str) -> list[tuple[int, int]]:
    """(start, end) of the parts of ``text`` where :data:`_PATH_RE` may match, in order.

    The pattern, looking behind and ahead of a match, is slow to try at every character; most
    words hold no anchor and need not be looked at. A match that is not a Windows path is a run
    of :data:`_PATH_RUN_RE` characters that holds an anchor (:data:`_PATH_ANCHOR_RE`); a Windows
    path starts a letter before a ``:\\`` and stays in the run of ``[\\w .\\-\\\\]`` after it.
    Each window is such a run and the character after it (which the look-ahead reads);
    overlapping or touching windows are one. ``test_facts`` checks with hypothesis that the
    paths are those of the pattern on the whole text."""
    size = len(text)
    backwards = ""
    found: list[tuple[int, int]] = []
    pos = 0
    while (anchor := _PATH_ANCHOR_RE.search(text, pos)) is not None:
        at = anchor.start()
        if not backwards:
            backwards = text[::-1]
        start = at - _run(_PATH_RUN_RE, backwards, size - at)
        end = at + _run(_PATH_RUN_RE, text, at)
        found.append((start, end + 1))
        pos = max(end, anchor.end())
    at = text.find(":\\")
    if at != -1:
        while at != -1:
            end = at + 2 + _run(_WINDOWS_RUN_RE, text, at + 2)
            found.append((max(at - 1, 0), end + 1))
            at = text.find(":\\", at + 1)
        found.sort()
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


_WINDOWS_RUN_RE = re.compile(r"[\w .\-\\]*")


_RESULT_PATH_LINE = (
    r'(?=[^\S\n\r]*File "|[^\S\n\r]*at [^\n\r]*:\d+|\S+:\d+(?::\d+)?[: ])'
    rf"(?=[^\n\r]*(?i:{_PATH_NEEDS_RE.pattern}))"
    r"[^\n\r]*"
)
_FIRST_RESULT_PATH_LINE_RE = lazy_pattern(_RESULT_PATH_LINE)
_RESULT_PATH_LINES_RE = lazy_pattern(rf"[\n\r]({_RESULT_PATH_LINE})")
"""A whole line (``\\n`` and ``\\r`` end lines) that :data:`_RESULT_PATH_LINE_RE` accepts and
that holds what a path needs: the first line, and the lines after a line break, found in one
pass over the text from break to break (a pattern that starts with the break is scanned for
quickly). A text without ``File "`` or a colon before a digit has none."""
_COLON_DIGIT_RE = lazy_pattern(r":\d")


def result_paths(text: str) -> Iterator[tuple[int, str]]:
    """The paths of a tool output that matter: on traceback frames and ``path:line:`` lines."""
    if 'File "' not in text and _COLON_DIGIT_RE.search(text) is None:
        return
    first = _FIRST_RESULT_PATH_LINE_RE.match(text)
    if first is not None:
        yield from paths(first.group(), 0)
    for match in _RESULT_PATH_LINES_RE.finditer(text):
        yield from paths(match.group(1), match.start(1))


def urls(text: str) -> Iterator[tuple[int, str]]:
    """(position, URL) of the URLs in ``text`` (trailing punctuation and lone ``)`` dropped)."""
    if "://" not in text:
        return
    for match in _URL_RE.finditer(text):
        url = match.group().rstrip(_URL_TRAIL)
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1].rstrip(_URL_TRAIL)  # "(see https://x.dev/a)." keeps a_(b)
        if len(url) <= MAX_URL and "://" in url and len(url.split("://", 1)[1]) > 2:
            yield match.start(), url


# --------------------------------------------------------------------------------------------------
# Identifiers, numbers, instructions

_CALL_IDENT_RE = lazy_pattern(
    r"(?<![\w.$])([a-z_][a-z0-9_]*_[a-z0-9_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\("
)
_CAMEL = r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+"
_CAMEL_CONTEXT_RE = lazy_pattern(
    rf"(?:\b(?:class|new|extends|implements|interface|type|struct|enum|trait|impl)\s+)({_CAMEL})\b"
    rf"|\b({_CAMEL})(?=\(|\.[A-Za-z_]|::)"
    r"|\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+){2,})\b"
)
_MODULE_RE = lazy_pattern(r"(?<![\w./\-])([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){2,})(?![\w/\-(])")
_BACKTICK_RE = lazy_pattern(r"`([^`\n]{2,80})`")
_BACKTICK_IDENT_RE = lazy_pattern(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\(\))?")
_INNER_CAP_RE = lazy_pattern(r"[a-z][A-Z]")
_TLDS = frozenset(
    "com org net io dev ai app co uk de fr jp cn ru edu gov info biz me us ca eu sh xyz "
    "cloud".split()
)

_DIGIT_DOT_RE = lazy_pattern(r"\d\.\d")
_DIGIT_RE = lazy_pattern(r"\d")
_ISSUE_WORDS = ("issue", "pr", "pull request", "bug", "ticket")


def _any(text: str | None, words: tuple[str, ...]) -> bool:
    """Whether ``text`` holds one of ``words``; True when it is None (no shortcut)."""
    return text is None or any(word in text for word in words)


_NUMBER_RES: tuple[tuple[re.Pattern[str], bool, Callable[[str, str | None], bool]], ...] = (
    # (pattern, also read from tool results, what a match needs in (the text, the text
    # lower-cased or None when lower-casing is not what a case-insensitive pattern compares))
    (
        re.compile(
            r"(?<![\w.\-])v?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\w\-]|\.\d)"
        ),
        False,
        lambda text, low: _DIGIT_DOT_RE.search(text) is not None,
    ),
    (
        re.compile(
            r"\b(?:Python|Node(?:\.js)?|Go|Java|Ruby|PHP|Rust|TypeScript|Postgres(?:QL)?|MySQL|"
            r"Ubuntu|Debian|Alpine|Redis|Django|React|Next\.js|version)\s+v?\d+(?:\.\d+)+\b"
        ),
        False,
        lambda text, low: _DIGIT_DOT_RE.search(text) is not None,
    ),
    (
        re.compile(r"(?<![\w.\-])[A-Za-z][\w.\-]*(?:==|>=|~=)\d+(?:\.\d+)+\b"),
        False,
        lambda text, low: "==" in text or ">=" in text or "~=" in text,
    ),
    (
        re.compile(r"\bport\s*[:=]?\s*\d{2,5}\b", re.IGNORECASE),
        False,
        lambda text, low: _any(low, ("port",)),
    ),
    (
        re.compile(r"(?<![\w.])(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d{2,5}\b"),
        False,
        lambda text, low: _any(text, ("localhost", "127.0.0.1", "0.0.0.0")),
    ),
    (
        re.compile(r"(?<![\w#&/])#\d{1,6}(?![\w\-])"),
        False,
        lambda text, low: "#" in text,
    ),
    (
        re.compile(r"\b(?:issue|PR|pull request|bug|ticket)\s+#?\d{1,6}\b", re.IGNORECASE),
        False,
        lambda text, low: _any(low, _ISSUE_WORDS) and _DIGIT_RE.search(text) is not None,
    ),
    (
        re.compile(
            r"\b(?:exit (?:code|status)|exited with(?: code| status)?|"
            r"returned non-zero exit status)[:\s]\s*[1-9]\d{0,2}\b",
            re.IGNORECASE,
        ),
        True,
        lambda text, low: _any(low, ("exit",)),
    ),
    (
        re.compile(r"\b(?:HTTP(?:/\d(?:\.\d)?)?|status code)[:\s]\s*[1-5]\d\d\b"),
        True,
        lambda text, low: "HTTP" in text or "status code" in text,
    ),
)
"""Number patterns, each run only on a text that holds what it needs (a quick scan): tool
outputs are long and most hold no exit code or HTTP status."""

_AMOUNT_RE = lazy_pattern(
    r"(?:(?<![\w.])[$€£]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[$€£]\d+(?:\.\d+)?)"
    r"(?:(?:[kKMB]|bn|mn)(?![A-Za-z])|\s(?:thousand|million|billion|trillion)\b)?%?"
    r"(?![\w.]\w)"
)
"""An amount: a currency sign or thousands separators, with its unit (``$48k``, ``$1.5M``,
``€3.2bn``, ``$7 million``, ``12%``): without the unit it would be another amount."""


def amounts(text: str) -> list[str]:
    """The amounts in ``text`` (:data:`_AMOUNT_RE`), in order, units kept."""
    if "$" not in text and "€" not in text and "£" not in text and "," not in text:
        return []
    return [m.group() for m in _AMOUNT_RE.finditer(text)]


def amount_spans(text: str) -> Iterator[tuple[int, str]]:
    """(position, amount) of every amount in ``text``."""
    if "$" not in text and "€" not in text and "£" not in text and "," not in text:
        return iter(())
    return ((m.start(), m.group()) for m in _AMOUNT_RE.finditer(text))


_INSTRUCTION_RE = lazy_pattern(
    r"\b(?:must|never|don['’]?t|do not|always|make sure)\b", re.IGNORECASE
)
_WORD_RE = lazy_pattern(r"[A-Za-z0-9][A-Za-z0-9_'\-]*")


def _longest_first(items: Iterator[tuple[int, int, str]]) -> Iterator[tuple[int, str]]:
    """(position, text) of the spans that overlap no longer one (``3.11.7`` in ``Python 3.11.7``
    and ``a.b`` in ``a.b.c(`` are the same fact)."""
    spans = sorted(set(items))
    if all(a[0] < a[1] <= b[0] for a, b in itertools.pairwise(spans)):
        return ((start, text) for start, _, text in spans)  # most texts: no span overlaps
    return _kept_spans(spans)


def _kept_spans(spans: list[tuple[int, int, str]]) -> Iterator[tuple[int, str]]:
    starts: list[int] = []  # kept spans, sorted by start (they never overlap each other)
    ends: list[int] = []
    texts: list[str] = []
    for start, end, text in sorted(spans, key=lambda i: (i[0] - i[1], i[0], i[2])):
        at = bisect.bisect_left(starts, start)
        if at > 0 and ends[at - 1] > start:
            continue  # overlaps the kept span before it
        if at < len(starts) and starts[at] < end:
            continue  # overlaps the kept span after it
        starts.insert(at, start)
        ends.insert(at, end)
        texts.insert(at, text)
    yield from zip(starts, texts, strict=True)


@functools.lru_cache(maxsize=4096)
def _is_module_path(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last not in _TLDS and not _EXT_END_RE.search(name)


@functools.lru_cache(maxsize=4096)
def _is_call_name(name: str) -> bool:
    """A call's name that is not a file name (``app.py(``); remembered, as the same names
    come back all through a transcript."""
    return _EXT_END_RE.search(name) is None


_CAMEL_NEEDS_RE = lazy_pattern(r"[A-Z][a-z0-9]+[A-Z]")
_MODULE_NEEDS_RE = lazy_pattern(r"\.[a-z_]")


_CALL_NAME_RE = lazy_pattern(r"[a-z_][a-z0-9_]*_[a-z0-9_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
"""The name of :data:`_CALL_IDENT_RE` (its group)."""
_CALL_RUN_RE = re.compile(r"[\w.$]*")
"""The characters before a ``(`` that its name and the look-behind read (on the reversed text)."""
_MODULE_ANCHOR_RE = lazy_pattern(r"\.[a-z_][a-z0-9_]*\.[a-z_]")
"""What every match of :data:`_MODULE_RE` holds (its last two dotted parts start so)."""
_MODULE_RUN_RE = re.compile(r"[\w./\-]*")
"""A match of :data:`_MODULE_RE` starts a run of these (its look-behind) and stays in it."""


def _call_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """The matches of :data:`_CALL_IDENT_RE`, found from each ``(``: its name is the whole run
    of ``[\\w.]`` before it (the look-behind rules out a ``$`` or a start inside a run), so the
    run before each ``(`` is read backwards and matched once, instead of the pattern being
    tried at every character (``test_facts`` checks they agree, with hypothesis)."""
    size = len(text)
    backwards = text[::-1]
    at = text.find("(")
    while at != -1:
        start = at - _run(_CALL_RUN_RE, backwards, size - at)
        if start < at:
            name = _CALL_NAME_RE.fullmatch(text, start, at)
            if name is not None:
                yield start, at, name.group()
        at = text.find("(", at + 1)


def _module_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """The matches of :data:`_MODULE_RE`: each starts a run of ``[\\w./-]`` (its look-behind)
    and stays in it, and holds :data:`_MODULE_ANCHOR_RE`; the pattern is tried once, at the
    start of each run that holds the anchor (``test_facts`` checks they agree)."""
    size = len(text)
    backwards = ""
    pos = 0
    while (anchor := _MODULE_ANCHOR_RE.search(text, pos)) is not None:
        at = anchor.start()
        if not backwards:
            backwards = text[::-1]
        start = at - _run(_MODULE_RUN_RE, backwards, size - at)
        end = at + _run(_MODULE_RUN_RE, text, at)
        match = _MODULE_RE.match(text, start, end + 1)
        if match is not None:
            yield match.start(1), match.end(1), match.group(1)
        pos = end


def _identifier_spans(text: str) -> Iterator[tuple[int, int, str]]:
    # Each pattern runs only on a text that holds what it needs (a quick scan): a call's
    # "(", a second hump, a dot before a name.
    if "(" in text:
        for start, end, name in _call_spans(text):
            if _is_call_name(name):
                yield start, end, name
    if _CAMEL_NEEDS_RE.search(text) is not None:
        for match in _CAMEL_CONTEXT_RE.finditer(text):
            group = next(g for g in (1, 2, 3) if match.group(g))
            yield match.start(group), match.end(group), match.group(group)
    if _MODULE_NEEDS_RE.search(text) is not None:
        for start, end, name in _module_spans(text):
            if _is_module_path(name):
                yield start, end, name
    if "`" not in text:
        return
    for match in _BACKTICK_RE.finditer(text):
        word = match.group(1).strip()
        if not _BACKTICK_IDENT_RE.fullmatch(word) or len(word) < 3:
            continue
        word = word.removesuffix("()")
        inner_cap = _INNER_CAP_RE.search(word) is not None
        if ("_" in word.strip("_") or "." in word or "::" in word or inner_cap) and (
            not _EXT_END_RE.search(word)
        ):
            yield match.start(1), match.start(1) + len(word), word


def identifiers(text: str) -> Iterator[tuple[int, str]]:
    """(position, identifier): ``snake_case(`` / ``dotted.name(`` calls, CamelCase names in
    code context or with three humps, dotted module paths, identifier-like backtick spans."""
    if (
        "(" not in text
        and "`" not in text
        and _MODULE_NEEDS_RE.search(text) is None
        and _CAMEL_NEEDS_RE.search(text) is None
    ):
        return iter(())  # what every pattern needs (see _identifier_spans): most short texts
    return _longest_first(_identifier_spans(text))


_LOG_LINE_RE = lazy_pattern(
    r"^[ \t]*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}|\[?\d{1,2}:\d{2}:\d{2}|"
    r"\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\b).*$",
    re.MULTILINE,
)
"""A log line (a timestamp or a level first): its logger names are no identifiers of the work."""
_FILE_STEM_END_RE = lazy_pattern(r"\.[A-Za-z0-9]{1,8}\b(?![(\w])")


def work_identifiers(text: str) -> list[str]:
    """:func:`identifiers` that the work is about (issue 28, blind check 12): not the logger
    names of pasted log lines (``com.freerdp.core.rdp``), not the names of files a listing
    names (``src/contexts/AuthContext.jsx`` → ``AuthContext``)."""
    if ("[" in text or ":" in text) and _LOG_LINE_RE.search(text) is not None:
        text = _LOG_LINE_RE.sub(lambda m: " " * len(m.group()), text)  # positions stay valid
    text = blank_frames(text)  # a pasted traceback's frames (blind check 18)
    found = []
    for pos, word in identifiers(text):
        end = pos + len(word)
        if pos and text[pos - 1] in "/\\":
            continue  # a path's part
        stem = _FILE_STEM_END_RE.match(text, end)
        if stem is not None and has_known_extension(word + stem.group()):
            continue  # a file's name: AuthContext.jsx
        found.append(word)
    return found


def _number_spans(text: str, from_result: bool) -> Iterator[tuple[int, int, str]]:
    text = blank_urls(text)
    low = text.lower() if lowers_exactly(text) else None
    for pattern, in_results, needs in _NUMBER_RES:
        if (from_result and not in_results) or not needs(text, low):
            continue
        for match in pattern.finditer(text):
            yield match.start(), match.end(), one_line(match.group())


def numbers(text: str, *, from_result: bool = False) -> Iterator[tuple[int, str]]:
    """(position, number with its context): versions, ports, issues, exit codes, HTTP statuses.

    From a tool output (``from_result``) only exit codes and HTTP statuses.
    """
    return _longest_first(_number_spans(text, from_result))


_INSTRUCTION_WORDS = ("must", "never", "don", "do not", "always", "make sure")
"""What every match of :data:`_INSTRUCTION_RE` holds, lower-cased (``don`` of ``don't``)."""


def instructions(text: str) -> Iterator[tuple[int, str]]:
    """(position, sentence) of the sentences that state a rule (*must*, *never*, *don't*, …)."""
    if lowers_exactly(text):  # a quick scan first: the pattern takes ~35 ns a character
        low = text.lower()
        if not any(word in low for word in _INSTRUCTION_WORDS):
            return
    if _INSTRUCTION_RE.search(text) is None:
        return  # a sentence is a part of the text between spaces: its rule word is the text's
    for pos, sentence in sentence_spans(text):
        if _INSTRUCTION_RE.search(sentence) and len(_WORD_RE.findall(sentence)) >= 3:
            yield pos, cut(sentence)
