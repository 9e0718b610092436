"""Error-like lines of a call not flagged as an error that say nothing of its failure (BENCH50
W1-W3: a pre-commit hook ran the test suite, whose passing tests printed "error: Database connection
failed" as expected output, then "1274 pass / 0 fail" and git's "[main 37016ac] subject"; a ``git
diff`` showed a source line "error: string | null;" — both calls were "failed, not retried").

:func:`passed_anyway` says such a result did not fail when every one of its error lines is

* a line of data: a line of a diff hunk (``+``/``-``/`` `` after an ``@@ -1,2 +1,3 @@`` header)
  or of a numbered file listing (``cat -n``'s ``  12<tab>…``, ``  12→…``); or
* followed by a success line of the same output: a test runner's summary with no failure in the
  whole output ("1274 pass", "Tests: 1274 passed", "✓ 1274 tests"; none of "2 failed", "1
  fail", "3 errors"), git's commit line (``[main 37016ac] subject``) or git's line of a ref a
  push updated (``18683fb..4b43b09  main -> main``: a hook's failed side push printed before it
  is not the push's failure, blind check 51 W6). An error printed after that line (a push that
  failed after the commit, a ref rejected after another was pushed) still fails the call.
"""

from __future__ import annotations

from compactor._util import lazy_pattern

from .text import cut

__all__ = ["passed_anyway"]

_HUNK_RE = lazy_pattern(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_LISTED_RE = lazy_pattern(r"^\s*\d+(?:\t|\u2192)")
_OTHER_BREAK_RE = lazy_pattern("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
"""The line breaks of ``str.splitlines`` but ``\\n``."""
_PASSED_RE = lazy_pattern(
    r"(?<![\d.])[1-9]\d* (?:tests? )?pass(?:ed|ing|es)?\b|[\u2713\u2714] *[1-9]\d* tests?\b"
)
_FAILED_RE = lazy_pattern(
    r"(?<![\d.])[1-9]\d* (?:tests? )?(?:fail(?:ed|ing|ures?|s)?|errors?|errored)\b"
)
_COMMITTED_RE = lazy_pattern(r"(?m)^\[[^\s\]]+(?: \([\w -]+\))? [0-9a-f]{7,40}\] \S")
_PUSHED_RE = lazy_pattern(
    r"(?m)^\s*(?:\+ )?[0-9a-f]{7,40}\.\.\.?[0-9a-f]{7,40}\s+\S+ -> \S+|"
    r"^\s*\* \[new (?:branch|tag|reference)\]\s+\S+ -> \S+|^Everything up-to-date$"
)
"""git's own line that a push updated a ref (``18683fb..4b43b09  main -> main``, ``* [new
branch]  x -> x``, ``Everything up-to-date``): printed after a hook's complaints (a side push of
another branch that failed: "fatal: the remote end hung up"), it says the push succeeded (blind
check 51, W6)."""


def _report_ends(lines: list[str], body: str) -> int:
    """The end of the last line of ``body`` that shows one of ``lines`` (as :func:`cut` shows
    it) and is no diff or listing line; -1 when every such line is data (the end of ``body``
    when one of ``lines`` is not found: no verdict on it)."""
    targets: dict[str, set[str]] = {}
    for line in lines:
        targets.setdefault(line[:8], set()).add(line)
    seen: set[str] = set()
    last, in_hunk, pos = -1, False, 0
    found = _lines_with(body, targets) if "@@" not in body and "" not in targets else None
    if found is not None:
        for start, raw in found:  # no hunk: only these lines can count
            stripped = raw.strip()
            hit = cut(stripped)
            if hit not in targets.get(stripped[:8], ()):
                continue
            seen.add(hit)
            if not _LISTED_RE.match(raw):
                last = start + len(raw)
        return last if len(seen) == len(set(lines)) else len(body)
    for raw in body.splitlines(keepends=True):
        start, pos = pos, pos + len(raw)
        if raw.startswith("@@"):
            in_hunk = in_hunk or _HUNK_RE.match(raw) is not None
            continue
        if in_hunk and raw[:1] not in ("+", "-", " ", "\\", "\n", "\r", ""):
            in_hunk = False
        stripped = raw.strip()
        hit = cut(stripped) if stripped[:8] in targets else ""
        if hit not in targets.get(stripped[:8], ()):
            continue
        seen.add(hit)
        if not (in_hunk and raw[:1] in ("+", "-", " ")) and not _LISTED_RE.match(raw):
            last = start + len(raw)
    return last if len(seen) == len(set(lines)) else len(body)


def _lines_with(body: str, targets: dict[str, set[str]]) -> list[tuple[int, str]] | None:
    """(start, line with its ``\\n``) of each line of ``body`` whose stripped text starts with a
    key of ``targets``, in order, each once: the lines :func:`_report_ends` reads, found by
    substring searches instead of a Python loop over every line of a long output (1.5 % of the
    agent shape). None when a line that holds a key holds another of ``str.splitlines``'s
    breaks (``\\r``, ``\\f``, …: its lines are not these). ``test_speed_dryfix`` checks that
    :func:`_report_ends` gives the answers of the loop over every line."""
    starts: set[int] = set()
    for key in targets:
        at = body.find(key)
        while at >= 0:
            start = body.rfind("\n", 0, at) + 1
            end = body.find("\n", at)
            end = len(body) if end < 0 else end
            if _OTHER_BREAK_RE.search(body, start, end) is not None:
                return None
            if start not in starts and body[start:end].strip()[:8] == key:
                starts.add(start)
            at = body.find(key, end)  # the line is read: on to the next (a "====" rule's run)
    found = []
    for start in sorted(starts):
        end = body.find("\n", start)
        found.append((start, body[start : len(body) if end < 0 else end + 1]))
    return found


def passed_anyway(lines: list[str], body: str) -> bool:
    """Whether the error ``lines`` of an unflagged result's output ``body`` are all data or all
    followed by a success line (module docstring)."""
    if not lines:
        return False
    ends = _report_ends(lines, body)
    if ends < 0:
        return True  # only a diff's or a listing's lines
    after = body[ends:]
    if _COMMITTED_RE.search(after) or _PUSHED_RE.search(after):
        return True
    return _PASSED_RE.search(after) is not None and _FAILED_RE.search(body) is None
