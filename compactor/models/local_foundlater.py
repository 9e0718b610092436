"""A "No such file" of a relative path that a later call found under another folder (BENCH42 W5).

cx-bridge: ``grep -n "<h1" src/pages/ServiceDetail/ServiceDetailPage.tsx`` ran in the repository
root and failed with "No such file or directory"; the file was at ``frontend/src/pages/…`` and
the next call grepped it there. Section 4 kept the failure as "A fact it established", telling a
resuming agent the page does not exist.

:func:`found_later` names the longer path a later call that succeeded (a read, listing, search
or edit; any tool) named, ending with the relative path the failed call did not find (two
folders or more of it: a bare file name could be another file): the path was not found from the
working folder at the time, which is no fact about the file.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .local_records import ErrorFact
from .local_session import Session

__all__ = ["FOUND_LATER", "found_later"]

FOUND_LATER = "found later at: "
"""How :attr:`ErrorFact.why` of a "not found" starts when a later call found the file elsewhere."""
_ABSOLUTE_RE = lazy_pattern(r"\A(?:[/~\\]|[A-Za-z]:)")
_PATH_CHARS = r"[\w.~@+\-]"


def _relative_targets(err: ErrorFact) -> list[str]:
    """The relative paths (a folder and a file at least) the failed call named."""
    found = []
    for target in sorted(err.signature[2]):  # (a set: one order each run)
        if not target or target.startswith(("$ ", "@ ", "pid ")) or _ABSOLUTE_RE.match(target):
            continue
        plain = target.replace("\\", "/").removeprefix("./")
        if "/" in plain.strip("/") and plain not in found:
            found.append(plain)
    return found


def found_later(s: Session, err: ErrorFact) -> str:
    """:data:`FOUND_LATER` and the longer path a later successful call named that ends with a
    relative path the failed call ``err`` did not find; '' when none did."""
    said = " ".join(err.outcome.lines)
    targets = [t for t in _relative_targets(err) if t in said.replace("\\", "/")]
    if not targets:
        return ""
    done = {r.call_id for e in s.entries for r in e.results if r.call_id}
    pattern = re.compile(
        rf"((?:{_PATH_CHARS}+/)*{_PATH_CHARS}+/)(?:{'|'.join(map(re.escape, targets))})(?![\w/.-])"
    )
    for call in s.calls:
        if call.index <= err.index or call.id in s.failed_calls or call.id not in done:
            continue
        args = call.arguments.replace("\\\\", "/")
        if not any(t in args for t in targets):
            continue  # (most calls: no regular expression run)
        found = pattern.search(args)
        if found is not None:
            return FOUND_LATER + found.group(0)
    return ""
