"""Error lines printed by calls that did not fail (blind check 14, issue 28).

A seed script that exits 0 may still print twenty ``[CONVEX …] [ERROR] …`` lines: no call
failed, but saying "no tool result printed an error line" is wrong. Section 4 then names the
calls and a few of their distinct error lines (:func:`printed_error_items`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import Call, cut
from compactor.facts.absence import expected_absence, says_missing
from compactor.facts.bounded import is_startup_noise
from compactor.facts.commands import is_reading_call
from compactor.facts.killreport import own_kill_report
from compactor.facts.masked import masked_lines
from compactor.facts.noise import is_warning, strip_ansi
from compactor.facts.outcomes import error_lines, scan_window
from compactor.facts.reads import is_subagent, only_reads

from .local_claims import no_errors_line
from .local_pipederr import PIPED_HEAD, piped_error_items
from .local_retries import retries, signature
from .local_session import Session, once
from .local_text import call_line, code
from .local_usershell import notice_error_items, shell_error_items

_PASSED_RE = lazy_pattern(r"\b\d+ (?:passed|passing)\b(?!.*\b[1-9]\d* fail)", re.IGNORECASE)
"""A test run's count line that reports passes and no failure (``Tests: 223 passed``)."""
_ALL_PASSED_RE = lazy_pattern(
    r"^\W*all\b[\w \t-]{0,40}?\b(?:passed|pass|succeeded)\W*$", re.IGNORECASE
)
"""A check script's closing line with no count: ``ALL UI CHECKS PASSED`` (BENCH50 W5)."""
_NUMBER_RE = re.compile(r"\d+")
_LINES_MOST = 3
_CALLS_MOST = 4
_RESULTS = attrgetter("results")


def _printed(text: str) -> tuple[list[str], int]:
    """(the first few distinct error lines of ``text``, how many error lines it has)."""
    seen: dict[str, None] = {}
    count = 0
    window = scan_window(text)
    if "\x1b" in window:  # colour codes off: ``Failed: \x1b[31m0`` is a count (77 W2)
        window = strip_ansi(window)
    for _, line in error_lines(window):
        if is_warning(line) or is_startup_noise(line):  # a login shell's start-up error: noise
            continue  # a warning: the call went on (as compactor.facts.outcome reads it)
        count += 1
        seen.setdefault(line, None)
    return list(seen)[:_LINES_MOST], count


def printed_error_items(s: Session, width: int, *, reads: bool = False) -> list[str]:
    """One item per call (the latest :data:`_CALLS_MOST`) whose result was not counted as a
    failure but printed error lines; empty when none did. Calls that only read or search files
    print file content, not reports, and are left out; with ``reads``, only the reads of
    :func:`~compactor.facts.reads.only_reads` (a compose log, a fetch) are in."""
    return [
        f"{call_line(call, width) if call is not None else name} did not fail, but printed: "
        + " | ".join(lines)
        + (f" ({count} error lines in all)" if count > len(lines) else "")
        for call, name, lines, count in once(s, _printed_reads if reads else _printed_runs)
    ]


_Printed = list[tuple[Call | None, str, list[str], int]]
"""(call, tool name, its first distinct error lines, how many it printed), in call order."""


def _printed_reads(s: Session) -> _Printed:
    return _printed_calls(s, reads=True)


def _printed_runs(s: Session) -> _Printed:
    return _printed_calls(s, reads=False)


def _printed_calls(s: Session, *, reads: bool) -> _Printed:
    """:func:`printed_error_items`' calls and lines (read once: each render lists them)."""
    calls: dict[str, Call] = {c.id: c for c in s.calls}
    found: _Printed = []
    for e in filter(_RESULTS, reversed(s.entries)):  # (most entries carry none: a C-level skip)
        for r in e.results:
            call = calls.get(r.call_id)
            if not r.text or r.call_id in s.failed_calls:
                continue
            if not only_reads(call) if reads else is_reading_call(call):
                continue
            if is_subagent(call):
                continue  # a sub-agent's report: prose, not an error output (blind check 31 W3)
            lines, count = _printed(r.text)
            if call is not None and any(says_missing(line) for line in lines):  # (51, W3)
                lines = [x for x in lines if not expected_absence(call.command, x)]
            if not lines or (count == len(lines) and own_kill_report(call, lines)):
                continue  # `echo "Killed root process N"`: its own report (blind check 27)
            found.append((call, r.name, lines, count))
            if len(found) >= _CALLS_MOST:
                return found[::-1]
    return found[::-1]


def masked_items(s: Session, width: int) -> list[str]:
    """One item per call (the latest :data:`_CALLS_MOST`) that was not counted as a failure
    although its pipe hid its exit status and its output says it failed (blind check 21); with
    the later run of the same program whose tests passed, when there is one."""
    found: list[str] = []
    for call, lines, later in once(s, _masked_calls):
        shown = " | ".join(lines)
        if later is not None:
            shown += f" (a later {code(call_line(later[0], width))} printed: {later[1]})"
        found.append(f"{call_line(call, width)} → its output shows: {shown}")
    return found


