"""A "No such file" a later call made untrue (blind check 25, cx-funke W2).

``sed -n '1,200p' backend/…/lottery_service.py`` failed with "No such file or directory" and
section 4 kept it as "A fact it established", while a later ``apply_patch`` created that file and
section 3 listed it as "created, then edited". :func:`made_later` names the path such a failed
read named that a later call of the session changed (created, wrote or edited) and did not then
delete: the "not there" was true only at the time.
"""

from __future__ import annotations

from .local_records import ErrorFact
from .local_session import Session

__all__ = ["MADE_LATER", "made_later", "not_found_line"]

MADE_LATER = "created later: "
"""How :attr:`ErrorFact.why` of a "not found" starts when a later call made the path."""


def _same(target: str, path: str) -> bool:
    t, p = target.replace("\\", "/").lstrip("./"), path.replace("\\", "/").lstrip("./")
    return t == p or p.endswith("/" + t) or t.endswith("/" + p)


def made_later(s: Session, err: ErrorFact) -> str:
    """:data:`MADE_LATER` and the path the failed read ``err`` named that a later call changed
    and left in place (empty when none did)."""
    targets = [t for t in err.signature[2] if t and not t.startswith(("$ ", "@ ", "pid "))]
    if not targets or not s.files:
        return ""
    for path, state in s.files.items():
        if not state.actions or state.actions[-1] == "deleted":
            continue
        if not any(i > err.index for i in state.changed_at):
            continue
        if any(_same(t, path) for t in targets):
            return MADE_LATER + path
    return ""


def not_found_line(err: ErrorFact, found: str, looked: str) -> str:
    """Section 4's line for a read that found nothing (``found``: its "No such file" words,
    ``looked``: where else it was looked up): a fact it established, or, when a later call
    created the path (``err.why``, :func:`made_later`), one that was true only at the time."""
    if err.why.startswith(MADE_LATER):
        return (
            f"  Not there at the time (not a failure to fix): {found}; a later call "
            f"created `{err.why.removeprefix(MADE_LATER)}`, so it exists now."
        )
    return f"  A fact it established (not a failure to fix): {found}{looked}; the work went on."
