"""Tool outcomes: error lines, exit codes, failed or not (see :mod:`compactor.facts`; the
commands and programs a call runs: :mod:`compactor.facts.commands`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from compactor._util import lazy_pattern

from .absence import confirms_removal
from .advice import unadvised as unadvised  # (re-exported: moved there)
from .apierror import api_error
from .bounded import is_startup_noise
from .caughterror import caught_failure
from .commands import exit_one_program, is_reading_call, no_match_program
from .deliberate import deliberate_stop, may_stop
from .hintfind import found_lines
from .killreport import ERROR_WORDS
from .maskedexit import echoed_exit, hidden_failure
from .missingmods import with_missing_modules
from .noise import is_warning
from .probes import answered_exit
from .reads import answers_itself, is_subagent, only_reads
from .stops import rejection, user_stopped
from .text import Call, Result, clean, cut, lowers_exactly
from .toolerror import (
    TOOL_ERROR_RE,
    own_error_report,
    own_failure,
    sandbox_denied,
    tool_error,
    write_failed,
)
from .wenton import first_informative_line as first_informative_line  # (moved there)
from .wenton import went_on

SCAN_HEAD = 12_000
SCAN_TAIL = 40_000
"""A tool output longer than ``SCAN_HEAD + SCAN_TAIL`` characters is scanned for error lines on
its first ``SCAN_HEAD`` and last ``SCAN_TAIL`` characters (test summaries and exception messages
sit at the end, exit-code headers at the start)."""

_EXCEPTION_RE = re.compile(
    # Python / JS / Java exceptions: the line that names the exception (last line of a
    # traceback), also after pytest's "E   " prefix
    r"^(?:E\s+)?(?:Uncaught |Caused by: |Unhandled exception: )?"
    r"(?:[A-Za-z_][\w$]*\.)*(?:[A-Z][\w$]*)?(?:Error|Exception)(?::\s*\S.*)?$"
)
_PREFIX = r"(?:[^\s:]+(?: \d+)?:\s?){0,3}"
"""Up to three ``program:`` / ``file:12:`` / ``line 1:`` prefixes before the message."""
_DIAGNOSTIC_RE = re.compile(
    rf"^(?:E\s+)?{_PREFIX}(?:"
    # error: x / error[E0308]: x / error TS2322: x / fatal: x / panic: x / npm ERR! x
    r"(?i:fatal error|error|fatal|panic|err!)(?:\[[\w\-]*\])?(?: [A-Z]+\d+)?\s*[:!]\s*\S.*"
    # log levels in capitals: ERROR x, FATAL x, CRITICAL x
    r"|(?:ERROR|FATAL|PANIC|CRITICAL)\b.*"
    # Failed to x / FAILED tests/x.py::t / Failed with result 'exit-code'
    r"|(?i:failed|failure)(?:\b.*)?"
    r")$"
)
_NOT_FOUND_RE = lazy_pattern(
    r"(?i:command not found|no such file or directory|permission denied|operation not permitted"
    r"|access is denied|is not recognized as (?:the name of a cmdlet|an internal or external)"
    r"|cannot find (?:the )?(?:path|file|module)|module not found|timed out|segmentation fault"
    r"|out of memory|killed)"
)
_COUNT_FIELD_RE = lazy_pattern(
    r"(?i:failed|failures?)(?:(?:[ \t]+[\w()/-]+){1,3}[ \t]*[:=][ \t]*\d[\d,.]*"
    r"|[ \t]*[:=]?[ \t]*0+(?:[.,]0+)?(?!\w|[.,]\d))[ \t]*%?"
    r"(?:[ \t]*[|,;][^\n]*)?$"
)
"""A count in output data (``failed txs: 2``, ``Failed requests: 0``), or a count of zero beside
the failure word (a test script's summary ``Failed: 0``, ``failures: 0 | Total: 7``; blind check
77 W2: a 7/7 suite was called failed): no failure of the call."""
_LEVEL_FIELD_RE = lazy_pattern(
    r"[A-Za-z][\w -]{0,30}:\s*\**(?:ERROR|FATAL|PANIC|CRITICAL)\**(?:\s*\([^)]{0,20}\))?$"
)
"""A field whose value is a level word alone (``Priority: CRITICAL``, ``Severity: ERROR``): a
label in a report or plan, not a failure of the call (blind check 9)."""
_PANIC_RE = lazy_pattern(r"^thread '.*' panicked at .+$|^npm ERR! .+$")
_TAGGED_LEVEL_RE = lazy_pattern(
    # a log line whose level tag follows a timestamp or a ``[source]`` tag:
    # ``[CONVEX x(y)] [ERROR] '…'``, ``2025-01-02 10:00:00 ERROR: x``
    r"^(?:\S+[ \t]+){1,4}?(?:\[(?:ERROR|FATAL|PANIC|CRITICAL)\]|(?:ERROR|FATAL|CRITICAL):)[ \t]*\S"
)
"""Error lines tagged by level after a prefix (blind check 14: a seed script that exited 0
printed twenty ``[CONVEX …] [ERROR] …`` lines)."""
_FAILED_COUNT_RE = re.compile(r"(?i:\b[1-9]\d* (?:failed|failing|errors?)\b)")
# Lines that are code or listings, never error reports.
_NOT_ERROR_RE = re.compile(
    r"^(?:\d+\s*[:→|\t]|[→│|>#]|//|/\*|\*|raise\b|throw\b|except\b|catch\b|class\b|def\b|"
    r"import\b|from\b|assert\b|return\b|export\b|const\b|let\b|var\b|if\b|elif\b|else\b|"
    r"case\b|func\b|fn\b|pub\b|type\b|interface\b|[\"'`]|[-*+] |\w+\s*=[^=])"
)
_LOCATION_RE = re.compile(r"^[\w./\\\-]+[:\-]\d+(?:[:\-]\d+)?[:\-]\s*")
"""A ``file:line:`` prefix (grep, rg, compilers): the rest of the line decides."""
_ERROR_HINTS = (*ERROR_WORDS, "err!", "o such file", "not recognized", "annot find", "illed")
"""Every line an error pattern accepts contains one of these once lower-cased (a cheap test
before the regexes; ``test_facts`` checks with hypothesis that it changes no result)."""


def _one_of(words: tuple[str, ...]) -> str:
    """A pattern for any of ``words``, grouped by first character (``r(?:ror|itical)|…``): the
    regex engine then tries one branch per character instead of one per word."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in groups.items())


