"""A failed test run whose error a later run of the same runner no longer showed (BENCH42 W3).

cc-acq: ``php artisan test tests/Unit/RelationsTest.php --verbose`` failed ("Unknown option
"--verbose""); the same test run without the option failed on a unique-constraint violation;
after a fix, a run of six test files failed, every failure in another test class. Section 4 said
of both earlier failures "Not fixed: a later … failed too", and a resuming agent would redo the
relationships fix.

:func:`judge_test_reruns` settles an open failed test run (no verdict, or "failed again") as
``did not recur`` when the first later failed run of the same runner (:func:`runner`: the
command's words up to its first path or option, ``php artisan test``, ``pytest``, ``npm run
test``), with any files or options, shows none of its error lines: its test-count summaries
(``Tests: 1 failed, 12 passed``) aside, no error line of the first run (numbers aside) stands in
the later run's output. A failure with no such line to compare, or a later run that the user
stopped or rejected, settles nothing.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import STOPPED, cut
from compactor.facts.samecommand import core_command
from compactor.facts.testruns import is_test_run

from .local_records import ErrorFact
from .local_session import Session
from .local_text import code, quote

__all__ = ["DID_NOT_RECUR", "did_not_recur_line", "judge_test_reruns"]

DID_NOT_RECUR = "did not recur"
"""The ``after`` of a failed test run whose error a later failed run of its runner did not show."""
_OPEN = ("", "failed again")
_ENDED = (STOPPED, "The user rejected")
_COUNT_RE = lazy_pattern(
    r"\b\d+ (?:failed|passed|errors?|failures?|skipped|tests?)\b", re.IGNORECASE
)
_DIGITS_RE = lazy_pattern(r"\d+")
_ERROR_CHARS = 200


def runner(command: str) -> str:
    """The words of a test command up to its first path, file or option (``php artisan test``,
    ``pytest``, ``npm run test``); '' for a command that runs no tests or chains several."""
    core = core_command(command)
    if not core or not is_test_run(command) or any(j in core for j in ("&&", "||", ";", "|")):
        return ""
    words: list[str] = []
    for word in core.split()[:4]:
        if word.startswith("-") or "/" in word or "\\" in word or "." in word or "=" in word:
            break
        words.append(word)
    return " ".join(words)


def _plain(line: str) -> str:
    return " ".join(_DIGITS_RE.sub("#", line.casefold()).split())


def _command(err: ErrorFact) -> str:
    return next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")


def _text(s: Session, index: int) -> str:
    """The output of the results the entry at ``index`` holds (the later run's, and any result
    beside it: a line found there counts as shown again)."""
    entry = next((e for e in s.entries if e.index == index), None)
    return "\n".join(r.text[-40_000:] for r in entry.results) if entry is not None else ""


def judge_test_reruns(s: Session) -> None:
    """Settle as :data:`DID_NOT_RECUR` each open failed test run whose error the first later
    failed run of the same runner did not show (module description)."""
    runs = [(e, r) for e in s.errors if e.signature[0] == "shell" and (r := runner(_command(e)))]
    if len(runs) < 2:
        return
    for n, (err, name) in enumerate(runs):
        if err.after not in _OPEN or not err.outcome.lines:  # (a stand-in line: compared too)
            continue
        if err.outcome.lines[0].startswith(_ENDED):
            continue
        mine = [_plain(x) for x in err.outcome.lines if not _COUNT_RE.search(x)]
        later = next((e for e, r in runs[n + 1 :] if r == name), None)
        if not mine or later is None or not later.outcome.lines:
            continue
        if later.outcome.lines[0].startswith(_ENDED):
            continue
        shown = [_text(s, later.index), *later.outcome.lines]
        seen = "\n".join(_plain(x) for x in shown)
        if any(line in seen for line in mine):
            continue
        err.after, err.by = DID_NOT_RECUR, cut(later.call, 160)
        err.why = cut(later.outcome.lines[0], _ERROR_CHARS)


def did_not_recur_line(err: ErrorFact, width: int) -> str:
    """Section 4's line for a failed test run whose error a later run did not show."""
    return (
        f"  That error did not recur: the later {code(err.by)} failed for other reasons "
        f"({quote(err.why, width)}), listed on its own."
    )
