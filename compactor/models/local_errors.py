"""Section 4 of the embedded summary (Errors and fixes, :mod:`compactor.models.local`): each
failed call, or a run of the same failure, with what was said and done after it."""

from __future__ import annotations

from compactor.facts import STOPPED, cut

from .local_again import EXPECTED_ANSWER, failed_word
from .local_configfix import via_line
from .local_dialogue import resolved
from .local_errlines import each_error, no_errors_items, read_error_items
from .local_hooks import hook_failure_items
from .local_limits import Limits
from .local_lostturns import lost_turn_items
from .local_prior import prior_excerpt, stale_prior
from .local_rejected import REFUSED_ITEM, is_refused, redone_after, refused_after
from .local_session import ErrorFact, Session
from .local_state import after_line
from .local_statusquote import status_quote
from .local_text import bullets, code

__all__ = ["errors_section"]


def _error_item(s: Session, group: list[ErrorFact], lim: Limits, said: str = "") -> list[str]:
    """One failed call, or a run of failures of the same call (each error named, in order)."""
    err = group[-1]
    status = f" (exit code {err.outcome.exit_code})" if err.outcome.exit_code else ""
    times = f" {len(group)} times" if len(group) > 1 else ""
    lines = err.outcome.lines[:2]
    what = ": " + " | ".join(cut(x, lim.item) for x in lines) if lines else ""
    what = each_error([e.outcome.lines for e in group], lim.item) or what  # (29 W3)
    failed = "was stopped" if err.after == "interrupted" and not err.by else failed_word(err)
    if is_refused(err):  # the user's decision, not a failure (blind check 26)
        failed, what = REFUSED_ITEM, ""
    items = [f"{code(cut(err.call, lim.item))} {failed}{times}{status}{what}"]
    after = redone_after(s, err, lim.item) or refused_after(err, lim.item)  # (blind check 68 W7)
    items.append(after or via_line(after_line(err, lim.item), err, lim.item))
    if err.next_text and err.next_text != said:
        said_next = status_quote(err.next_text, lim.item)  # its failing lines kept (69 W1)
        items.append(f"  Next the assistant said: {said_next}")
    return items


def _ended(err: ErrorFact) -> tuple[bool, int | None]:
    """Stopped or refused by the user, and the exit code: one item only for failures alike."""
    lines, code = err.outcome.lines, err.outcome.exit_code
    return bool(lines) and lines[0].startswith((STOPPED, "The user rejected")), code


def errors_section(s: Session, lim: Limits) -> str:
    """Section 4, Errors and fixes: the failed calls (a run of the same failure once; the
    unfixed ones first when they are too many), after the error lines of calls that did not."""
    groups: list[list[ErrorFact]] = []
    for err in s.errors:
        if groups and groups[-1][-1].call == err.call and _ended(groups[-1][-1]) == _ended(err):
            groups[-1].append(err)
        else:
            groups.append([err])
    items: list[str] = []
    cap = max(2, lim.items)
    if len(groups) > cap:
        # the failures still open first, then the latest ones
        ranked = sorted(range(len(groups)), key=lambda i: (resolved(groups[i][-1].after), -i))
        keep = sorted(ranked[:cap])
        answers = sum(err.after == EXPECTED_ANSWER for err in s.errors)  # (blind check 77 W3)
        counted = f"{len(s.errors) - answers} failed tool calls" + (
            f" and {answers} error answers the assistant meant to get" if answers else ""
        )
        items.append(
            f"{counted}; {cap} of {len(groups)} kinds shown "
            "(the unfixed ones first, then the latest):"
        )
        groups = [groups[i] for i in keep]
    said = ""
    for group in groups:
        items.extend(_error_item(s, group, lim, said))
        said = group[-1].next_text
    prior = prior_excerpt(s, 4, lim.prior)
    if prior:
        items.append(f"{stale_prior(s)}: {prior}")
    items[0:0] = read_error_items(s, lim.item) if s.errors else no_errors_items(s, lim.item)
    items.extend(hook_failure_items(s, lim.item))  # (blind check 63 N4)
    items.extend(lost_turn_items(s, lim.item))  # an API error ended a turn (blind check 72 N4)
    return bullets(items)
