"""A command whose failure a trailing ``; echo …$?`` or ``|| true`` hid (blind check 34 N4,
cx-arnaud: ``go test … -v; echo EXIT:$?`` printed ``FAIL`` and ``EXIT:1``, exited 0 because
of the ``echo``, and was cited as the fix of the failure before it).

:func:`hidden_failure` reads such a call's output: a non-zero exit marker it printed
(``EXIT:1``, ``exit code: 2``, ``rc=1``) together with an error line, or (for ``|| true``) a
test runner's FAIL summary, is the call's failure."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .testruns import is_test_run

__all__ = ["echoed_exit", "hidden_failure"]

_WINDOW = 4_000
"""How much of the output's end is read for an ``echo …$?`` marker (it ends the output)."""
_SUMMARY_WINDOW = 24_000
"""How much of the output's end is read for a failure summary: Playwright prints "54 failed",
then the name of every failed test, then "50 passed", so the summary can be far from the end
(blind check 36 W1: 6 KB before it, behind ANSI cursor codes)."""
_MARKER_RE = lazy_pattern(
    r"^[ \t]*(?:exit(?:[ _-]?(?:code|status))?|status|rc|code)[ \t]*[:=]?[ \t]*(-?\d+)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A line an ``echo …$?`` printed: ``EXIT:1``, ``exit code: 1``, ``Exit status 2``, ``rc=1``."""
_FAIL_SUMMARY_RE = lazy_pattern(
    r"^(?:FAIL\b.*|FAILED\b.*|--- FAIL: .*|.*\b[1-9]\d* failed\b.*|.*\berror TS\d+: .*|"
    r".*\b[1-9]\d* errors?\b.*)$",
    re.MULTILINE,
)
"""A test runner's or checker's summary of a failed run: Go's ``FAIL``/``--- FAIL:``, pytest's
``FAILED`` and ``N failed``, Jest's ``Tests: N failed``, tsc's ``error TS2339: …``, eslint's
``✖ 3 problems (3 errors, 0 warnings)``, mypy's ``Found 2 errors`` (blind check 35 W4)."""


def _masks_exit(command: str) -> bool:
    """Whether the command's exit status is another's: ``; echo …$?`` or ``|| true`` at the
    end of a part of it, or a test run piped into ``tail``/``head``/``tee`` (:func:`_piped_run`)."""
    if "$?" in command:
        return True
    return ("||" in command and _OR_RE.search(command) is not None) or _piped_run(command)


_PAGER_RE = lazy_pattern(r"(?<![|])\|(?!\|)[ \t]*(?:tail|head|tee|less|more|cat)\b")
"""A pipe into a program that passes lines on and exits 0 whatever the command before it did."""


def _piped_run(command: str) -> bool:
    """Whether a test run pipes its output into ``tail``/``head``/``tee`` (blind check 36 W1,
    cc-familiar: ``npm run test:e2e 2>&1 | tail -80`` printed "54 failed" and exited 0, the
    exit status of ``tail``)."""
    if "|" not in command:
        return False
    found = _PAGER_RE.search(command)
    return found is not None and is_test_run(command[: found.start()])


_OR_RE = lazy_pattern(r"\|\|[ \t]*(?:true\b|echo\b|:(?:[ \t;)]|$))")
"""``|| true``, ``|| :`` or ``|| echo "no errors"``: the command exits 0 whatever failed."""


def hidden_failure(command: str | None, output: str) -> str:
    """For a call that exited 0: the line that says it failed when its command hides its exit
    status (:func:`_masks_exit`) and its output says so; "" otherwise."""
    if not command:
        return ""
    if not _masks_exit(command):
        return _piped_error(command, output) if "|" in command else ""
    from .noise import strip_ansi

    tail = output[-_WINDOW:]
    summaries = _FAIL_SUMMARY_RE.findall(strip_ansi(output[-_SUMMARY_WINDOW:]))
    markers = [int(m) for m in _MARKER_RE.findall(tail)]
    if "$?" in command and markers:
        if markers[-1] == 0:
            return ""  # the last marker says the command passed
        if summaries:
            return f"{summaries[0].strip()} (exit status {markers[-1]}, printed by the echo)"
        from .outcomes import last_error_lines

        errors = last_error_lines(tail, 1)
        return f"{errors[0]} (exit status {markers[-1]})" if errors else ""
    if not summaries:
        return _piped_error(command, output) if "|" in command else ""
    found = _OR_RE.search(command)
    if found is None:
        return f"{summaries[0].strip()} (the exit status is that of the pipe's last program)"
    by = "|| echo" if found is not None and found.group().endswith("echo") else "|| true"
    return f"{summaries[0].strip()} (the exit status hidden by {by})"


_ECHO_STATUS_RE = lazy_pattern(
    r"\b(?:echo|printf)\b[ \t]+(?:-[neE]+[ \t]+)?[\"']?([^\"'\n;&|$]*)\$\?"
)
"""An ``echo``/``printf`` of the last exit status and the text before it: ``echo "Exit code:
$?"`` → ``Exit code: ``, ``echo exit=$?`` → ``exit=``."""
_STATUS_LINE_RE = lazy_pattern(
    r"^[ \t]*(?:Process exited with code|Command exited with code|exited with code|Exit code:?|"
    r"exit status:?|<exit_code>)[ \t]*-?\d+",
    re.IGNORECASE | re.MULTILINE,
)
"""A line that reads as an exit status (the forms ``outcomes.exit_code`` reads)."""


def echoed_exit(command: str | None, output: str, header_end: int = 0) -> bool:
    """Whether every exit-status line of ``output`` after the harness's header (``header_end``)
    is one the command's own ``echo …$?`` printed (blind check 79 W2: ``git diff --staged
    --quiet; echo "Exit code: $?"`` printed ``Exit code: 1``, the call returned normally): that
    line is output, not the call's status."""
    if not command or "$?" not in command:
        return False
    prefixes = {found.strip() for found in _ECHO_STATUS_RE.findall(command)}
    lines = [m.group().strip() for m in _STATUS_LINE_RE.finditer(output, header_end)]
    return bool(prefixes and lines) and all(
        any(_printed_by(line, prefix) for prefix in prefixes) for line in lines
    )


def _printed_by(line: str, prefix: str) -> bool:
    """``Exit code: 1`` is what ``echo "Exit code: $?"`` printed (its text, then a number)."""
    return (
        line[: len(prefix)].lower() == prefix.lower()
        and line[len(prefix) :].strip(" \t").lstrip("-").isdigit()
    )


_FILTER_RE = lazy_pattern(r"(?<![|])\|(?!\|)[ \t]*(?:tail|head|grep|egrep)\b([^|;&\n]*)$")
"""The command's last part: a pipe into ``head``/``tail``/``grep`` (their exit status, not the
command's, is the call's)."""
_ERROR_END_RE = lazy_pattern(
    r"^[ \t]*(?:\[(?:ERROR|FATAL)\]|(?:Error|ERROR|error|fatal|FATAL):)[ \t]*\S"
)
"""An error line a command printed about itself: ``[ERROR] …``, ``Error: …``, ``fatal: …``."""


def _piped_error(command: str, output: str) -> str:
    """The error line that ends the output of a command whose exit status is that of a
    ``| head``/``| tail``/``| grep`` after it (blind check 61 W2: ``tool export … | head -5``
    printed "[ERROR] Export error: …" and exited 0); "" when the command before the pipe only
    reads (a log's old errors), when ``grep`` looks for errors, or when the output ends
    otherwise."""
    found = _FILTER_RE.search(command.rstrip())
    if found is None or re.search(r"err|fail|fatal|warn", found.group(1), re.IGNORECASE):
        return ""
    from .commands import is_reading_program, programs

    part = re.split(r"&&|\|\||;|\n", command[: found.start()])[-1]
    if any(is_reading_program(name) for name in programs(part)):
        return ""
    lines = [line.strip() for line in output[-_WINDOW:].splitlines() if line.strip()]
    if not lines or _ERROR_END_RE.match(lines[-1]) is None:
        return ""
    return f"{lines[-1][:200]} (the pipe hid its exit status)"
