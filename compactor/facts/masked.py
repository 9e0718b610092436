"""Failures a pipe hides (blind check 21, cc-pk28): ``pnpm run test … 2>&1 | tail -100`` exits
with ``tail``'s status, 0, and no error flag, while its output says "No tests found, exiting
with code 1"; ``pnpm run --filter x test | tail -50`` printed only "No projects matched the
filters". Such a call did not succeed: its output shows the failure.

:func:`failure_report` tells a line that reports the command's own failure (a runner's exit
announcement, a package manager's ``ERR_PNPM_…``, jest's ``FAIL path``); :func:`masked_lines`
finds them in the result of a command whose exit status a pipe filter replaced. A read of a log
(``tail -50 app.log``) prints what the log holds, not its own failure: it is no such command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from compactor._util import lazy_pattern

from .commands import command_of, is_reading_call
from .text import Call, cut, lowers_exactly

__all__ = ["distinct_runs", "failure_report", "hides_exit", "masked_lines", "reran", "rereads"]

_REPORT_RE = lazy_pattern(
    r"\bexit(?:ing|ed)? with (?:exit )?code [1-9]|\bno tests found\b|\bno projects matched\b"
    r"|\bERR_PNPM_\w+|\bcommand failed with exit code [1-9]|(?-i:^FAIL\s+\S)"
    r"|(?-i:^(?:npm ERR!|ELIFECYCLE)\s)",
    re.IGNORECASE,
)
_FILTER_PIPE_RE = lazy_pattern(
    r"\|\s*(?:tail|head|grep|egrep|sed|awk|tee|less|more|cat|sort|uniq|cut|wc|tr)\b[^|;&]*$"
)
"""The command's last stage is a text filter: the pipeline's status is the filter's."""
_MOST = 2


def failure_report(line: str) -> bool:
    """Whether ``line`` reports that the command itself failed ("No tests found, exiting with
    code 1", "No projects matched the filters", "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL …",
    "FAIL src/a.spec.ts"); an exit announcement with code 0 is not one."""
    return len(line) <= 400 and _may_report(line) and _REPORT_RE.search(line.strip()) is not None


def _may_report(line: str) -> bool:
    """What every match of :data:`_REPORT_RE` holds (any case, when lower-casing is what it
    compares: :func:`~compactor.facts.text.lowers_exactly`): the pattern, tried at every
    character, ran on each line a successful command printed (issue 28 point 7)."""
    if not lowers_exactly(line):
        return True
    low = line.lower()
    return (
        "exit" in low
        or "no tests found" in low
        or "no projects matched" in low
        or "err_pnpm_" in low
        or line.lstrip().startswith(("FAIL", "npm ERR!", "ELIFECYCLE"))
    )


def hides_exit(call: Call | None) -> bool:
    """A command (not a read) whose last pipe stage is a text filter (``| tail -100``)."""
    command = command_of(call) if call is not None else None
    if call is None or command is None or "|" not in command or is_reading_call(call):
        return False
    last = command.strip().splitlines()[-1] if command.strip() else ""
    return _FILTER_PIPE_RE.search(last) is not None


def masked_lines(call: Call | None, text: str) -> list[str]:
    """The first distinct lines of ``text`` that report the command's failure when ``call``'s
    pipe hid its exit status (read on the output's last 20,000 characters); else []."""
    if not text or not hides_exit(call):
        return []
    found: dict[str, None] = {}
    for line in text[-20_000:].splitlines():
        if failure_report(line):
            found.setdefault(cut(line.strip(), 200), None)
            if len(found) >= _MOST:
                break
    return list(found)


_CALL_LINE_RE = lazy_pattern(r"^[\w.\-]+: ")
"""A command's call line starts with its tool's name (``Bash: pnpm lint``)."""


def run_of(command: str) -> str:
    """``command`` without its last stages that only filter the output (``pnpm lint 2>&1 |
    tail -100`` → ``pnpm lint 2>&1``): what ran, whichever part of its output was shown."""
    run = command.strip()
    while (found := _FILTER_PIPE_RE.search(run)) is not None and found.start() > 0:
        run = run[: found.start()].rstrip()
    return run


def rereads(failed_line: str, call: Call) -> bool:
    """Whether ``call`` runs the command of the failed call ``failed_line`` (its call line,
    ``Bash: …``) again only to show another part of its output (``| head -100`` then
    ``| tail -100``, blind check 21 cc-lint): the same failure read again, not an attempt to
    fix it."""
    command = command_of(call)
    if command is None or "|" not in command or not failed_line.startswith(f"{call.name}: "):
        return False
    before = failed_line[len(call.name) + 2 :]
    return before != command.strip() and run_of(before) == run_of(command) != command.strip()


def distinct_runs(lines: list[str]) -> list[str]:
    """Call lines, each run once (the latest line of a command shown twice through different
    output filters stands for both)."""
    latest: dict[str, str] = {}
    for line in lines:
        tool = _CALL_LINE_RE.match(line)
        key = f"{tool.group(0)}{run_of(line[tool.end() :])}" if tool is not None else line
        latest.pop(key, None)
        latest[key] = line
    return list(latest.values())


class _Failed(Protocol):
    @property
    def call(self) -> str: ...


_F = TypeVar("_F", bound=_Failed)


def reran(failed: Sequence[_F], call: Call) -> list[_F]:
    """The failures of ``failed`` that ``call`` may retry: not those it only reads again
    (:func:`rereads`)."""
    command = command_of(call)
    if command is None or "|" not in command:
        return list(failed)
    return [f for f in failed if not rereads(f.call, call)]
