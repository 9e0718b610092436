"""Sub-agents that only searched: no "told to write files" line, their finding instead (blind
check 68, W4).

cc_my_edit: a ``Task`` told "Search through the frontend/index.html file and find any
JavaScript syntax errors …" finished, and its conversation (inline ``isSidechain`` records) holds
only Read, Grep, LS and Bash calls; yet section 3 said "Background agents were told to write
files (… check what exists): `Find syntax error source`", and its finding was not quoted. By
shape:

* :func:`reads_only`: a sub-agent call is a reader when its prompt asks for no change (no write
  verb where an instruction puts it: write, create, edit, fix, implement, update, add, … at a
  sentence's start or after "and"/"to"/"please", not after "don't"/"without"/"not"),
  no file-writing call of its own was seen (its inline conversation, :attr:`Call.subagent`), and
  either that conversation was seen or its prompt asks to search/read/find/check;
* a write verb that names what to report, not what to do ("how to fix it", "ways to change
  …", "what to update") is no instruction (blind check 69 W3: "Provide detailed findings on
  what's broken and how to fix it properly" made an analysis Task a writer);
* :func:`asks_to_write`: whether a prompt asks to change files at all; a sub-agent call still
  in flight whose prompt does not, and that is no background agent, is listed in section 7
  only, never as a writer (blind check 69 W3);
* :func:`findings`: a reader that finished (its result came back; no background launch) in the
  work on the current request is quoted by the first lines of its result.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, one_line

from .local_session import Session
from .local_text import code

__all__ = ["asks_to_write", "findings", "reads_only"]

_WRITE_RE = lazy_pattern(
    r"(?:^|[.!?:;,(\n]|\b(?:and|or|then|to|please|also|must|should|you|will|can|could|would|"
    r"let's)\b)[ \t]*(?:[-*•][ \t]*|\d{1,2}[.)][ \t]*)?(?:\*\*)?"
    r"(write|rewrite|create|edit|modify|change|update|fix|implement|add|insert|append|refactor|"
    r"replace|remove|delete|rename|move|generate|save|apply|patch|scaffold|install|convert|"
    r"migrate|set up|make (?!sure|certain))\b",
    re.IGNORECASE,
)
"""A write verb where an instruction puts it (a sentence's or list item's start, after "and",
"to", "please", "you should" …): "fix it", not "the recent change" or "a fix"."""
_NEGATION_RE = lazy_pattern(
    r"\b(?:do not|don't|dont|never|not|without|no need to|nor)\s+(?:\w+\s+){0,2}$", re.IGNORECASE
)
_REPORTED_RE = lazy_pattern(
    r"\b(?:how|what|where|when|whether|ways?|steps?|options?)\s+(?:\w+\s+){0,2}to\s+$",
    re.IGNORECASE,
)
"""A write verb named as something to report ("how to fix", "ways to change"), not done."""
_READ_RE = lazy_pattern(
    r"\b(?:search|find|look|read|examine|inspect|investigate|analy[sz]e|review|audit|explore|"
    r"identify|locate|check|list|research|report|summari[sz]e|explain|compare|understand|"
    r"determine|trace|assess|evaluate|map|diagnose|analysis|findings)\b",
    re.IGNORECASE,
)
_WRITING_TOOLS = frozenset(
    "write edit multiedit notebookedit str_replace_based_edit_tool str_replace_editor "
    "create_file apply_patch".split()
)
"""Tools that change a file (lower-case): a sub-agent seen calling one wrote."""
_LINES = 3
_SEEN = "; its own calls changed no file"


def asks_to_write(prompt: str) -> bool:
    """Whether ``prompt`` asks to change files: a write verb where an instruction puts it, not
    negated and not named as something to report (module doc)."""
    for m in _WRITE_RE.finditer(prompt):
        before = prompt[max(0, m.start(1) - 40) : m.start(1)]
        if _NEGATION_RE.search(before) is None and _REPORTED_RE.search(before) is None:
            return True
    return False


def reads_only(call: Call) -> bool:
    """Whether sub-agent ``call`` was only asked to read, and seen doing no more (module doc)."""
    if call.subagent is not None and any(n.lower() in _WRITING_TOOLS for n in call.subagent):
        return False  # seen writing
    prompt = call.args.get("prompt")
    if not isinstance(prompt, str) or asks_to_write(prompt):
        return False
    return call.subagent is not None or _READ_RE.search(prompt) is not None


def findings(s: Session, readers: list[Call], most: int, width: int) -> list[str]:
    """Section 3's lines quoting the finished readers of the current request's work (their
    result's first lines), newest last, at most ``most``."""
    since = s.last_request.index if s.last_request is not None else -1
    wanted = {c.id: c for c in readers if c.id and c.index > since}
    if not wanted:
        return []
    lines: list[str] = []
    for e in s.entries:
        for r in e.results:
            call = wanted.get(r.call_id)
            if call is None or call.id in s.background or call.args.get("run_in_background"):
                continue
            head = [ln.strip() for ln in r.text.strip().splitlines() if ln.strip()][:_LINES]
            if not head:
                continue
            what = call.args.get("description")
            name = code(cut(what, width // 4)) if isinstance(what, str) and what else call.name
            said = cut(one_line(" ".join(head)), width)
            how = "asked only to search and read" + (_SEEN if call.subagent is not None else "")
            lines.append(f"Sub-agent {name} ({how}) found: “{said}”")
    return lines[-most:]
