"""A dry run fixes nothing; a cause that comes back was not fixed (blind check 58 W7, issue 28).

cc_riskbot_done: ``node scripts/migrate.js --commit 180 182`` failed "ERROR on event 180: Missing
Access"; section 4 said "Fixed: a later Bash: … node --check …; node … succeeded" — the call it
named was a DRY RUN of the same script ("mode: DRY-RUN … [dry-run] would reuse existing
thread"). The real run that did the work came two calls later and was never named; and the
cause, the bot's missing access, came back later as 403s.

:func:`judge_dry_fixes` reads each failure section 4 calls ``fixed``. When the call that fixed it
was a dry run (a ``--dry-run`` flag, or output saying "DRY-RUN" / "dry run" / "[dry-run]" /
lines that begin "would …") and the failed call was not one itself, the fix is the first later
real run of the same command (a retry: :func:`.local_retries.retries`) that succeeded and was
no dry run: section 4 names that one; without one the failure is :data:`DRY_ONLY`, still open.
And when a later failure's error line holds the failure's permission cause at a service
("Missing Access", "403", "Forbidden", "access denied", "Unauthorized") after the fix, the failure
is not fixed: section 4 says a later call failed too, for the same cause — unless that later
failure was itself fixed, or a run of either command succeeded after it: the cause did not stay
(blind check 78 W3, sh_steam: a query of one connection fixed by naming regions in the config, a
query of another connection failing with the same 403 and fixed the same way, and the first
read "Not fixed: a later … failed too (the same cause came back: 403)").
"""

from __future__ import annotations

import bisect
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import Call, Result, cut

from .local_again import DRY_ONLY
from .local_records import ErrorFact
from .local_retries import retries, signature
from .local_session import Session
from .local_text import call_line

__all__ = ["dry_run", "judge_dry_fixes"]

_DRY_FLAG_RE = lazy_pattern(r"(?:^|\s)--dry[-_]?run\b|(?:^|\s)--simulate\b")
_DRY_SAID_RE = lazy_pattern(
    r"(?im:(?<!not a )(?<!non-)(?<!no )\bdry[-_ ]run\b|^\s*(?:\[[\w -]+\]\s*)?"
    r"would (?:create|delete|remove|write|update|post|reuse|send|migrate|apply|push|change|"
    r"move|rename|add|insert|drop|upload|lock|copy)\b)"
)
"""A dry run's own words: "mode: DRY-RUN", "[dry-run] would reuse …", "Would delete 3 files"."""
_DRY_WORD_RE = lazy_pattern(r"(?i:(?<!not a )(?<!non-)(?<!no )\bdry[-_ ]run\b)")
_WOULD_LINE_RE = lazy_pattern(
    r"(?im:^\s*(?:\[[\w -]+\]\s*)?would (?:create|delete|remove|write|update|post|reuse|send|"
    r"migrate|apply|push|change|move|rename|add|insert|drop|upload|lock|copy)\b)"
)
"""The two halves of :data:`_DRY_SAID_RE`, for :func:`_says_dry` (its ``would`` half tried only
at the start of a line that holds ``would ``, not at every character of the output)."""
_CAUSE_RE = lazy_pattern(
    r"(?i:missing access|missing permissions?|\b403\b|forbidden|access denied|"
    r"unauthori[sz]ed|\b401\b)"
)
"""An error line's cause that is the account's or the bot's permission at a service, not the
command's: it stays until someone grants it. (A sandbox's "Operation not permitted" or a file's
"permission denied" is the call's own: an escalated re-run gets past it, and a later call's
refusal is another matter — the shared soul-grant rollout.)"""
_SCAN = 20_000
_FIXED = ("fixed", "fixed by editing")


def dry_run(call: Call, result: Result | None) -> bool:
    """Whether ``call`` was a dry run: its command has a ``--dry-run`` flag, or its output says
    it was one (module docstring)."""
    if call.command and "--" in call.command and _DRY_FLAG_RE.search(call.command):
        return True
    if result is None:
        return False
    return _says_dry(result.text[:_SCAN].lower())