_FREQUENT = " etsronailuchmfdpygwbvkxzjq"
"""Characters of tool outputs, the most frequent first (others are rarer)."""


def _anchored(words: tuple[str, ...]) -> str:
    """A pattern that finds each of ``words`` (lower-case) at its rarest character (the part
    before it looked behind for): the regex engine tries a match only where one of those
    characters stands, not at every ``e``, ``t`` or ``r`` (a tool output's hints are found in
    85 % of the time). Each match lies inside a word that the plain alternation finds, and
    every such word holds one, so both find the same lines (``test_speed_agent`` checks it)."""
    groups: dict[str, list[str]] = {}
    for word in words:
        at = max(range(len(word)), key=lambda i: (_rarity(word[i]), -i))
        before = f"(?<={re.escape(word[: at + 1])})" if at else ""
        groups.setdefault(word[at], []).append(before + re.escape(word[at + 1 :]))
    return "|".join(f"{re.escape(c)}(?:{'|'.join(rests)})" for c, rests in groups.items())


def _rarity(char: str) -> int:
    at = _FREQUENT.find(char)
    return len(_FREQUENT) if at < 0 else at


_HINT_RE = re.compile(_anchored(_ERROR_HINTS))
_FIND_FROM = 1_536  # characters from which hinted lines are found by str.find passes
_HINT_ANY_CASE_RE = re.compile(_one_of(_ERROR_HINTS), re.IGNORECASE)


