"""What a call's output says when its error lines alone do not settle the verdict (moved out of
:mod:`compactor.facts.outcomes`, which was at its size limit): whether a call not flagged as an
error went on despite error-like lines, and which line to show for a failed call that printed
no error line.

A package manager that installed what it was asked prints, when the environment holds other
packages whose pins now clash, a dependency-conflict report: pip's "ERROR: pip's dependency
resolver does not currently take into account all the packages that are installed…" and its
"X requires Y, but you have Z which is incompatible." lines, after "Successfully installed …"
or "Requirement already satisfied: …", and exits 0 (blind check 20, taxi-cc: the summary said
``pip install`` failed, and a resuming agent believed the package was installed nowhere). Such
a report in a result not flagged as an error is no failure; :func:`install_report` keeps it
as what the result established ("pip reported dependency conflicts: …").
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .absence import expected_absence, says_missing
from .bounded import is_startup_noise
from .killreport import own_kill_report
from .noise import is_decoration, is_warning
from .passedanyway import passed_anyway
from .stops import kill_succeeded
from .text import Call, cut, one_line

__all__ = ["first_informative_line", "install_report", "installed_anyway", "went_on"]

_REPORT_LINE_RE = lazy_pattern(
    r"dependency resolver does not currently take into account"
    r"|\brequires [^\n]+?, but you have [^\n]+ which is incompatible"
    r"|\bERESOLVE overriding peer dependency"
)
"""A line of a package manager's dependency-conflict report (pip's, npm's ERESOLVE)."""
_INSTALLED_RE = lazy_pattern(
    r"^(?:Successfully installed \S|Requirement already satisfied: \S"
    r"|(?:added|changed) \d+ packages?\b|up to date, audited \d+)",
    re.MULTILINE,
)
"""A line that says the package manager installed (or already had) what it was asked."""
_CONFLICT_RE = lazy_pattern(
    r"^\s*(\S[^\n]*?\brequires [^\n]+?, but you have [^\n]+? which is incompatible)\.?\s*$",
    re.MULTILINE,
)
_SATISFIED_RE = lazy_pattern(r"^Requirement already satisfied: (?![^\n]*\(from )[^\n]+$", re.M)
_DONE_RE = lazy_pattern(r"^Successfully installed [^\n]+$", re.MULTILINE)
_OWN_SUCCESS_RE = lazy_pattern(
    r"^(?:Setting up [\w.+:~-]+ \([^)\n]+\) \.\.\.|Successfully installed \S"
    r"|Successfully built \S|(?:added|changed) \d+ packages?\b)",
    re.MULTILINE,
)
"""A package tool's own line that it installed or built what it was asked (dpkg's ``Setting up
gh (2.76.2) ...``, pip's ``Successfully installed x``, ``Successfully built``, npm's ``added 12
packages``)."""
_HARD_FAILURE_RE = lazy_pattern(
    r"^(?:E: |dpkg: error|Errors were encountered|npm ERR!|ERROR: (?!pip's dependency)"
    r"|Traceback|[\w.]*(?:Error|Exception): )|returned an error code|\bSub-process \S+ returned",
    re.MULTILINE,
)
"""A line that says the package tool itself failed (apt's ``E: …``, dpkg's ``Errors were
encountered while processing``, ``npm ERR!``, pip's ``ERROR: Could not …``, an exception):
no success line outweighs it."""
_SEGMENT_RE = lazy_pattern(r"\|\||&&|[|;\n]")
_INSTALLER_RE = lazy_pattern(
    r"^\s*(?:sudo\s+)?(?:[A-Za-z_]\w*=\S*\s+)*(?:sudo\s+)?(?:(?:\S*/)?(?:apt|apt-get|aptitude|dpkg"
    r"|pip3?|uv|npm|pnpm|yarn|brew|pipx)\b|python3?\s+-m\s+pip\b|docker\s+(?:build|compose\s+build)\b"
    r"|cd\b|echo\b|true\b|export\b|$)"
)
"""A step of a command that runs a package tool (``apt install``, ``pip install``, ``npm i``,
``docker build``), or one that does no work of its own (``cd``, ``echo``)."""
_MOST_CONFLICTS = 3
_REPORT_WORDS = ("dependency resolver", "which is incompatible", "ERESOLVE")
"""Words every report line of :data:`_REPORT_LINE_RE` holds one of (as cased there)."""


def _resolver_report_only(lines: list[str], body: str) -> bool:
    """Every error line is part of a dependency-conflict report, and the output says the
    package manager installed (or already had) what it was asked."""
    if not all(_REPORT_LINE_RE.search(line) for line in lines):
        return False
    return _INSTALLED_RE.search(body) is not None


def went_on(call: Call | None, lines: list[str], body: str) -> bool:
    """Whether an unflagged call whose output has the error-like ``lines`` went on: no line, only
    warnings (dpkg-preconfigure's stdin), a kill tool's "killed", a command's own report of
    its kill (``echo "Killed root process N"``, not the shell's SIGKILL report: blind check 27),
    or a package manager's dependency-conflict report after it installed what it was asked
    (module docstring), or lines of a diff or followed by a success line (:mod:`.passedanyway`).
    A line saying a path is missing that the command itself removed or checked for absence
    (``rm -rf X && ls X``: :mod:`.absence`, blind check 51 W3) is none of its error lines."""
    if call is not None and any(says_missing(line) for line in lines):
        lines = [line for line in lines if not expected_absence(call.command, line)]
    return (
        not lines
        or all(is_warning(line) for line in lines)
        or kill_succeeded(call, lines)
        or own_kill_report(call, lines)
        or _resolver_report_only(lines, body)
        or passed_anyway(lines, body)  # a hook's passing tests, a diff's lines (BENCH50 W1-W3)
        or installed_anyway(call, lines, body)  # apt's "Setting up gh (…)" (blind check 68 W8)
    )


