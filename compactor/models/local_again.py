"""A failure's fix found through the retries that failed too (BENCH45 W4, issue 28).

cx-collect (Codex, PowerShell): a ``python -`` script failed (UnicodeDecodeError), a corrected
variant failed next (JSONDecodeError), and the variant after that, trying ``utf-8-sig`` first,
exited 0 and printed the summary. Section 4 said of the first "Not fixed: a later … failed too"
and section 7 listed it as an "Unresolved failure": the search for its fix stopped at the first
later attempt, which failed. :class:`FailedAgain` keeps, for each failure, the earlier failures it
retried; when a later call fixes it, :meth:`FailedAgain.fixed` settles those too (and theirs),
whatever failed in between. A failure no later tied call got past stays "Not fixed".
"""

from __future__ import annotations

from .local_records import ErrorFact

__all__ = [
    "BLOCKED",
    "CONFIRMED_GONE",
    "EXPECTED_ANSWER",
    "ON_PURPOSE",
    "OPEN",
    "FailedAgain",
    "failed_word",
    "still_open",
]


class FailedAgain:
    """The earlier failures each failure retried (``failed again`` by it)."""

    __slots__ = ("_retried",)

    def __init__(self) -> None:
        self._retried: dict[int, list[ErrorFact]] = {}

    def link(self, earlier: ErrorFact, later: ErrorFact) -> None:
        """``later`` (a failure) retried ``earlier``, which it left failed too."""
        self._retried.setdefault(id(later), []).append(earlier)

    def fixed(self, err: ErrorFact, by: str) -> None:
        """``err`` was fixed by the call ``by``: so was every failure it retried that is still
        open as "failed again", and every one those retried."""
        todo, seen = [err], {id(err)}
        while todo:
            for old in self._retried.get(id(todo.pop()), ()):
                if id(old) in seen or old.after != "failed again":
                    continue
                seen.add(id(old))
                old.after, old.by, old.why = "fixed", by, ""
                todo.append(old)


DRY_ONLY = "dry run only"
"""The verdict of a failure whose only later success of the same command was a dry run: it fixed
nothing, the failure is open (:mod:`.local_dryfix`, blind check 58 W7)."""

OPEN = ("", "failed again", DRY_ONLY)
"""The verdicts of a failure nothing resolved: no later call got past it (``after`` empty: at
most a neutral "Next call after it") or every later attempt failed too."""


def still_open(err: ErrorFact) -> bool:
    """Whether nothing resolved the failure ``err``: the one test section 4's "Not fixed" /
    "Next call after it" and section 7's "Unresolved failure" share (BENCH45 W5)."""
    return err.after in OPEN


BLOCKED = "blocked by the harness"
"""The verdict of a call the harness refused to run (``<tool_use_error>Blocked: … use Monitor``):
it never ran, so there is nothing to fix (:mod:`.local_harnessblock`, blind check 51 W5)."""


CONFIRMED_GONE = "confirmed gone"
"""The verdict of a check (``ls X`` exits 2) that a path an earlier call removed is gone: it
confirmed the removal, no failure (:mod:`.local_gonecheck`, fix57a)."""


ON_PURPOSE = "stopped on purpose"
"""The verdict of a script that refused by design and said so ("Refusing to …", "Dry run:
nothing written", exit 2 with its usage): its words are the step's outcome, no crash to fix
(:attr:`compactor.facts.Outcome.on_purpose`, fix57a 4)."""


EXPECTED_ANSWER = "expected answer"
"""The verdict of an HTTP probe not flagged as failed whose 4xx status or error-shaped body the
assistant's next words accepted ("404 is normal", "as expected"): the probe's answer, no failure
(:mod:`.local_expectedanswer`, blind check 62 W1, W4)."""


def failed_word(err: ErrorFact) -> str:
    """How section 4 says the call ``err`` ended: "failed", that the harness refused it, or that
    it exited non-zero as a check that a removed path is gone (:data:`CONFIRMED_GONE`)."""
    if err.after == ON_PURPOSE:
        return ON_PURPOSE
    if err.after == EXPECTED_ANSWER:
        return "answered"
    if err.after == CONFIRMED_GONE:
        return "exited non-zero as a check of a removed path"
    return f"was {BLOCKED} (it never ran)" if err.after == BLOCKED else "failed"
