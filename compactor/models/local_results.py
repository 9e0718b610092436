"""What a tool result established, read by its shape (issue 28, blind check 10, quality9).

* :func:`output_succeeded`: a job's output that shows success (``test result: ok``, ``✓ built
  in 1.74s``, ``4 passed``) and no failure: a background job whose end status says only
  "exited" is then not a failure.
* :func:`ended_how`: how a background job ended, from its status word and its last output:
  ``exited (exit 0)`` when the output names the code (``Process exited with code 0``), ``exited
  (its output shows success)``, or the bare status.
* :func:`tail_matters`: whether a command's output is read from its end (test runners, builds,
  errors) or from its head (``git log``, ``git status``, ``ls``, ``head`` and listings
  generally: the first lines are what the command returned; ``git log --oneline -5``'s first
  line is HEAD).
* :func:`head_of`: the first lines of an output and, if cut, how many more there were.
* :func:`said_changed`: the files the assistant's final answer says it changed ("Removed X
  from path/file.tsx", "I updated …"): never "Read, not changed", whatever calls the
  transcript shows; a file it only cites ("the recently added step in [ci.yml:76]") is not.
"""

from __future__ import annotations

import re
from collections import Counter

from compactor._util import lazy_pattern
from compactor.facts import Entry

__all__ = [
    "ended_how",
    "head_of",
    "output_succeeded",
    "said_changed",
    "same_results",
    "tail_matters",
]

_EXIT_RE = lazy_pattern(
    r"<exit_code>\s*(-?\d+)\s*</exit_code>|exit(?:ed with)? code[:\s]+(-?\d+)", re.IGNORECASE
)
_SUCCESS_RE = lazy_pattern(
    r"test result: ok\b|✓ built\b|\b\d+ (?:passed|tests? passed)\b|\bBUILD SUCCESSFUL\b|"
    r"\bAll tests passed\b|\bCompiled successfully\b|\bbuilt in \d",
    re.IGNORECASE,
)
_FAILURE_RE = lazy_pattern(
    r"\b[1-9]\d* (?:failed|errors?)\b|\bFAILED\b|\btest result: FAILED\b|^error(?:\[\w+\])?:|"
    r"\bpanicked at\b|\bTraceback \(most recent call last\)|\bBUILD FAILED\b|"
    r"\bcommand not found\b|\bexit code[:\s]+[1-9]",
    re.MULTILINE,
)
_TAIL = 20_000


def output_succeeded(text: str) -> bool:
    """Whether an output shows success and no failure (its last 20,000 characters)."""
    window = text if len(text) <= _TAIL else text[len(text) - _TAIL :]
    return _SUCCESS_RE.search(window) is not None and _FAILURE_RE.search(window) is None


def ended_how(status: str, text: str) -> str:
    """How a background job ended: its status word with the exit code its output names, else
    with "its output shows success" when it does, else the bare status (``exited``: the exit
    status is not known, which is not a failure)."""
    code = _EXIT_RE.search(text)
    value = next((g for g in code.groups() if g), None) if code else None
    if value is not None:
        return f"{status} (exit {value})"
    if status in ("exited", "ended", "done", "finished") and output_succeeded(text):
        return f"{status} (its output shows success)"
    return status


_TAIL_PROGRAMS = frozenset(
    "pytest tox nox jest vitest mocha cargo go npm pnpm yarn npx make cmake ninja mvn gradle "
    "bun deno dotnet ctest phpunit rspec tsc mypy ruff eslint gcc clang javac docker "
    "python python3 node bash sh zsh uv pip pip3 brew apt apt-get".split()
)
"""Programs whose output is read from its end (a runner's summary, a build's result, an error):
scripts and installers too, which print their result last."""


def tail_matters(programs: list[str]) -> bool:
    """Whether the output of a command running ``programs`` is read from its end: a test runner,
    a build, a script or installer among them. Listings (``ls``, ``git log``, ``git status``,
    ``head``, ``find``, ``cat``) and anything else are read from their head."""
    return any(p.split(" ", 1)[0] in _TAIL_PROGRAMS for p in programs)


def head_of(lines: list[str], keep: int) -> tuple[list[str], str]:
    """The first ``keep`` lines and, when there were more, `` … (N more lines)``."""
    more = len(lines) - keep
    if more <= 0:
        return lines, ""
    return lines[:keep], f" … ({more} more {'line' if more == 1 else 'lines'})"


_EDIT_VERB_RE = lazy_pattern(
    r"\b(?:Removed|Added|Updated|Changed|Edited|Modified|Fixed|Replaced|Rewrote|Rewritten|"
    r"Renamed|Created|Deleted|Moved|Wrote|Written|Refactored|Patched|Inserted|Dropped|Tightened|"
    r"Adjusted|Switched|Simplified|Reworked|Implemented|Extended|Restyled|Cleaned up)\b",
    re.IGNORECASE,
)
_CLAUSE_CHARS = 240


