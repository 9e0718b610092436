"""The lines that show what a file is (section 3's "latest content (key lines)"), moved from
:mod:`.local_files`: definitions first, then statements, then other lines, before imports,
comments and docstrings."""

from __future__ import annotations

from compactor._util import lazy_pattern

__all__ = ["key_lines"]

_DEFINITION_RE = lazy_pattern(
    r"^\s*(?:(?:async\s+)?def |class |(?:export\s+)?(?:default\s+)?(?:async\s+)?function\b|fn |"
    r"pub |func |(?:export\s+)?(?:type|interface|enum|struct|trait|impl)\b|#{1,3} |@\w|\[[\w.]+\]$)"
)
_STATEMENT_RE = lazy_pattern(
    r"^\s*(?:(?:export\s+)?(?:const|let|var)\b|return\b|raise\b|throw\b|if\b|for\b|while\b|"
    r"[\w.\[\]\"']+\s*[:=]\s*\S|[\w.]+\()"
)
_SKIP_LINE_RE = lazy_pattern(r'^\s*(?:import\b|from\s+\S+\s+import\b|#(?!#)|//|"""|\'\'\'|\*|/\*)')


def _weight(line: str) -> int:
    if _DEFINITION_RE.match(line):
        return 0
    if _STATEMENT_RE.match(line):
        return 1
    return 3 if _SKIP_LINE_RE.match(line) else 2


def key_lines(text: str, limit: int) -> list[str]:
    """At most ``limit`` lines of ``text`` that show what it is: all of a short text; else its
    definitions first, then statements, then other lines, before imports, comments and
    docstrings, each line once; in their order in the text."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= limit:
        return lines
    first: dict[str, int] = {}
    for i, line in enumerate(lines):
        first.setdefault(line, i)
    ranked = sorted(first.items(), key=lambda kv: (_weight(kv[0]), kv[1]))
    keep = sorted(i for _, i in ranked[:limit])
    return [lines[i] for i in keep]
