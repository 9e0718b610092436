"""What the calls after an earlier summary did to the items it lists as pending or running
(blind check 27, N1: Claude Code's own compaction listed "the 4 running experiments (PID
2119063) … need to be killed" and "Tests have NOT been re-run"; the live history killed that pid
and re-ran the tests, yet the summary quoted both as pending, "some may be done since").

:func:`done_since` reads the quoted section for the pids it names and for a note that tests are
still to run; a later shell call that kills such a pid (``kill -9 2119063``) or runs a test
command says which of them are done, with the call. Judged by shape: any pid, any test runner."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import command_of, cut, one_line

from .local_session import Session

__all__ = ["done_since"]

_PID_RE = lazy_pattern(r"\b(?:PID|pid)s?\b[\s:=#(]{0,3}(\d{3,8})\b")
_TESTS_DUE_RE = lazy_pattern(
    r"\btests?\b[^.\n]{0,60}?\b(?:not|never|yet to|need(?:s|ed)? to|must|should|to be)\b"
    r"[^.\n]{0,30}?\b(?:re-?run|run|executed|re-?executed)\b|\bre-?run\b[^.\n]{0,30}?\btests?\b",
    re.IGNORECASE,
)
"""An earlier summary's note that tests are still to run ("Tests have NOT been re-run")."""
_TEST_RUN_RE = lazy_pattern(
    r"\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b|"
    r"\b(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|\b(?:cargo|go|dotnet|mix|deno)\s+test\b|"
    r"\bmake\s+(?:test|check)\b|\bpython[\d.]*\s+(?:-\S+\s+)*\S*test\S*\.py\b",
    re.IGNORECASE,
)
_KILL_RE = lazy_pattern(r"\b(?:kill|pkill)\b")


def _start(session: Session) -> int:
    """The entry index of the latest earlier summary (-1 when not found)."""
    latest = session.prior[-1]
    return next((e.index for e in reversed(session.entries) if e.text == latest), -1)


def done_since(session: Session, quoted: str) -> str:
    """``Of those, done since …`` for the pids ``quoted`` names that a later call killed and
    for its tests-to-run note when a later call ran tests; '' when none (or no earlier
    summary)."""
    if not session.prior or not quoted:
        return ""
    pids = list(dict.fromkeys(_PID_RE.findall(quoted)))
    due = _TESTS_DUE_RE.search(quoted) is not None
    if not pids and not due:
        return ""
    start = _start(session)
    killed: dict[str, str] = {}
    tests = ""
    for call in session.calls:
        command = command_of(call) if call.index > start else None
        if not command:
            continue
        line = one_line(command)
        if _KILL_RE.search(command):
            for pid in pids:
                if pid not in killed and re.search(rf"(?<![\w.\-]){pid}(?![\w.])", command):
                    killed[pid] = cut(line, 100)
        if due and _TEST_RUN_RE.search(command) is not None:
            how = "failed" if call.id in session.failed_calls else "ran"
            tests = f"tests re-run since: `{cut(line, 100)}` ({how})"
    done = [f"pid {pid} killed since: `{how}`" for pid, how in killed.items()]
    if tests:
        done.append(tests)
    if not done:
        return ""
    return (
        "Of those, done by the calls after the earlier summary (not pending any more): "
        + "; ".join(done)
    )