def installed_anyway(call: Call | None, lines: list[str], body: str) -> bool:
    """Whether an unflagged install (every step of ``call``'s command a package tool's, or one
    that does no work: ``apt update && apt install gh -y``) printed its tool's own success
    lines (dpkg's ``Setting up X (version) ...``, pip's ``Successfully installed``, npm's
    ``added N packages``) and nothing of the output says the tool itself failed (``E: …``,
    ``dpkg: error``, ``npm ERR!``): the error-like ``lines`` (debconf's "Failed to open terminal
    … giving up!", a postinst's "Failed to stop x.service: Unit … not loaded") are warnings on
    the way (blind check 68 W8: two apt installs that set up every package were "failed")."""
    command = call.command if call is not None else None
    if not command or not all(_INSTALLER_RE.match(step) for step in _SEGMENT_RE.split(command)):
        return False  # another program's error lines are its own (`pip install x && pytest`)
    if _OWN_SUCCESS_RE.search(body) is None:  # (after the command: most are no install)
        return False
    return _HARD_FAILURE_RE.search(body) is None and bool(lines)


def install_report(text: str) -> str | None:
    """What an install that printed a dependency-conflict report established, on one line:
    the requested package already there, what was installed, and the conflicts
    (``pip reported dependency conflicts: a requires b, but you have c which is incompatible;
    …``); None for any other output."""
    if not any(word in text for word in _REPORT_WORDS):  # (plain searches: most outputs)
        return None
    if _REPORT_LINE_RE.search(text) is None or _INSTALLED_RE.search(text) is None:
        return None
    said = [m.group(0) for m in (_SATISFIED_RE.search(text), _DONE_RE.search(text)) if m]
    conflicts = [m.group(1).strip() for m in _CONFLICT_RE.finditer(text)]
    if conflicts:
        who = "pip" if "pip's dependency resolver" in text else "the package manager"
        more = len(conflicts) - _MOST_CONFLICTS
        listed = "; ".join(conflicts[:_MOST_CONFLICTS]) + (f" (+{more} more)" if more > 0 else "")
        said.append(f"{who} reported dependency conflicts: {listed}")
    return cut(one_line(" | ".join(said)), 600) if said else None


_SHELL_ERROR_RE = lazy_pattern(r"^\S+: line \d+: \S")
"""A shell's own error (``x.sh: line 3: SCRIPT_DIR: readonly variable``)."""
_FAILURE_WORDS = ("fail", "error", "\u2717", "\u2718", "denied", "not found", "cannot")
_OUTCOME_RE = lazy_pattern(
    r"(?i)^(?:nothing(?: added)? to \w+|no changes\b|no \w+ (?:to|added to) \w+"
    r"|(?:already|everything) up[ -]to[ -]date\b)"
)
"""A line that states what came of the command (git's "nothing added to commit but untracked
files present", "nothing to commit, working tree clean", "no changes added to commit",
"Everything up-to-date"): it says why the call failed where the status around it does not."""
_STATUS_RE = lazy_pattern(
    r"^(?:On branch \S+|HEAD detached (?:at|from) \S+|Not currently on any branch\.?"
    r"|Your branch (?:is|and) .+|(?:Changes (?:not staged for commit|to be committed)"
    r"|Untracked files|Unmerged paths)\s*:|\(use \"git .+\)|\((?:fix|all) conflicts.+\))$"
)
"""A status header or its hint (``On branch main``, ``Your branch is up to date with …``,
``Untracked files:``, ``(use "git add <file>..." …)``): where the repository stands, never
what went wrong (blind check 72 N2: a failed ``git commit`` was "failed: On branch main")."""


def first_informative_line(body: str) -> str:
    """The line of a failed call's output to show when no line ranks as an error: the first
    that says it failed (``Memory check for pool... ✗ FAILED``, a shell's ``x.sh: line 3: …``),
    else the first that states the outcome (:data:`_OUTCOME_RE`: ``nothing added to commit …``),
    else the first that is not decoration (rules, box drawing; blind check 9: a banner's
    ``═════`` was the failure) nor a status header (:data:`_STATUS_RE`), nor the list such a
    header opens; a warning line only when no other line is left (67 N1), a header last."""
    fallback = warned = header = outcome = ""
    listed = False  # the lines after a status header ending in ":" are its list of paths
    for raw in body.splitlines():
        line = raw.strip()
        if not line or is_decoration(line) or is_startup_noise(line):
            continue
        if _STATUS_RE.match(line):
            header, listed = header or line, line.endswith(":")
            continue
        if listed and raw[:1] == "\t":  # git status lists paths after a tab
            continue
        listed = False
        if is_warning(line):  # git's "LF will be replaced by CRLF": the cause is after (67 N1)
            warned = warned or line
            continue
        low = line.lower()
        if any(word in low for word in _FAILURE_WORDS) or _SHELL_ERROR_RE.search(line):
            return line
        if not outcome and _OUTCOME_RE.match(line):
            outcome = line
        fallback = fallback or line
    return outcome or fallback or warned or header