def said_changed(final: Entry | None, reads: list[str], items: list[str]) -> list[str]:
    """``reads`` without the files the assistant's final answer says it changed (the file or
    its name in a line or sentence with an edit verb before it: "Removed the badge row from
    ui/src/components/ShellNode.tsx"); those are added to ``items`` on a line of their own."""
    text = final.text if final is not None else ""
    said = [p for p in reads if _said(text, p)] if text else []
    if said:
        items.append("Changed, as the assistant's final answer says: " + ", ".join(said))
    return [p for p in reads if p not in said] if said else reads


def _said(text: str, path: str) -> bool:
    """Whether ``text`` names ``path`` (whole, or by a relative path with a folder that it
    ends with; never by its bare name: another file of that name may be the one changed,
    blind check 31 W4/W5) in a clause with an edit verb before it."""
    norm = path.replace("\\", "/")
    name = norm.rsplit("/", 1)[-1]
    if len(name) < 3:
        return False
    pos = text.find(name)
    while pos >= 0:
        if _names(text, pos, name, norm):
            start = max(
                text.rfind("\n", 0, pos),
                text.rfind(". ", 0, pos),
                text.rfind("; ", 0, pos),
                pos - _CLAUSE_CHARS,
            )
            verb = _EDIT_VERB_RE.search(text, start + 1, pos)
            if verb is not None and _reported(text[start + 1 : verb.start()]):
                return True
        pos = text.find(name, pos + len(name))
    return False


_LEAD_RE = lazy_pattern(r"[\w'’]+")
_SUBJECTS = frozenset(("i", "we", "i've", "we've", "i’ve", "we’ve"))
_LINKS = frozenset(("have", "also", "just", "then", "and", "now", "finally", "already"))


def _reported(lead: str) -> bool:
    """Whether an edit verb after ``lead`` (the clause before it) reports the agent's own
    change: the verb opens the clause ("Removed X from …", "- Updated …", "and changed …") or
    follows "I"/"we" ("I've also updated …"); never a participle that describes a thing ("The
    recently added step in [release.yml:76] …", "the file was changed upstream": blind check
    52 W8, a file cited as the cause was listed as changed)."""
    words = [w.lower() for w in _LEAD_RE.findall(lead)]
    while words and words[-1] in _LINKS:
        words.pop()
    return not words or words[-1] in _SUBJECTS


_PATH_CHARS_RE = lazy_pattern(r"[^\s`'\"<>()\[\]{}|,;*]*$")


def _names(text: str, pos: int, name: str, path: str) -> bool:
    """Whether the path written where ``name`` occurs at ``pos`` in ``text`` is ``path``."""
    end = pos + len(name)
    if end < len(text) and (text[end].isalnum() or text[end] in "_-/\\"):
        return False  # part of a longer word or path
    found = _PATH_CHARS_RE.search(text, max(0, pos - 500), pos)
    written = (text[found.start() : pos] if found else "").replace("\\", "/") + name
    if "/" not in written:
        return False
    written = written.removeprefix("./")
    return path == written or path.removeprefix("./").endswith(written.lstrip("/"))


_TIMING_RE = lazy_pattern(
    r"\b\d+(?:\.\d+)?\s?(?:ms|µs|s|sec|secs|seconds)\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?"
)
"""A duration or a clock time: what differs between two test runs that had the same result."""
_TEST_COUNT_RE = lazy_pattern(r"\b\d+ (?:passed|failed|tests?\b)|\btest result: ")
"""A test runner's summary: its timings are no result (a benchmark's are: compared as printed)."""


def same_results(
    outputs: list[tuple[int, int, str, str]],
) -> list[tuple[int, int, str, str, str]]:
    """``outputs`` (position, score, command, what it printed) with the runs of one command
    that printed the same (a test run's timings aside) once, where the last of them ran, with
    its result and the highest score, and a note of the count (blind check 18, madinah-codex:
    five identical ``pnpm test`` results listed one after another)."""
    counts = Counter(item[2] for item in outputs)
    if len(counts) == len(outputs):  # no command ran twice
        return [(*item, "") for item in outputs]
    groups: dict[tuple[str, str], list[tuple[int, int, str, str]]] = {}
    for item in outputs:
        printed = item[3]
        if counts[item[2]] > 1 and _TEST_COUNT_RE.search(printed) is not None:
            printed = _TIMING_RE.sub("", printed)  # a test run's timings are no result
        groups.setdefault((item[2], printed), []).append(item)
    merged = []
    for runs in groups.values():
        pos, _, command, printed = runs[-1]
        times = f" (×{len(runs)} with this result; the last shown)" if len(runs) > 1 else ""
        merged.append((pos, max(r[1] for r in runs), command, printed, times))
    return sorted(merged)
