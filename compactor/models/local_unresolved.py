"""Section 7's failures of the current request that nothing fixed (blind checks 11 and 21).

Each run is named once (:func:`compactor.facts.masked.distinct_runs`: ``pnpm lint | head -100``
then ``| tail -100`` is one run read twice). A check (a linter, a type checker, a test runner)
that failed before the agent changed any file for the request reported the state the request
is about, not a failure of the agent's (cc-lint: "fix the lint errors" began with ``pnpm lint``,
which listed them): it is named as what is still to fix, to run again when done.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import cut
from compactor.facts.masked import distinct_runs
from compactor.facts.testruns import is_test_run

from .local_records import ErrorFact
from .local_session import Session
from .local_text import code

__all__ = ["unresolved_items"]

_CHECK_RE = lazy_pattern(
    r"(?:^|[\s:/])(?:lint|eslint|biome|tsc|typecheck|type-check|mypy|pyright|ruff|flake8|pylint|"
    r"clippy|vet)(?=$|[\s:;&|])"
)
"""A word that makes a command a check (``pnpm lint``, ``npx tsc --noEmit``); a test run
(``npm test``) is one too (:func:`compactor.facts.testruns.is_test_run`)."""

_CALL_NAME_RE = lazy_pattern(r"^[\w.\-]+: ")  # a call line's ``Bash: `` before its command


def unresolved_items(s: Session, errors: Sequence[ErrorFact], width: int) -> list[str]:
    """One line per failed run of ``errors`` (the current request's, not fixed), each once."""
    last = s.last_request
    since = last.index if last is not None else -1
    first = min((i for f in s.files.values() for i in f.changed_at if i > since), default=None)
    before = {e.call for e in errors if (first is None or e.index < first) and _is_check(e.call)}
    out: list[str] = []
    for line in distinct_runs([e.call for e in errors]):
        shown = code(cut(line, width))
        if line in before:
            out.append(
                f"Still to fix, as this check reported before any change (run it again when "
                f"done): {shown}"
            )
        else:
            out.append(f"Unresolved failure: {shown}")
    return out


def _is_check(line: str) -> bool:
    first = line.split(" | ", 1)[0].split("|", 1)[0]
    return _CHECK_RE.search(first) is not None or is_test_run(_CALL_NAME_RE.sub("", first, 1))