def _hint_search(text: str) -> tuple[str, Callable[[str, int], re.Match[str] | None]]:
    """(the text to search, the search) for the hints, any case. Lower-casing first and
    matching case-sensitively is about five times faster; it is exact unless the text holds a
    character that case-folds to an ASCII letter (:func:`~compactor.facts.lowers_exactly`)."""
    if lowers_exactly(text):
        return text.lower(), _HINT_RE.search
    return text, _HINT_ANY_CASE_RE.search


def _has_hint(text: str) -> bool:
    hay, search = _hint_search(text)
    return search(hay, 0) is not None


def _hinted_lines(text: str) -> Iterator[tuple[int, str]]:
    """(position, line) of each line of ``text`` (``\\n`` and ``\\r`` end lines) that holds a
    hint, in order, each once. One regex pass: after a hint, the search goes on from the end of
    its line, and every look for a line's ends stays within that line (linear in the text); a
    long text, lower-cased exactly, by a ``str.find`` pass per hint (:mod:`.hintfind`)."""
    if len(text) >= _FIND_FROM and lowers_exactly(text):
        yield from found_lines(text, text.lower(), _ERROR_HINTS)
        return
    hay, search = _hint_search(text)
    breaks = "\r" in text
    pos = 0
    while (match := search(hay, pos)) is not None:
        at = match.start()
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        start = text.rfind("\n", pos, at) + 1
        if breaks:
            start = max(start, text.rfind("\r", pos, at) + 1)
            cr = text.find("\r", at, end)
            end = end if cr < 0 else cr
        yield start, text[start:end]
        pos = end


# What each pattern needs in a line, lower-cased (when lower-casing is exactly what the
# patterns' case-insensitive parts compare: lowers_exactly). A line without it cannot match the
# pattern, so the pattern is not run: most hinted lines (a log's ``ERROR`` level, a test's
# name) are dismissed by a few substring tests instead of six regexes. ``test_facts`` checks
# with hypothesis that the ranks are those of running every pattern.


def _may_be_not_found(low: str) -> bool:
    return (
        "not found" in low
        or "not permitted" in low
        or "not recognized" in low
        or "no such file" in low
        or "denied" in low
        or "cannot find" in low
        or "timed out" in low
        or "segmentation" in low
        or "out of memory" in low
        or "killed" in low
    )


def _may_be_diagnostic(low: str) -> bool:
    return "err" in low or "fail" in low or "fatal" in low or "panic" in low or "critical" in low


def _may_be_tagged(body: str) -> bool:
    """A level tag in brackets or before a colon (``[ERROR]``, ``FATAL:``): not the bare word
    (a log's ``… ERROR   [module:12] …`` lines, a third of the bench's agent logs)."""
    return (
        "ERROR]" in body
        or "ERROR:" in body
        or "FATAL]" in body
        or "FATAL:" in body
        or "CRITICAL]" in body
        or "CRITICAL:" in body
        or "PANIC]" in body
    )


def _may_be_failed_count(low: str) -> bool:
    """A digit right before `` fail…`` or `` error…`` (``3 failed``, ``1 error``)."""
    for word in (" fail", " error"):
        at = low.find(word)
        while at > 0:
            if low[at - 1].isdigit():
                return True
            at = low.find(word, at + 1)
    return False


