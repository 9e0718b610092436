"""What a successful command printed that a resuming agent needs (moved from
:mod:`.local_session`, which was at its size limit; issue 28, blind check 26 N5).

cx-personalize (a 14-message Codex session): ``git add -A && git commit`` printed the root
commit's header (``[master (root-commit) 59f0b77] Initial commit``, ``404 files changed, …``)
and then 404 ``create mode`` lines; only the last 400 lines of a long output were searched for
result lines, so the commit was lost, §5 had no "What commands printed" and §3 said "No file was
created, edited or deleted". A long output's head is searched too (a header reports first), and
the untracked files a ``git status`` listed are kept as one line (the latest status wins).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import (
    Call,
    clean,
    command_of,
    cut,
    last_error_lines,
    one_line,
    programs,
    scan_window,
    strip_output_header,
)
from compactor.facts.bounded import is_startup_noise

from .local_noise import is_usage_footer
from .local_readfacts import read_fact
from .local_text import call_line, is_result_line, printed_lines

__all__ = ["UNTRACKED", "Printed", "echoed", "more_note", "printed", "read_output"]

Printed = tuple[int, int, str, str]
"""(entry index, score, the call's line, what it printed): one item of ``Session.outputs``."""

_SHORT_OUTPUT_LINES, _SHORT_OUTPUT_CHARS, _OUTPUT_TAIL = 6, 400, 20_000
_HEAD_CHARS, _HEAD_LINES = 4_000, 12
"""A long output's head searched for result lines too (a commit's header, a build's summary)."""
_LISTED = 8
"""The files of one ``git status`` list named at most; the others are counted
(:func:`more_note`)."""
_LOG_PROGRAMS = frozenset({"journalctl", "docker logs", "kubectl logs", "systemctl status"})
UNTRACKED = "untracked (not committed): "
"""How the untracked files a ``git status`` listed start their line."""
CHANGED = "changed, not committed: "
"""How the changed tracked files a ``git status`` listed start their line (re-judged M1)."""
_SHORT_UNTRACKED_RE = lazy_pattern(r"^\?\? (.+)$", re.MULTILINE)
_SHORT_CHANGED_RE = lazy_pattern(r"^([MADRCU ][MADRCU]|[MADRCU][MADRCU ]) (.+)$", re.MULTILINE)
_LONG_CHANGED_RE = lazy_pattern(r"^\t(modified|deleted|new file|renamed):\s+(.+)$", re.MULTILINE)
_LONG_UNTRACKED_RE = lazy_pattern(
    r"^Untracked files:\n(?:\s*\(use .*\n)?((?:\t.*\n?)+)", re.MULTILINE
)


_ERROR_FIELD_RE = lazy_pattern(
    r"(?:errno|syscall|code|errorno)\s*:\s*(?:-?\d+|\"[\w.\-]*\"|'[\w.\-]*')\s*,?"
)
"""A property line of a Node or Bun error object (``errno: -98,``, ``code: 'EADDRINUSE',``,
``syscall: "listen",``): part of an error block, never a result of its own (blind check 34 W5:
"BashOutput(…) → errno: 0," read as success for a server that failed to start)."""


def printed(text: str) -> tuple[int, str] | None:
    """(score, line) of what a successful command printed: a short output whole, else its
    result lines (from its head and its last :data:`_OUTPUT_TAIL` characters); None when it
    printed nothing worth keeping. An error block's property lines (:data:`_ERROR_FIELD_RE`)
    are not results: its error line stands for it."""
    tail = text if len(text) <= _OUTPUT_TAIL else text[len(text) - _OUTPUT_TAIL :]
    lines = _kept(tail, text)
    fields = [ln for ln in lines if _ERROR_FIELD_RE.fullmatch(ln)] if "errno" in tail else []
    if fields:
        errors = last_error_lines(scan_window(text), 1)
        if errors:  # the error line, and the error's code (``code: "EADDRINUSE"``)
            named = [f.rstrip(", ") for f in fields if re.match(r"code\s*:\s*[\"']", f)]
            return 2, " | ".join([*errors, *named[-1:]])
        lines = [ln for ln in lines if ln not in fields]
    if not lines:
        return None
    joined = " | ".join(lines)
    if len(lines) <= _SHORT_OUTPUT_LINES and len(joined) <= _SHORT_OUTPUT_CHARS:
        first = [ln for ln in lines if is_result_line(ln)]
        long = len(joined) > 200  # to be cut: the result lines go first
        ordered = list(dict.fromkeys([*first, *lines])) if long else lines
        score = 2 if first else 0 if "in background with ID" in joined[:200] else 1
        return score, " | ".join(ordered)
    found = [ln for ln in lines[-400:] if len(ln) <= 240 and is_result_line(ln)]
    picked = list(dict.fromkeys(cut(ln, 200) for ln in found))[-3:]
    if len(lines) > 400 or len(text) > _OUTPUT_TAIL:  # its head is not in the lines searched
        head = _kept(text[:_HEAD_CHARS], text)[:_HEAD_LINES]
        picked = list(
            dict.fromkeys([*[cut(ln, 200) for ln in head if is_result_line(ln)][:2], *picked])
        )
    return (2, " | ".join(picked)) if picked else None


def _kept(text: str, whole: str) -> list[str]:
    lines = printed_lines(strip_output_header(clean(text)))
    if "tool_uses" in whole or "agentId:" in whole:  # a sub-agent's usage footer says nothing
        lines = [ln for ln in lines if not is_usage_footer(ln)]
    if ": line " in whole:  # a login shell's start-up error (blind check 16)
        lines = [ln for ln in lines if not is_startup_noise(ln)]
    return lines


def untracked_paths(text: str) -> list[str]:
    """The untracked paths a ``git status`` output lists (``?? path``; the long form's
    "Untracked files:" block)."""
    found = [m.group(1).strip() for m in _SHORT_UNTRACKED_RE.finditer(text)]
    for block in _LONG_UNTRACKED_RE.finditer(text):
        found += [ln.strip() for ln in block.group(1).splitlines() if ln.strip()]
    return list(dict.fromkeys(found))


def changed_paths(text: str) -> list[str]:
    """The changed tracked files a ``git status`` output lists, each with its status (`` M
    app.tsx`` → ``app.tsx (M)``; the long form's ``modified:   app.tsx`` → ``app.tsx
    (modified)``)."""
    found = [
        f"{m.group(2).strip()} ({m.group(1).strip()})" for m in _SHORT_CHANGED_RE.finditer(text)
    ]
    found += [f"{m.group(2).strip()} ({m.group(1)})" for m in _LONG_CHANGED_RE.finditer(text)]
    return list(dict.fromkeys(found))


def read_output(outputs: list[Printed], index: int, call: Call, text: str) -> None:
    """Add what a reading command's output holds worth a line (:func:`log_found`) to
    ``outputs``; a ``git status`` replaces the untracked and changed files an earlier one
    listed."""
    found = log_found(call, text)
    if found.startswith((UNTRACKED, CHANGED)):
        outputs[:] = [o for o in outputs if not o[3].startswith((UNTRACKED, CHANGED))]
        if found == UNTRACKED:
            return  # no untracked file (any more)
    found = found or read_fact(command_of(call) or "", text)  # a remote, a version (M1)
    if found:
        outputs.append((index, 2, one_line(call_line(call, 160)), one_line(found)))


def more_note(count: int) -> str:
    """The end of a list that does not name ``count`` of its files ("" when none; blind check
    47 W4: a list cut short must say so)."""
    return f", … and {count} more" if count > 0 else ""


def log_found(call: Call, text: str) -> str:
    """What a reading command's output holds worth a line: the error lines of a log it read
    (``journalctl``, ``docker logs``, ``*.log``: the log is data, what went wrong in it a
    finding), or the untracked files a ``git status`` listed; "" when none."""
    command = command_of(call)
    if command is None:
        return ""
    ran = programs(command)
    if "git status" in command and any(p.startswith("git") for p in ran):
        parts = [
            head + ", ".join(found[:_LISTED]) + more_note(len(found) - _LISTED)
            for head, found in ((UNTRACKED, untracked_paths(text)), (CHANGED, changed_paths(text)))
            if found
        ]
        return "; ".join(parts) or UNTRACKED
    if ".log" in command or any(p in _LOG_PROGRAMS for p in ran):
        return " | ".join(last_error_lines(scan_window(text), 3))  # the latest: went wrong last
    return ""


_ECHO_MIN = 24
"""A shown piece shorter than this may be in the arguments by chance ("ok", a path)."""


def echoed(call: Call, shown: str) -> bool:
    """Whether what a result's lines show only repeats the call's own arguments (a plan tool's
    approval echoes the plan: its expected results "resolves and builds successfully" are no
    command's output; blind check 49 N1). A shell command's output is its own even when it
    echoes a string of the command (``eslint … || echo "Linting completed"``: what it printed)."""
    if command_of(call) is not None:
        return False
    values = [v for v in call.args.values() if isinstance(v, str) and len(v) >= _ECHO_MIN]
    if not values:
        return False
    said = " ".join(" ".join(v.split()) for v in values)
    pieces = [p.strip() for p in shown.split(" | ") if p.strip()]
    return bool(pieces) and all(len(p) >= _ECHO_MIN and p in said for p in pieces)
