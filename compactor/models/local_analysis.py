"""Facts that only the ``Analysis`` half of an earlier Claude Code summary holds (issue 28).

Claude Code's own summary is two halves: ``Analysis:`` (a chronological walk, with the branch,
commit and counts it found) and ``Summary:`` (the numbered sections). The local summary quotes
the numbered sections; blind checks 43 and 44 found the facts a resuming agent needed in the
walk alone (the spike branch ``ENGOPS-1-chat-refactor-spike``, the first commit ``78d5aedbb5``,
"334 specs passed"; ``EMPTY_MEMBERS`` against a re-render loop), so they were lost.
:func:`analysis_facts` keeps the walk's lines that name something exact (a backticked span, a
hash, an identifier, a path, a count) that the numbered sections never name, most novel first,
shown in their own order.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_session import Session
from .local_text import prior_sections

__all__ = ["analysis_facts", "analysis_items"]

_ANALYSIS_RE = lazy_pattern(
    r"(?:^|\n)\s*(?:<analysis>|Analysis:)\s*\n(.*?)(?:</analysis>|\n\s*(?:<summary>|Summary:)\s*\n)",
    re.DOTALL,
)
_TOKEN_RE = lazy_pattern(
    r"`([^`\n]{2,80})`|"  # 1: a backticked span
    r"\b([0-9a-f]{7,40})\b|"  # 2: a commit or object hash (with a digit and a letter)
    r"\b([A-Za-z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b|"  # 3: camelCase, PascalCase (not _COMMON)
    r"\b([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b|"  # 4: snake_case, SCREAMING_CASE
    r"\b([A-Za-z0-9]+(?:-[A-Za-z0-9]+){2,})|"  # 5: kebab-names, branch names
    r"((?:~|\.{1,2})?/?[\w.-]+(?:/[\w.-]+)+)|"  # 6: paths (checked by _PATH_RE)
    r"\b(\d[\d,.]*\s+(?:[a-z]+\s+)?(?:passed|failed|tests?|specs?|files?|errors?|warnings?|"
    r"records?|rows?|items?|commits?|lines?|ms|MB|KB|GB|tokens?))\b"  # 7: counts
)
_HEX_LETTER_RE = lazy_pattern(r"[a-f]")
_HEX_DIGIT_RE = lazy_pattern(r"\d")
_PATH_RE = re.compile(r"^[~./]|\.\w{1,6}$|/.*/|[\d-]")
"""A slashed token that is a path or a branch (``/a/b``, ``x.py``, ``feat/phase-12``), not
"sum/average" or "and/or"."""
_COMMON = frozenset(
    "javascript typescript github gitlab postgresql mysql mongodb openai youtube macos ios "
    "iphone ipad nodejs graphql webassembly devops fastapi".split()
)
"""Product names a walk mentions in passing: no fact of the session."""
_USER_LINE_RE = lazy_pattern(r"^\W*(?:\*\*)?(?:\w+ )?User(?: Message)?", re.IGNORECASE)


def _tokens(line: str) -> set[str]:
    found: set[str] = set()
    for m in _TOKEN_RE.finditer(line):
        token = next(g for g in m.groups() if g)
        if m.group(2) and not (_HEX_LETTER_RE.search(token) and _HEX_DIGIT_RE.search(token)):
            continue
        if (m.group(3) and token.lower() in _COMMON) or (m.group(6) and not _PATH_RE.search(token)):
            continue
        found.add(token.lower())
    return found


def analysis_facts(s: Session, width: int, most: int) -> list[str]:
    """Lines of the latest earlier summary's ``Analysis`` half that name exact things its
    numbered sections do not, each on one line cut to ``width``, at most ``most``."""
    for text in reversed(s.prior):
        match = _ANALYSIS_RE.search(text)
        if match is None:
            continue
        said = "\n".join(prior_sections(text).values()).lower()
        scored: list[tuple[int, int, str]] = []
        for n, raw in enumerate(match.group(1).splitlines()):
            line = one_line(raw.strip().lstrip("-*• ").strip())
            if len(line) < 12 or _USER_LINE_RE.match(line):
                continue  # a heading, or the user's words (kept in section 6)
            novel = [t for t in _tokens(line) if t.rsplit("/", 1)[-1] not in said]
            if novel:
                scored.append((len(novel), n, line))
        best = sorted(scored, key=lambda x: (-x[0], x[1]))[:most]
        return [cut(line, width) for _, _, line in sorted(best, key=lambda x: x[1])]
    return []


def analysis_items(s: Session, width: int, most: int) -> list[str]:
    """Section 2's lines of :func:`analysis_facts` (a heading, then the facts), or none."""
    walk = analysis_facts(s, width, most)
    head = "From the earlier summary's analysis (details its numbered sections do not repeat):"
    return [head, *(f"  {x}" for x in walk)] if walk else []
