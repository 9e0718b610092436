"""A line the environment prints before the output of most commands of a session (issue 28,
blind check 23 W2/W3/N1): never a result's key line nor its error.

A shell profile that fails on this machine (Homebrew's ``shellenv.sh: line 18: /bin/ps:
Operation not permitted`` in a sandbox), a login script's one-line warning, a proxy notice: the
same line opens the outputs of most commands, whatever they run. Read as output it became "the
error" of every failed command (16 times in one summary) and made a search that found nothing
(``rg`` exit 1, no output but that line) an "Unresolved failure". :func:`drop_boilerplate` finds
it by shape, once per session: the first line of a result's own output (after the harness's
exit-code header), at least :data:`_MIN_CHARS` long, that opens at least :data:`_MIN_SEEN`
results of one tool and half or more of them, for commands of at least :data:`_MIN_PROGRAMS`
different programs (a line that only one program prints, ``pytest``'s banner, or a file that
starts the same when read again, is that program's output, not the environment's). The line is
then dropped wherever it stands alone on a line of that tool's results. :func:`drop_banner
<compactor.facts.noise.drop_banner>` drops a banner of two lines or more; this one drops a
single line that comes after a header or after the command's stderr.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .text import Call, Entry, Result

__all__ = ["drop_boilerplate"]

_MIN_SEEN, _MIN_CHARS, _MIN_PROGRAMS = 4, 20, 3
_FIRST_LINE = 400
"""How far into a result's output its first line is looked for."""


def _first_line(text: str) -> str:
    from .outcomes import strip_output_header  # (outcomes imports the module that calls this)

    body = strip_output_header(text).lstrip("\n")
    end = body.find("\n", 0, _FIRST_LINE)
    return (body[:end] if end >= 0 else body[:_FIRST_LINE]).strip()


def drop_boilerplate(entries: Sequence[Entry]) -> None:
    """Drop from the results of ``entries`` the line that opens most of them (see the module);
    nothing when no line does."""
    by_tool: dict[str, list[Result]] = {}
    for e in entries:
        for r in e.results:
            by_tool.setdefault(r.name, []).append(r)
    calls: dict[str, Call] | None = None
    for results in by_tool.values():
        if len(results) < _MIN_SEEN:
            continue
        firsts = [_first_line(r.text) for r in results]
        counts: dict[str, int] = {}
        for line in firsts:
            if len(line) >= _MIN_CHARS:
                counts[line] = counts.get(line, 0) + 1
        if not counts:
            continue
        line, count = max(counts.items(), key=lambda kv: kv[1])
        if count < _MIN_SEEN or 2 * count < len(results):
            continue
        if calls is None:  # (only now: most sessions have no such line)
            calls = {c.id: c for e in entries if e.calls for c in e.calls}
        if len(_programs(line, results, firsts, calls)) < _MIN_PROGRAMS:
            continue
        alone = re.compile(r"^[ \t]*" + re.escape(line) + r"[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
        for r in results:
            if line in r.text:
                r.text = alone.sub("", r.text)


def _programs(
    line: str, results: list[Result], firsts: list[str], calls: dict[str, Call]
) -> set[str]:
    """The programs of the commands whose results ``line`` opens."""
    from .commands import main_program

    found: set[str] = set()
    for r, first in zip(results, firsts, strict=True):
        call = calls.get(r.call_id) if first == line else None
        command = call.command if call is not None else None
        if command:
            found.add(main_program(command))
    return found
