"""A failed read-only fetch of a document whose need was met another way (BENCH48 W3).

cc-tanstack: three ``WebFetch`` calls of docs pages failed (a 404, a redirect, one never run
because a sibling call in the same message failed); the agent then searched the web and read a
skill document, said "I have gathered enough information … Let me write the plan." and wrote it.
Section 7 listed the three fetches as "Unresolved failure": a failure counted as resolved only
when the same call later succeeded. A fetch has no side effect: nothing is left broken by it, only
a question unanswered. :func:`judge_fetch_needs` settles a still-open failed fetch (``WebFetch``,
an MCP fetch or docs tool, ``curl``/``wget`` printing a URL not on this machine or network)
when, before the next request,

* a later lookup that did not fail (a web search, another fetch, a file or skill read) covers its
  subject (a word of the URL's path, or the same site): ``worked around by`` that lookup;
* the assistant's later words say the need is met ("I have gathered enough information", "I have
  what I need", "no need to fetch it"): ``worked around`` (the sentence is quoted);
* a plan was handed over for approval after a lookup that did not fail: the plan did not depend on
  the fetch (``worked around by`` that lookup).

Extends :func:`.local_again.still_open`'s verdicts, never a fetch that wrote something (``curl
-o``, ``-X POST``, ``-d``): a failed download or request may have left work undone.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line, sentences
from compactor.facts.commands import command_of, programs, shell_words

from .local_again import still_open
from .local_session import Session
from .local_text import call_line

__all__ = ["judge_fetch_needs", "read_only_fetch"]

_FETCH_TOOL_RE = lazy_pattern(r"(?i)^(?:webfetch|web_fetch|fetch|read_url|mcp__.*(?:fetch|docs))")
_LOOKUP_TOOL_RE = lazy_pattern(
    r"(?i)^(?:web_?search|web_?fetch|fetch|read|read_file|view|skill|grep|glob|read_url|"
    r"mcp__.*(?:search|fetch|docs|read|get|query|resolve))"
)
"""Tools that only look something up (no side effect): their success may meet a fetch's need."""
_FILTERS = frozenset({"head", "tail", "grep", "rg", "jq", "sed", "cat", "less", "wc", "sort"})
_WRITES = frozenset(
    {"-o", "-O", "--output", "--remote-name", "-d", "--data", "--data-raw", "--data-binary",
     "-F", "--form", "-T", "--upload-file", "--json"}
)  # fmt: skip
_METHOD_RE = lazy_pattern(r"(?i)^(?:-X|--request)=?(?:POST|PUT|PATCH|DELETE)?$")
_LOCAL_RE = lazy_pattern(r"(?i)^(?:localhost|[\d.]+|\[?[0-9a-f:]+\]?|.*\.(?:local|internal|lan))$")
"""A host of this machine or network: a failed ``curl`` of it probes a service (a health check
that failed says the service is down), it fetches no document."""
_URL_RE = lazy_pattern(r"https?://[^\s\"'<>)]+")
_ENOUGH_RE = lazy_pattern(
    r"(?i)\b(?:(?:have|has|'ve|got|gathered|collected|found) (?:\w+ ){0,2}?enough\b|"
    r"enough (?:information|info|context|detail|to (?:write|go|proceed|continue|start))|"
    r"(?:have|'ve|got) (?:all )?(?:what|everything) (?:i|we) need|"
    r"(?:no|without the) need (?:to|for) (?:fetch|read|open|get|the)|"
    r"(?:is|are)n['’]t needed|not needed|no longer needed)"
)
"""Words that say the information a failed fetch was for is no longer needed."""
_PLAN_TOOLS = frozenset({"ExitPlanMode", "exit_plan_mode"})
_STOP = frozenset(
    {"https", "http", "www", "docs", "doc", "documentation", "guide", "guides", "latest", "main",
     "master", "refs", "heads", "framework", "html", "index", "blob", "tree", "raw", "content",
     "githubusercontent", "github", "com", "org", "dev", "net", "io", "en", "us", "api", "app",
     "library", "page", "pages", "react"}
)  # fmt: skip
_WORD_RE = lazy_pattern(r"[a-z][a-z0-9]{3,}")


def read_only_fetch(call: Call) -> str:
    """The URL ``call`` only read (a fetch tool, or ``curl``/``wget`` printing it), else ""."""
    if _FETCH_TOOL_RE.search(call.name):
        url = call.args.get("url") or call.args.get("uri") or ""
        return url if isinstance(url, str) and url.startswith("http") else ""
    command = command_of(call)
    if command is None:
        return ""
    names = programs(command)
    if not names or names[0] not in ("curl", "wget") or not set(names[1:]) <= _FILTERS:
        return ""
    words = shell_words(command.split("|", 1)[0])
    if any(w in _WRITES or _METHOD_RE.match(w) for w in words):
        return ""
    if names[0] == "wget" and not any(w in ("-qO-", "-O-") for w in words):
        return ""  # wget saves a file unless told to print it
    url = next((m.group(0) for w in words if (m := _URL_RE.match(w))), "")
    return url if url and not _LOCAL_RE.match(urlsplit(url).hostname or "") else ""


def _subject(url: str) -> tuple[str, frozenset[str]]:
    """The site of ``url`` and the words of its path (``data-loading.md`` → data, loading)."""
    parts = urlsplit(url)
    words = frozenset(_WORD_RE.findall(parts.path.lower())) - _STOP
    host = (parts.hostname or "").removeprefix("www.")
    return host, words


def _covers(later: Call, host: str, words: frozenset[str]) -> bool:
    """Whether the lookup ``later`` is about the failed fetch's subject."""
    text = " ".join(str(v) for v in later.args.values() if isinstance(v, str)).lower()
    for url in _URL_RE.findall(text):
        if host and _subject(url)[0] == host:
            return True  # another page of the same site
    return bool(words & set(_WORD_RE.findall(text)))


def _lookups(s: Session, start: int, end: int) -> list[Call]:
    return [
        c for c in s.calls
        if start < c.index < end and c.id in s.answered and c.id not in s.failed_calls
        and (_LOOKUP_TOOL_RE.search(c.name) or read_only_fetch(c))
    ]  # fmt: skip


def judge_fetch_needs(s: Session) -> None:
    """Settle each still-open failed read-only fetch whose need was met (module docstring)."""
    fetches = {call_line(c, 300): c for c in s.calls if c.id in s.failed_calls}
    for err in s.errors:
        call = fetches.get(err.call)
        if not still_open(err) or call is None or not (url := read_only_fetch(call)):
            continue
        end = next((r.index for r in s.requests if r.index > err.index), len(s.entries))
        host, words = _subject(url)
        found = _lookups(s, err.index, end)
        if covered := next((c for c in found if _covers(c, host, words)), None):
            err.after, err.by = "worked around by", call_line(covered, 160)
            err.why = "it looked up the same subject; the fetch only read, nothing is left to redo"
            continue
        said = next(
            (x for e in s.entries[err.index + 1 : end] if e.role == "assistant" and not e.internal
             for x in sentences(e.text) if _ENOUGH_RE.search(x)),
            "",
        )  # fmt: skip
        if said:
            err.after, err.by = "worked around", one_line(said)
            continue
        plan = any(c.index > err.index and c.name in _PLAN_TOOLS for c in s.calls)
        if found and plan:  # the plan handed over was written without it
            err.after, err.by = "worked around by", call_line(found[0], 160)
            err.why = "the plan handed over after it did not depend on it"