def _says_dry(head: str) -> bool:
    """``_DRY_SAID_RE.search(head) is not None`` for a lower-cased ``head``, by its halves: the
    ``dry run`` half searched from the first ``dry`` on, the ``would …`` half matched at the
    start of each line holding ``would `` (a match that starts on blank lines before the line
    of its ``would`` has a match from that line's start too). The whole pattern, tried at every
    character of 20 KB, took 2 % of the agent shape's run (a fifth of its outputs hold a
    "would"); ``test_speed_dryfix``
    checks with hypothesis that both give the same answer."""
    at = head.find("dry")
    if at >= 0 and _DRY_WORD_RE.search(head, at) is not None:
        return True
    at = head.find("would ")
    while at >= 0:
        if _WOULD_LINE_RE.match(head, head.rfind("\n", 0, at) + 1) is not None:
            return True
        at = head.find("would ", at + 6)
    return False


def judge_dry_fixes(s: Session) -> None:
    """Name the real run as the fix of each failure a dry run "fixed", or leave it open; and
    reopen a fixed failure whose permission cause came back (module docstring)."""
    fixed = [e for e in s.errors if e.after == "fixed" and e.by]
    if not fixed:
        return
    results = {r.call_id: r for e in s.entries for r in e.results if r.call_id}
    lines: dict[str, list[Call]] = {}  # the calls of each line, made once (not per failure)
    for c in s.calls:
        if c.id not in s.failed_calls:
            lines.setdefault(call_line(c, 160), []).append(c)
    for err in fixed:
        same = lines.get(err.by, [])  # in call order: the first after the failure (bisect)
        at = bisect.bisect_right(same, err.index, key=attrgetter("index"))
        by = same[at] if at < len(same) else None
        if by is None:
            continue
        if dry_run(by, results.get(by.id)) and not (
            (mine := _failed_call(s, err)) and dry_run(mine, None)
        ):  # (its own call looked up only then: a scan of the calls)
            real = next(
                (c for c in s.calls
                 if c.index > by.index and c.id in s.answered and c.id not in s.failed_calls
                 and retries(err.signature, signature(c)) and not dry_run(c, results.get(c.id))),
                None,
            )  # fmt: skip
            if real is None:
                said = (
                    _DRY_SAID_RE.search(results[by.id].text[:_SCAN]) if by.id in results else None
                )
                err.after, err.why = (
                    DRY_ONLY,
                    cut(said.group(0).strip(), 80) if said else "--dry-run",
                )
                continue
            err.by, by = call_line(real, 160), real
        _cause_back(s, err, by.index)


def _cause_back(s: Session, err: ErrorFact, since: int) -> None:
    """Reopen ``err`` when a failure after ``since`` names its permission cause again."""
    cause = next((m.group(0) for x in err.outcome.lines if (m := _CAUSE_RE.search(x))), "")
    if not cause:
        return
    low = cause.lower()
    again = next(
        (e for e in s.errors
         if e.index > since and e is not err and any(low in x.lower() for x in e.outcome.lines)),
        None,
    )  # fmt: skip
    if again is not None and not _passed(s, err, again):
        err.after, err.by = "failed again", again.call[:160]
        err.why = f"the same cause came back: {cut(cause, 60)}"


def _passed(s: Session, err: ErrorFact, again: ErrorFact) -> bool:
    """Whether the cause ``again`` failed with did not stay: ``again`` was fixed, or a later run
    of its command or of ``err``'s succeeded."""
    if again.after in _FIXED:
        return True
    return any(
        c.index > again.index and c.id in s.answered and c.id not in s.failed_calls
        and (retries(err.signature, sig := signature(c)) or retries(again.signature, sig))
        for c in s.calls
    )  # fmt: skip


def _failed_call(s: Session, err: ErrorFact) -> Call | None:
    """The failed call ``err`` records (the latest failed call up to it with its command)."""
    found = None
    for call in s.calls:
        if call.index > err.index:
            break
        if call.id in s.failed_calls and call.command and call.command[:40] in err.call:
            found = call
    return found
