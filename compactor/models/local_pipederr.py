"""Error lines a read's pipeline printed although it exited 0 (blind check 65, W1).

``find DIR -type f | sort | sed -n '1,120p'`` prints ``find: 'DIR': No such file or directory``
and exits 0: the status is the last command's. The call only reads, so its output was taken for
file content and section 4 said "no tool result … printed an error line". A line that starts
with the name of one of the command's own programs and says a path is missing or not allowed
(``PROG: 'PATH': No such file or directory``, ``PROG: cannot access …``, ``PROG: PATH:
Permission denied``) is that program's diagnostic, not content: :func:`piped_error_items` names
the call and those lines.
"""

from __future__ import annotations

import re
from operator import attrgetter

from compactor.facts import Call
from compactor.facts.absence import expected_absence
from compactor.facts.commands import is_reading_call, programs
from compactor.facts.outcomes import scan_window

from .local_session import Session, once
from .local_text import call_line

_DIAGNOSTIC_RE = re.compile(
    r"^([\w.+-]{1,40}): (?:.{0,300}?: )?(?:No such file or directory|Permission denied)\s*$"
    r"|^([\w.+-]{1,40}): cannot access\b.{0,300}$"
)
"""``PROG: 'PATH': No such file or directory``, ``PROG: PATH: Permission denied``,
``PROG: cannot access 'PATH': …``: group 1 or 2 is the program's name."""
_LINES_MOST = 3
_CALLS_MOST = 4
_RESULTS = attrgetter("results")

PIPED_HEAD = (
    "These did not fail (exit 0: the status is the last command's), but an earlier command of "
    "their pipeline printed an error line (a piped error):"
)


_LIST_RE = re.compile(r"&&|\|\||;|\n")


def _piped(command: str) -> set[str]:
    """The programs of ``command`` whose output goes into a pipe (not a pipeline's last one:
    its status is the pipeline's); a ``;`` list's probes (``ls -ld X 2>&1; echo …``) are none."""
    found: set[str] = set()
    for part in _LIST_RE.split(command):
        stages = part.split("|")
        for stage in stages[:-1]:
            found.update(programs(stage))
    return found


def _diagnostics(command: str, text: str) -> tuple[list[str], int]:
    """(the first few distinct diagnostics of ``command``'s piped programs in ``text``, how
    many)."""
    names = _piped(command)
    if not names:
        return [], 0
    seen: dict[str, None] = {}
    count = 0
    for raw in scan_window(text).splitlines():
        line = raw.strip()
        m = _DIAGNOSTIC_RE.match(line)
        if m is None or (m.group(1) or m.group(2)).lower() not in names:
            continue
        if expected_absence(command, line):
            continue  # `ls X || echo gone`: the absence was the point (blind check 51, W3)
        count += 1
        seen.setdefault(line[:300], None)
    return list(seen)[:_LINES_MOST], count


def piped_error_items(s: Session, width: int) -> list[str]:
    """One item per reading call (the latest :data:`_CALLS_MOST`) that was not counted as a
    failure but whose output holds its own programs' "missing path" or "permission denied"
    lines; empty when none does."""
    return [
        f"{call_line(call, width)} printed: "
        + " | ".join(lines)
        + (f" ({count} error lines in all)" if count > len(lines) else "")
        for call, lines, count in once(s, _piped_calls)
    ]


def _piped_calls(s: Session) -> list[tuple[Call, list[str], int]]:
    """:func:`piped_error_items`' calls and lines (read once: each render lists them)."""
    calls: dict[str, Call] = {c.id: c for c in s.calls}
    found: list[tuple[Call, list[str], int]] = []
    for e in filter(_RESULTS, reversed(s.entries)):
        for r in e.results:
            call = calls.get(r.call_id)
            if call is None or not r.text or r.call_id in s.failed_calls:
                continue
            command = call.command
            if not command or "|" not in command or not is_reading_call(call):
                continue  # other calls: printed_error_items reads their error lines
            lines, count = _diagnostics(command, r.text)
            if not lines:
                continue
            found.append((call, lines, count))
            if len(found) >= _CALLS_MOST:
                return found[::-1]
    return found[::-1]