def _rank_patterns(line: str) -> int:
    """:func:`_error_rank` without the hint prefilter: the patterns in rank order (each one
    skipped when the line lacks what it needs)."""
    located = _LOCATION_RE.match(line) if line[:1] not in " \t" else None
    body = line[located.end() :] if located is not None else line  # anchored: sub's match
    if not body or _NOT_ERROR_RE.match(body):
        return 0
    if not lowers_exactly(body):  # no shortcut: lower-casing is not what the patterns compare
        return _rank_all_patterns(line, body)
    low = body.lower()
    if ("Error" in body or "Exception" in body) and _EXCEPTION_RE.match(body):
        return 3
    if ("panicked at " in body or body.startswith("npm ERR! ")) and _PANIC_RE.match(body):
        return 3
    if len(line) <= 400 and _may_be_not_found(low) and _NOT_FOUND_RE.search(body):
        return 3
    if _may_be_diagnostic(low) and _DIAGNOSTIC_RE.match(body):
        return 0 if _COUNT_FIELD_RE.match(body) or _LEVEL_FIELD_RE.match(body) else 2
    if _may_be_failed_count(low) and _FAILED_COUNT_RE.search(body):
        return 1
    if _may_be_tagged(body) and _TAGGED_LEVEL_RE.match(body):
        return 2
    return 0


def _rank_all_patterns(line: str, body: str) -> int:
    """The rank from running every pattern on ``body`` (``line`` without its location)."""
    if _EXCEPTION_RE.match(body) or _PANIC_RE.match(body):
        return 3
    if len(line) <= 400 and _NOT_FOUND_RE.search(body):
        return 3
    if _DIAGNOSTIC_RE.match(body):
        return 0 if _COUNT_FIELD_RE.match(body) or _LEVEL_FIELD_RE.match(body) else 2
    if _FAILED_COUNT_RE.search(body):
        return 1
    if _TAGGED_LEVEL_RE.match(body):
        return 2
    return 0


def _error_rank(line: str) -> int:
    """How informative ``line`` is as an error report: 0 = not one, 3 = the most."""
    if len(line) < 4 or not _has_hint(line):
        return 0
    return _rank_patterns(line)


def error_lines(text: str) -> Iterator[tuple[int, str]]:
    """(position, line) of the lines of ``text`` that report an error (code lines excluded)."""
    for pos, raw in _hinted_lines(text):
        line = raw.strip()
        if len(line) >= 6 and _rank_patterns(line):
            yield pos, cut(line)


def last_error_lines(text: str, count: int) -> list[str]:
    """The last ``count`` distinct error lines of ``text`` (cut as :func:`error_lines` cuts
    them), oldest first; a line that comes back counts where it was seen last. ``text`` is read
    from its end a chunk at a time (each twice the one after it), so a long log whose latest
    lines hold its errors is not read whole."""
    found: list[str] = []
    for _, chunk in _chunks_from_end(text, 1_024, steady=8):
        # error_lines(chunk) from its end: a line is ranked only until enough are found (each
        # log of the bench's agent file, a third of whose lines say ERROR, was ranked whole)
        for _, raw in reversed(list(_hinted_lines(chunk))):
            line = raw.strip()
            if len(line) < 6 or not _rank_patterns(line):
                continue
            line = cut(line)
            if line not in found:
                found.append(line)
                if len(found) == count:
                    return found[::-1]
    return found[::-1]


def _chunks_from_end(text: str, size: int = 8_192, steady: int = 1) -> Iterator[tuple[int, str]]:
    """(offset, piece) of ``text`` from its end: pieces that start at a line's start, ``size``
    characters (the first ``steady`` pieces), then each twice the size of the one before (a
    text read whole is read once more at most). Small first pieces: a piece is read whole, and
    the bench's agent logs hold their last three errors in ~4 KB (doubling read 8 KB)."""
    end = len(text)
    breaks = "\r" in text
    while end > 0:
        start = max(0, end - size)
        if start > 0:
            before = text.rfind("\n", 0, start)
            if breaks:
                before = max(before, text.rfind("\r", 0, start))
            start = before + 1
        yield start, text[start:end]
        end = start
        steady -= 1
        size = size * 2 if steady <= 0 else size