def _masked_calls(s: Session) -> list[tuple[Call, list[str], tuple[Call, str] | None]]:
    """:func:`masked_items`' calls, lines and later passing runs (read once: each render lists
    them)."""
    calls: dict[str, Call] = {c.id: c for c in s.calls}
    texts: dict[str, str] = {}  # every result's, made for the first masked call (most: none)
    found: list[tuple[Call, list[str], tuple[Call, str] | None]] = []
    for e in filter(_RESULTS, reversed(s.entries)):
        for r in e.results:
            call = calls.get(r.call_id)
            if r.call_id in s.failed_calls or call is None:
                continue
            lines = masked_lines(call, r.text)
            if lines:
                texts = texts or {
                    x.call_id: x.text for y in filter(_RESULTS, s.entries) for x in y.results
                }
                found.append((call, lines, _passed_later(s, call, texts)))
                if len(found) >= _CALLS_MOST:
                    return found[::-1]
    return found[::-1]


def _passed_later(s: Session, call: Call, texts: dict[str, str]) -> tuple[Call, str] | None:
    """The first later call that runs the same program again (a retry, as section 4 judges
    one), was not failed, shows no failure and printed a count of passed tests with none failed,
    with that line; else None."""
    sig = signature(call)
    for later in s.calls:
        if later.index <= call.index or later.id in s.failed_calls or later.id not in texts:
            continue
        text = texts[later.id]
        if not text.strip() or masked_lines(later, text):
            continue
        if signature(later)[0] != sig[0] or not retries(sig, signature(later)):
            continue
        result = [
            ln.strip()
            for ln in text[-20_000:].splitlines()
            if _PASSED_RE.search(ln) or _ALL_PASSED_RE.match(ln.strip())
        ]
        if result:
            return later, cut(result[-1], 160)
    return None


_MASKED_HEAD = (
    "These calls were not flagged as errors and exited 0 only because a pipe (`| tail`, `| "
    "grep` …) hides a command's exit code; their output shows a failure:"
)


def no_errors_items(s: Session, width: int) -> list[str]:
    """:func:`_no_errors_items`, then the ``!`` commands of the user's that failed."""
    items = _no_errors_items(s, width)
    if (notices := notice_error_items(s)) and items == [no_errors_line(s)]:
        items = [
            "No tool call failed (none was flagged as an error, exited non-zero or printed an "
            "error line), but:"
        ]  # not "None in this part" (blind check 44, W1)
    return items + notices + shell_error_items(s, width)


def _no_errors_items(s: Session, width: int) -> list[str]:
    """Section 4's first items when no call failed: the calls whose output shows a failure a
    pipe hid, the calls that still printed error lines (the sentence "no result printed an
    error line" is then not said), else that sentence."""
    masked = masked_items(s, width)
    printed = printed_error_items(s, width)
    piped = _piped(s, width)
    if masked:
        shown = {item.split(" → ", 1)[0] for item in masked}
        printed = [p for p in printed if p.split(" did not fail", 1)[0] not in shown]
        more = ["These did not fail, but printed error lines:"] if printed else []
        return [
            _MASKED_HEAD,
            *(f"  {x}" for x in masked),
            *more,
            *(f"  {x}" for x in printed),
            *piped,
        ]
    if not printed and not piped:
        return [no_errors_line(s)]
    if not printed:
        return piped  # (no "no tool result printed an error line": blind check 65, W1)
    head = (
        "No call failed (none was flagged as an error or exited non-zero), but these printed "
        "error lines:"
    )
    return [head, *(f"  {item}" for item in printed), *piped]


def _piped(s: Session, width: int) -> list[str]:
    """:data:`PIPED_HEAD` and the items of :func:`piped_error_items`; empty when none."""
    items = piped_error_items(s, width)
    return [PIPED_HEAD, *(f"  {x}" for x in items)] if items else []


def read_error_items(s: Session, width: int) -> list[str]:
    """:func:`_read_error_items`, then the ``!`` commands of the user's that failed."""
    return _read_error_items(s, width) + notice_error_items(s) + shell_error_items(s, width)


def _read_error_items(s: Session, width: int) -> list[str]:
    """Section 4's first items when calls failed: the reads of a compose log or a fetch that
    did not fail but printed error lines (a crashing service's log: blind check 18), as
    tool-result facts, not failures."""
    masked = masked_items(s, width)
    head = [_MASKED_HEAD, *(f"  {item}" for item in masked)] if masked else []
    printed = printed_error_items(s, width, reads=True)
    piped = _piped(s, width)
    if not printed:
        return head + piped
    return [
        *head,
        "These reads did not fail, but what they read holds error lines:",
        *(f"  {item}" for item in printed),
        *piped,
    ]


def distinct_errors(lines: list[str]) -> list[str]:
    """The key error lines of a run of failures of one call, each kind once (its first), in
    order; lines alike but for a number are one kind (a flaky test's "(run 1)" … "(run 4)"):
    blind check 29 W3 printed the last failure's SyntaxError for a first one's TypeError."""
    kinds: dict[str, str] = {}
    for line in lines:
        kinds.setdefault(_NUMBER_RE.sub("#", line), line)
    return list(kinds.values())


def each_error(lines: Sequence[Sequence[str]], width: int) -> str:
    """``": E1, then E2"`` when a run of failures' key errors (each failure's ``lines``) differ
    (:func:`distinct_errors`; more than three: the first, "… (N other errors)", the last); ''
    when they are one kind."""
    keys = distinct_errors([found[0] for found in lines if found])
    if len(keys) < 2:
        return ""
    keys[1:-1] = keys[1:-1] if len(keys) < 4 else [f"… ({len(keys) - 2} other errors)"]
    return ": " + ", then ".join(cut(x, width) for x in keys)
