"""Failures that are not for a resuming agent to fix (issue 28): set aside, refused, meant to
fail, a probe that found nothing, worked around (:func:`judge_skipped`, moved here from
:mod:`.local_state`, which had reached the module size limit)."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import one_line, sentences
from compactor.rejections import is_rejection

from .local_absentok import settled_absence
from .local_again import BLOCKED
from .local_elsewhere import found_elsewhere
from .local_foundlater import found_later
from .local_gotpast import missing_program
from .local_harnessblock import judge_harness_blocks
from .local_madelater import deletes_missing, made_later, without_program
from .local_session import Session
from .local_setaside import around_words, chosen_fix, next_typed, set_aside_words

__all__ = ["NOT_FOUND_RE", "REJECTED", "judge_skipped"]

_SKIPS_RE = lazy_pattern(
    r"\b(?:skip(?:s|ped|ping)?\b|not needed|no longer needed|(?:is|are)n['’]t needed|"
    r"unnecessary|not necessary|not required|(?:continue|proceed|go on|carry on|move on|"
    r"moving on) without|ignore (?:it|that|this)\b|safe to ignore|"
    r"does(?:n['’]t| not) (?:matter|affect|block)|harmless|not a blocker)",
    re.IGNORECASE,
)
_AROUND_RE = lazy_pattern(
    r"\b(?:instead(?! of)|fall(?:ing)? back|work(?:ing)? around|workaround|another way|recreat\w*|"
    r"(?:got|have) enough|moving on|move on|switch(?:ing|ed)? to|fallback|equivalent|"
    r"alternative)\b",
    re.IGNORECASE,
)
"""What the assistant says when it does without a failed call (another way, or not at all)."""
_WORD_RE = lazy_pattern(r"[a-z]{4,}")
REJECTED = "The user rejected this call"  # how compactor.facts.outcome says so
_REFUSED = "the user refused to let this call run"
NOT_FOUND_RE = lazy_pattern(
    r"no such file|does not exist|doesn['’]t exist|cannot find|can['’]t find|not found|"
    r"no matches found|could not find|cannot access|not recognized as|"
    r"not a (?:git |\w+ )?repository",  # zsh's glob "no matches found" (blind check 57 W4)
    re.IGNORECASE,
)
_MEANT_TO_FAIL_RE = lazy_pattern(
    r"\bmutat(?:e|ions?)\b|\b(?:prove|confirm|check|show|verify|make sure)\w* (?:that )?"
    r"(?:\w+ ){0,3}(?:can |will |would |should |does |do )?(?:fail|go(?:es)? red|turn red)|"
    r"\b(?:expect\w*|meant|supposed|should|must) (?:\w+ ){0,2}(?:to )?fail\b|"
    r"\b(?:goes|go|turns?) red\b",
    re.IGNORECASE,
)
"""Words that say a run is meant to fail (mutation testing, "confirm the suite goes red")."""


def judge_skipped(s: Session) -> None:
    """Failures that are not for a resuming agent to fix (issue 28): one that the assistant's
    next words or the user's next message set aside ("skip it", "not needed", "continue without
    it"), or that the user refused to let run, is ``skipped`` (the words that say so are kept);
    one the assistant next says it does another way or without ("instead", "recreating it in …",
    "I've got enough") and calls followed is ``worked around``; a read or listing that found nothing
    ("No such file", "does not exist") after which the work went on is ``not found``: a finding
    (the path is not there), not a failure. Neither is listed as an unresolved failure."""
    judge_harness_blocks(s)  # a call the harness refused never ran (blind check 51, W5)
    last = max((c.index for c in s.calls), default=-1)  # (once, not a scan per failure)
    for err in s.errors:
        if err.after == BLOCKED:
            continue
        refused = next((x for x in err.outcome.lines if x.startswith(REJECTED)), "")
        if refused and err.after != "meant to fail":  # the user's decision, not a failure
            why = refused.removeprefix(REJECTED).lstrip(": ")
            err.after, err.by = ("rejected", why) if why else ("skipped", _REFUSED)
            continue
        if err.after not in ("", "failed again"):
            continue
        before = [e.text for e in s.entries[max(0, err.index - 8) : err.index] if e.text.strip()
                  and e.role == "assistant"][-1:]  # fmt: skip
        meant = [x for x in sentences(" ".join(before)) if _MEANT_TO_FAIL_RE.search(x)]
        if meant or _MEANT_TO_FAIL_RE.search(err.call):
            err.after, err.by = "meant to fail", one_line(meant[0] if meant else err.call)
            continue
        typed = next_typed(s, err)  # the user's own words, not a template's (blind check 31 W7)
        if chosen_fix(s, err, typed):  # the user chose to fix it; an edit did (blind check 32)
            continue
        told = set_aside_words(s, err, typed, _SKIPS_RE)  # not a description of code (W2)
        told = told or [x for x in (settled_absence(err),) if x]  # "no such folder: n/a" (47 W6)
        said = " ".join(err.outcome.lines)
        if any(is_rejection(x) for x in err.outcome.lines):  # one owner (compactor.rejections)
            told.insert(0, _REFUSED)
        if told and (made := made_later(s, err)):  # created later: moot (blind check 60 W1)
            base = made.rsplit("/", 1)[-1].lower()  # set aside only by words naming that file
            told = [x for x in told if base in x.lower()]
        if told:
            err.after, err.by = "skipped", one_line(told[0])
            continue
        went_on = last > err.index  # a call came after it
        looked = err.reading or err.probe or deletes_missing(err)  # (blind check 18, 33)
        if looked and went_on and (NOT_FOUND_RE.search(said) or not err.outcome.lines):
            if missing_program(err):  # no file fixes a missing program (blind check 28 W7)
                err.after, err.by = without_program(s, err)
            elif not found_elsewhere(s, err):  # not in the wrong folder (blind check 20)
                err.after, err.by = "not found", ""  # a probe that established a fact
                err.why = made_later(s, err) or err.why  # a later call made it (set 25)
                err.why = err.why or found_later(s, err)  # found elsewhere later (BENCH42 W5)
            continue
        around = around_words(err, typed, _AROUND_RE)  # no heading (blind check 31 W7)
        if around and went_on:
            words = set(_WORD_RE.findall(err.call.lower()))
            best = max(around, key=lambda x: len(words & set(_WORD_RE.findall(x.lower()))))
            err.after, err.by = "worked around", one_line(best)