_EXIT_RE = re.compile(
    r"^\s*(?:Process exited with code|Command exited with code|exited with code|Exit code:?|"
    r"exit status:?|<exit_code>)\s*(-?\d+)",
    re.IGNORECASE | re.MULTILINE,
)
_HEADER_RE = re.compile(
    # Codex exec_command / shell_command output headers; Codex Desktop first repeats the command
    # (``Command: /bin/zsh -lc …``, over several lines when the command has them)
    r"\A(?:Command: [\s\S]{0,100000}?\n(?=Chunk ID|Wall time|Process ))?"
    r"(?:(?:Chunk ID|Wall time|Process exited with code|Process running with session ID|"
    r"Original token count|Total output lines|Exit code)\b[^\n]*\n)+Output:\n?"
    # Claude Code Bash errors
    r"|\AExit code -?\d+(?:\n|\Z)",
    re.IGNORECASE,
)


def exit_code(text: str) -> int | None:
    """The exit code a tool output reports (``Exit code 1``, ``Process exited with code 0``,
    ``<exit_code>2</exit_code>``…), looked for at its start and its end; None when it has none."""
    head = text[:600]
    if text.startswith("Command: "):  # Codex Desktop's header repeats the command first
        header = _HEADER_RE.match(text)
        head = text[: header.end()] if header is not None else head
    match = _EXIT_RE.search(head) if _may_say_exit(head) else None
    if match is None and len(text) > 600 and _may_say_exit(text[len(text) - 300 :]):
        match = _EXIT_RE.search(text, len(text) - 300)
    return int(match.group(1)) if match else None


def _echoed_code(text: str, call: Call | None) -> bool:
    """Whether the exit code of ``text`` is one the call's own ``echo …$?`` printed, not the
    harness's header (Claude Code's ``Exit code 1``, Codex's ``Exit code: 1 … Output:``)."""
    if call is None or not call.command or "$?" not in call.command:
        return False
    header = _HEADER_RE.match(text)
    end = header.end() if header is not None else 0
    return not _EXIT_RE.search(text, 0, end) and echoed_exit(call.command, text, end)


def _may_say_exit(text: str) -> bool:
    """Every form :data:`_EXIT_RE` knows says "exit" (any case): most outputs do not."""
    return not lowers_exactly(text) or "exit" in text.lower()


def strip_output_header(text: str) -> str:
    """A tool output without the agent's exit-code / timing header (the command's own output)."""
    match = _HEADER_RE.match(text)
    return text[match.end() :] if match else text


# --------------------------------------------------------------------------------------------------
# Tool outcomes

_tool_error, _TOOL_ERROR_RE = tool_error, TOOL_ERROR_RE  # (for a property test: moved there)


