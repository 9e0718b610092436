"""Files a sub-agent's report lists as changed, and files a cut-off sub-agent was told to
change (blind check 59, W6).

cc_jake_limit's shape: Task/Agent sub-agents implemented tasks in ``app.py`` and created a test
file; their reports are numbered lists ("1. Created `/srv/app/tests/test_x.py` with 5 tests.",
"3. Inserted the new route into `/srv/app/app.py` …"), which :mod:`.local_madeby`'s sentence
shapes ("I created", "has been updated") do not read; section 3 called the files "Read, not
changed". A later sub-agent, told "File to modify: `…/dashboard.html`", hit the usage limit
after 4 tool uses: the file may be half edited. By shape:

* :func:`report_items`: a report line that starts (after a list marker, a number, bold) with a
  past-tense write verb (Created, Wrote, Added, Inserted, Modified, Updated, Edited, Changed,
  Replaced, Rewrote, Fixed, Implemented) and names a file path (in backticks, or absolute): the
  file was created (Created/Wrote) or edited (the others);
* :func:`cut_off_targets`: a sub-agent result that says it was cut off (a usage or rate limit,
  an interruption, an API error) after at least one tool use leaves the files its prompt told it
  to change (a line with a write word naming a path) possibly half edited.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["CUT_OFF", "cut_off_targets", "report_items"]

CUT_OFF = "possibly half-edited"
"""The action of a file a cut-off sub-agent was told to change."""

_ITEM_RE = lazy_pattern(
    r"^[ \t>*#+-]*(?:\d{1,3}[.)][ \t]*)?(?:\*\*)?[ \t]*(Created|Wrote|Written|Added|Inserted|"
    r"Modified|Updated|Edited|Changed|Replaced|Rewrote|Rewritten|Fixed|Implemented)\b[^\n]*",
    re.MULTILINE,
)
_PATH_RE = lazy_pattern(
    r"`([^`\n]*[\\/][^`\n]*?\.[A-Za-z0-9]{1,8})`"
    r"|(?<![\w`])((?:[A-Za-z]:\\|/)[^\s`'\"<>()]+\.[A-Za-z0-9]{1,8})(?![\w`])"
)
_TAIL = 6_000
_CUT_RE = lazy_pattern(
    r"hit your (?:usage )?limit|usage limit|rate limit|session limit|out of (?:extra )?usage|"
    r"Request interrupted|interrupted by (?:the )?user|API Error|terminated early",
    re.IGNORECASE,
)
_USES_RE = lazy_pattern(r"\btool_uses:\s*(\d+)")
_TOLD_RE = lazy_pattern(
    r"\b(?:modify|edit|change|update|replace|rewrite|implement|create|write|fix)\b", re.IGNORECASE
)


def report_items(report: str) -> list[tuple[str, str, str]]:
    """(path, "created"|"edited", the line) of each file a report's list says it changed."""
    if not any(w in report[:_TAIL] for w in ("`", "/")):
        return []
    out: dict[str, tuple[str, str, str]] = {}
    for m in _ITEM_RE.finditer(report[:_TAIL]):
        verb = m.group(1)
        action = "created" if verb in ("Created", "Wrote", "Written") else "edited"
        for p in _PATH_RE.finditer(m.group(0)):
            path = (p.group(1) or p.group(2)).strip()
            if path and "*" not in path and " " not in path and path not in out:
                out[path] = (path, action, m.group(0).strip())
    return list(out.values())


def cut_off_targets(prompt: str, result: str) -> list[str]:
    """The files ``prompt`` told a sub-agent to change when its ``result`` says it was cut off
    after at least one tool use; empty otherwise."""
    head = result[:600]
    if _CUT_RE.search(head) is None:
        return []
    uses = _USES_RE.search(result[-600:])
    if uses is not None and uses.group(1) == "0":
        return []
    found: dict[str, None] = {}
    for line in prompt[:20_000].splitlines():
        if _TOLD_RE.search(line) is None:
            continue
        for p in _PATH_RE.finditer(line):
            path = (p.group(1) or p.group(2)).strip()
            if path and "*" not in path and " " not in path:
                found.setdefault(path, None)
    return list(found)[:6]
