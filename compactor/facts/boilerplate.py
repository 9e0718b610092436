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

The same lines at the END of outputs (blind check 72 W3, jg_qevent): the Windows Git shell
appended "rm: cannot remove '/etc/post-install/01-devices.post': Permission denied" (four such
lines) to the output of every Bash call, after the command's own output ("up to date, audited
165 packages", the generated secret, the ``npm list`` tree); the results were not flagged as
errors, yet §4 and the Analysis counted three failed calls. :func:`drop_trailer` finds the whole
lines that end results of one tool, of commands of at least two programs, after at least
:data:`_TAIL_SEEN` different outputs of the commands' own (not the harness's header), and drops
them from those results.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .text import Call, Entry, Result

__all__ = ["drop_boilerplate", "drop_trailer"]

_MIN_SEEN, _MIN_CHARS, _MIN_PROGRAMS = 4, 20, 3
_TAIL_SEEN, _TAIL_MIN_CHARS, _TAIL_MIN_LINES, _TAIL_TRIES = 3, 40, 2, 4
_TAIL = 8_000
"""How far from a result's end its trailer is looked for."""
_READING = frozenset("read read_file readfile view view_file open_file notebookread".split())
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


def _before(text: str, tail: str) -> str:
    """What the command printed itself before ``tail``: '' when ``tail`` reaches into the
    harness's header (``Exit code 1``, ``Process exited with code 1``) or is all it printed."""
    from .outcomes import strip_output_header

    own = strip_output_header(text).rstrip()
    return own[: -len(tail)].strip() if len(own) > len(tail) and own.endswith(tail) else ""


def _shared_tail(one: str, two: str) -> str:
    """The whole lines that both ``one`` and ``two`` (right-stripped) end with ('' when too
    short for a trailer)."""
    size = 0
    for x, y in zip(reversed(one), reversed(two), strict=False):
        if x != y:
            break
        size += 1
    tail = one[len(one) - size :]
    if size < len(one) and one[len(one) - size - 1] != "\n":
        tail = tail[tail.find("\n") + 1 :] if "\n" in tail else ""
    if size == len(one) and size < len(two) and two[len(two) - size - 1] != "\n":
        tail = tail[tail.find("\n") + 1 :] if "\n" in tail else ""
    if len(tail) < _TAIL_MIN_CHARS or tail.count("\n") + 1 < _TAIL_MIN_LINES:
        return ""
    return tail


def drop_trailer(entries: Sequence[Entry]) -> None:
    """Drop from the results of ``entries`` the lines the environment appends to every output
    (see the module): at least two whole lines and 40 characters that end results of one tool,
    run by commands of two programs or more, after :data:`_TAIL_SEEN` or more different outputs
    of the commands' own (never the whole output: then they are the command's error, such as a
    sandbox's "bwrap: … Operation not permitted" after every refused command). The first
    :data:`_TAIL_TRIES` last lines two results share are tried."""
    from .commands import main_program

    last: dict[tuple[str, str], Result] = {}
    tries = 0
    calls: dict[str, Call] | None = None
    for e in entries:
        for r in e.results:
            if r.name.lower() in _READING or "\n" not in r.text:
                continue
            end = r.text[-_TAIL:].rstrip()
            key = (r.name, end[end.rfind("\n") + 1 :])
            seen = last.get(key)
            if seen is None:
                last[key] = r
                continue
            tail = _shared_tail(seen.text[-_TAIL:].rstrip(), end)
            if not tail:
                continue
            ending = [
                x
                for f in entries
                for x in f.results
                if x.name == r.name and x.text[-_TAIL:].rstrip().endswith(tail)
            ]
            rests = {_before(x.text, tail) for x in ending} - {""}
            if calls is None:
                calls = {c.id: c for f in entries if f.calls for c in f.calls}
            ran = {
                main_program(c.command).split(" ", 1)[0]
                for x in ending
                if (c := calls.get(x.call_id)) is not None and c.command
            }
            if len(rests) >= _TAIL_SEEN and len(ran) >= 2:
                for x in ending:
                    x.text = x.text.rstrip()[: -len(tail)].rstrip()
                return
            tries += 1
            if tries == _TAIL_TRIES:
                return
            last[key] = r