def _retrieved_no_match(text: str, call: Call | None, lines: list[str]) -> bool:
    """A poll of a background job (``TaskOutput``) that says it retrieved the job's end
    (``<retrieval_status>success``) and reports exit 1 of a job whose command's exit 1 is an
    answer (a ``grep`` with no match): the poll did not fail and neither did the search; its
    only error line is the job's ``<status>failed</status>``."""
    if call is None or not call.job or "<retrieval_status>success" not in text[:200]:
        return False
    if not all(line.startswith("<status>") for line in lines):
        return False
    return bool(no_match_program(call.job))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one tool result says about its call: failed or not, exit code, error lines."""

    failed: bool
    exit_code: int | None = None
    lines: tuple[str, ...] = ()
    """The error lines, most informative first (at most :data:`_MAX_OUTCOME_LINES`)."""
    stand_in: bool = False  # lines[0] is the first output line: no error line (blind check 27)
    on_purpose: bool = False  # lines[0] says the script stopped on purpose (fix57a 4)


_MAX_OUTCOME_LINES = 4


def scan_window(text: str) -> str:
    """``text``, or its first :data:`SCAN_HEAD` and last :data:`SCAN_TAIL` characters."""
    if len(text) <= SCAN_HEAD + SCAN_TAIL:
        return text
    return text[:SCAN_HEAD] + "\n" + text[len(text) - SCAN_TAIL :]


_ERROR_LEVELS = ("error", "fatal", "[error", "[fatal")
"""A line of these levels is no warning, even when its text quotes one (a log's JSON)."""
_LEVEL_START_RE = re.compile(r"(?:\[(?:ERROR|FATAL)\]|(?:ERROR|fatal):)[ \t]*[A-Za-z]")
"""``[ERROR] …``, ``fatal: …``: an error line, not a "not found" banner of every call (61 W3)."""


def _ranked_lines(text: str) -> list[str]:
    """Error lines of ``text``: highest rank first; within a rank the last one first (the last
    line of a traceback names the exception); warning lines after all the others."""
    found: list[tuple[bool, int, int, str]] = []
    top: set[str] = set()
    for offset, chunk in _chunks_from_end(scan_window(text)):
        for pos, raw in _hinted_lines(chunk):
            line = raw.strip()
            if len(line) < 6:
                continue
            rank = _rank_known(line) if len(line) <= 400 else _rank_patterns(line)
            rank = rank or 2 * (_LEVEL_START_RE.match(line) is not None)  # (61 W3)
            if rank:
                warned = is_warning(line) and not line.lower().startswith(_ERROR_LEVELS)  # 67 N1
                found.append((warned, -rank, -(offset + pos), cut(line)))
                if rank == 3 and not warned:
                    top.add(found[-1][3])
        if len(top) >= _MAX_OUTCOME_LINES:
            break  # the latest lines of the highest rank come first: earlier ones cannot
    found.sort()
    return list(dict.fromkeys(line for *_, line in found))[:_MAX_OUTCOME_LINES]


_rank_known = functools.lru_cache(maxsize=4096)(_rank_patterns)
""":func:`_rank_patterns` of a line seen before: test runs repeat their lines (bench: 1/6 new)."""


def outcome(result: Result, call: Call | None = None) -> Outcome:
    """Did the call of ``result`` fail, and which lines say why?

    Failed: the ``is_error`` flag, a non-zero exit code (exit code 1 of ``grep``/``rg``/``diff``
    means "no match" and is not a failure unless an error line says otherwise), or a tool error
    marker (``<tool_use_error>``). Otherwise, unless the output reports exit code 0 or the call
    only reads or searches files, an error line in the output (``XxxError: …``, ``error: …``,
    ``FAILED …``, ``…: command not found``, ``3 failed``) also counts. Exit 124 of a command run
    under its own ``timeout N`` (for a poll: the command its job runs) is that time-box
    ending it; a login shell's start-up error line is never the call's error.
    """
    text = result.text
    stopped = user_stopped(text)
    if stopped:  # never a success, never a failure to fix: the user stopped it (blind check 11)
        return Outcome(True, exit_code(text), (stopped,))
    code = exit_code(text) if call is None or call.ended != "exit code 0" else exit_code(text) or 0
    if code and not result.is_error and _echoed_code(text, call):
        code = None  # `…; echo "Exit code: $?"` printed it: output, not its status (79 W2)
    marked = tool_error(text) or own_failure(text, call.name if call else result.name)
    marked = marked or (call is not None and own_error_report(text, call.command))  # (70 W2)
    marked = marked or (call is not None and write_failed(text, call.args, call.command))  # 80 W1
    if marked and (denied := sandbox_denied(text)):  # Codex 0.98's bare denial (BENCH41 W1)
        code, text = (denied.exit_code if code is None else code), denied.output
    if code is None and result.is_error and text.strip() == "Error" and exit_one_program(call):
        code, text = 1, ""  # Claude Code 1.0's bare "Error": a non-zero exit, no output (42 W4)
    flagged = result.is_error or (code is not None and code != 0)
    if not marked and (stop := _stopped_on_purpose(text, code, call)):  # (fix57a 4)
        return Outcome(True, code, (stop,), on_purpose=True)  # "Refusing to …": no crash
    if not (flagged or marked) and call and (failed := api_error(call.command, text)):
        return Outcome(True, code, (failed,))  # curl exited 0 on an API error (blind check 28)
    masked = call and (code == 0 or (code is None and not flagged))  # Claude Code: no code
    hidden = hidden_failure(call.command, text) if call and masked else ""
    if hidden:  # `; echo EXIT:$?` printed 1 (blind check 34); `| head` hid an error (61 W2)
        return Outcome(True, code, (hidden,))
    if code == 0 and not (flagged or marked):  # a catch block's error (BENCH41 W2)
        caught = caught_failure(call, code, strip_output_header(text))
        if caught and not (is_reading_call(call) or only_reads(call) or is_subagent(call)):
            return Outcome(True, code, (caught,))
    quiet = code == 0 or is_reading_call(call) or only_reads(call) or is_subagent(call)
    quiet = quiet or answers_itself(call, text)  # help text, a retrieved report (45 W2, W8)
    if not (flagged or marked) and quiet:  # (a sub-agent's report: its result, blind check 31)
        return Outcome(False, code)  # nothing to scan: a success, or file content
    body = clean(scan_window(strip_output_header(text))) if text else ""  # (BENCH46 W1)
    lines = with_missing_modules(_ranked_lines(body), body)  # every one (blind check 67 N2)
    if lines and any(": line " in line for line in lines):
        lines = [line for line in lines if not is_startup_noise(line)]
    job = (call.job or call.command) if call is not None and code in (None, 1, 124, 128) else None
    if flagged and job and answered_exit(code, lines, body, job):  # timeout N, probe, ssh -T
        flagged, lines = False, (lines if code == 124 else [])
    program = exit_one_program(call) if flagged and code == 1 and not lines else ""
    if program and (not result.is_error or not body.strip()):  # a flag that only says "Exit
        flagged = False  # code 1": pkill matched none (check 27), grep no match (BENCH42 W4)
    if flagged and code == 1 and not result.is_error and _retrieved_no_match(text, call, lines):
        flagged, lines = False, []  # TaskOutput got a finished grep's exit 1 (blind check 17)
    if flagged and code in (None, 1, 2) and call and confirms_removal(call.command, lines):
        flagged, lines = False, []  # `rm -rf X && ls X` exits 2: its own check, X is gone (57a)
    if flagged or marked:
        refused = rejection(text)
        if refused:
            return Outcome(True, code, (refused,))
        lines.sort(key=is_warning)  # a warning line last: the error says more
        if not lines:  # its first line stands in for the error (npm's prefix: not an error)
            first = first_informative_line(body)
            return Outcome(True, code, (cut(first),) if first else (), bool(first))
        return Outcome(True, code, tuple(lines))
    if went_on(call, lines, body):  # a warning (dpkg-preconfigure's stdin), pip's conflicts
        caught = caught_failure(call, code, body) if not lines else ""  # (BENCH41 W2)
        return Outcome(True, code, (caught,)) if caught else Outcome(False, code)
    return Outcome(True, code, tuple(lines))


def _stopped_on_purpose(text: str, code: int | None, call: Call | None) -> str:
    """The line of a command's output that says it stopped on purpose ("Refusing to …", "Dry
    run: nothing written", exit 2 with a usage message: :mod:`.deliberate`); '' for a read."""
    if call is None or code not in (None, 0, 1, 2) or not text or not call.command:
        return ""
    if is_reading_call(call) or only_reads(call) or is_subagent(call):
        return ""  # judged first: cheaper than the scan, half the calls on the agent shape
    tail = text[max(_STOP_HEAD, len(text) - _STOP_HEAD) :]  # (a gap between them: a line break)
    ends = text[:_STOP_HEAD] + ("\n" if len(text) > 2 * _STOP_HEAD else "") + tail
    if not may_stop(ends, code):
        return ""
    return deliberate_stop(strip_output_header(ends), code)  # the harness header off


_STOP_HEAD = 2_000
"""The characters of an output's start and end :func:`_stopped_on_purpose` hands over."""
