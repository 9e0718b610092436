"""A failure is not told by a banner its program prints on every call (blind check 61 W3).

cc-flo: every ``claude-flow …`` call, the successful ones too, printed "[AgentDB Patch]
Controller index not found: …"; a failed ``claude-flow memory export …`` printed it first and
the real errors after it ("[ERROR] Required option missing: --output"). The failure's excerpt
was the banner, which points a resuming agent at the wrong problem. Fix61a ranked ``[ERROR] …``
lines above it; a real error line that no pattern ranks ("Required option missing: --output")
still lost to the banner's "not found".

:func:`judge_banners`: an error line of a failed shell command that a successful call of the
same program printed verbatim is a banner, no cause. It is left out of the excerpt; when only
banners were left, the excerpt is taken again from the failed output without them (nor a line
the command itself echoes, nor the harness's exit-code header): a line tagged as an error
(``[ERROR] …``, ``error: …``, ``Error: …``) first, else the first informative line. The program
is each program the command runs but the shell's helpers (``echo``, ``cd``, ``sleep``, the pipe's
filters).
"""

from __future__ import annotations

from dataclasses import replace

from compactor._util import lazy_pattern
from compactor.facts import Call, clean, cut
from compactor.facts.commands import programs
from compactor.facts.outcomes import Outcome, strip_output_header
from compactor.facts.wenton import first_informative_line

from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = ["Banners", "judge_banners"]

_HELPERS = frozenset(
    "echo printf cd sleep true false set export env time head tail grep rg sed awk cat tee wc "
    "sort uniq cut tr xargs powershell pwsh bash sh cmd test [".split()
)
"""Programs that are no command's own work: a banner printed near them is not theirs."""
_TAGGED_RE = lazy_pattern(
    r"^(?:\[(?:ERROR|FATAL|error|fatal)\]|(?:ERROR|error|Error|FATAL|fatal|Fatal)\s*:|"
    r"[A-Z]\w*(?:Error|Exception):)"
)
"""A line its program tagged as an error."""
_SCAN = 20_000
_SHORTEST = 12  # characters of a line that may be a banner


def _own_programs(command: str) -> frozenset[str]:
    return frozenset(p for p in programs(command) if p not in _HELPERS)


def _failed_call(s: Session, err: ErrorFact, calls: dict[str, Call]) -> tuple[Call, str] | None:
    """The failed call of ``err`` and its output, found in the entry of its result."""
    at = err.index if 0 <= err.index < len(s.entries) else -1
    if at < 0 or s.entries[at].index != err.index:
        at = next((k for k, e in enumerate(s.entries) if e.index == err.index), -1)
    for result in s.entries[at].results if at >= 0 else ():
        call = calls.get(result.call_id)
        if call is not None and call.id in s.failed_calls and call_line(call, 300) == err.call:
            return call, result.text
    return None


class _Printed:
    """The lines (as :func:`cut` shows them) the successful calls of each program printed,
    gathered once per program."""

    __slots__ = ("_by_program", "_lines", "_results")

    def __init__(self, s: Session) -> None:
        self._results = {r.call_id: r.text for e in s.entries for r in e.results if r.call_id}
        self._by_program: dict[str, list[str]] = {}
        for c in s.calls:
            if c.id in s.failed_calls or c.id not in self._results or not c.command:
                continue
            for name in _own_programs(c.command):
                self._by_program.setdefault(name, []).append(c.id)
        self._lines: dict[str, frozenset[str]] = {}

    def of(self, names: frozenset[str]) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for name in names:
            if name not in self._lines:
                self._lines[name] = frozenset(
                    cut(line.strip())
                    for cid in self._by_program.get(name, ())
                    for line in clean(self._results[cid][:_SCAN]).splitlines()
                    if len(line.strip()) >= _SHORTEST
                )
            out |= self._lines[name]
        return out


def _excerpt(output: str, command: str, banners: frozenset[str]) -> tuple[str, bool]:
    """The failed output's line to show, banners left out: (line, is it a stand-in)."""
    body = clean(strip_output_header(output[:_SCAN]))
    kept: list[str] = []
    for raw in body.splitlines():
        line = raw.strip()
        if len(line) < 6 or line in command or cut(line) in banners:
            continue
        if _TAGGED_RE.match(line):
            return cut(line), False
        kept.append(line)
    first = first_informative_line("\n".join(kept)) if kept else ""
    return (cut(first), True) if first else ("", True)


def without_banners(printed: _Printed, call: Call, output: str, oc: Outcome) -> Outcome:
    """``oc`` (the failed ``call``'s outcome, its output ``output``) without the error lines a
    successful call of the same program printed too (the module docstring)."""
    own = _own_programs(call.command or "") if oc.lines else frozenset()
    if not own:
        return oc
    banners = printed.of(own)
    if not banners.intersection(oc.lines):
        return oc
    kept = tuple(line for line in oc.lines if line not in banners)
    if kept:
        return replace(oc, lines=kept)
    line, stand_in = _excerpt(output, call.command or "", banners)
    return replace(oc, lines=(line,), stand_in=stand_in) if line else oc


class Banners:
    """:func:`without_banners` for the calls of one session (its printed lines read once)."""

    __slots__ = ("_printed", "_s")

    def __init__(self, s: Session) -> None:
        self._s, self._printed = s, None

    _printed: _Printed | None

    def fix(self, call: Call, output: str, oc: Outcome) -> Outcome:
        if not oc.failed or not oc.lines or not call.command:
            return oc
        if self._printed is None:
            self._printed = _Printed(self._s)
        return without_banners(self._printed, call, output, oc)


def judge_banners(s: Session) -> None:
    """Take out of each shell failure's excerpt the lines a successful call of the same program
    printed too (the module docstring)."""
    todo = [e for e in s.errors if e.signature[0] == "shell" and e.outcome.lines]
    if not todo:
        return
    calls = {c.id: c for c in s.calls}
    banners = Banners(s)
    for err in todo:
        found = _failed_call(s, err, calls)
        if found is not None:
            err.outcome = banners.fix(found[0], found[1], err.outcome)
