"""What the calls after an earlier summary did to the items it lists as pending or running
(blind check 27, N1: Claude Code's own compaction listed "the 4 running experiments (PID
2119063) … need to be killed" and "Tests have NOT been re-run"; the live history killed that pid
and re-ran the tests, yet the summary quoted both as pending, "some may be done since").

:func:`done_since` reads the quoted section for the pids it names and for a note that tests are
still to run; a later shell call that kills such a pid (``kill -9 2119063``) or runs a test
command says which of them are done, with the call. Judged by shape: any pid, any test runner.

Blind check 28 (W2): Claude Code's own compaction listed "Task #1: Redesign dashboard UI … (In
Progress) … still need to update remaining components (organization-switcher,
notification-center)"; after it both components were edited and ``TaskUpdate {"taskId": "1",
"status": "completed"}`` closed the task, yet the item was quoted as pending. The agent's own task
list marking an item the section names completed (``TaskUpdate`` by its id or subject, a
``TodoWrite`` / ``update_plan`` item of the same text) and edits of the files it names (by path,
file name, or a distinctive stem such as ``organization-switcher``) are said too."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, cut, one_line
from compactor.facts.testruns import is_test_run

from .local_keydone import item_head, keyed_items
from .local_priorclosed import closed_items
from .local_session import PLAN_TOOLS, Session

__all__ = ["done_since"]

_PID_RE = lazy_pattern(r"\b(?:PID|pid)s?\b[\s:=#(]{0,3}(\d{3,8})\b")
_TESTS_DUE_RE = lazy_pattern(
    r"\btests?\b[^.\n]{0,60}?\b(?:not|never|yet to|need(?:s|ed)? to|must|should|to be)\b"
    r"[^.\n]{0,30}?\b(?:re-?run|run|executed|re-?executed)\b|\bre-?run\b[^.\n]{0,30}?\btests?\b",
    re.IGNORECASE,
)
"""An earlier summary's note that tests are still to run ("Tests have NOT been re-run")."""
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
    start = _start(session)
    completed = _completed_since(session, quoted, start)
    keyed = keyed_items(session, quoted, start, " ".join(completed))  # (BENCH41 W6)
    heads = {item_head(k) for k in keyed + completed}  # an edit's or todo's credit wins (43 W5)
    closed = completed + [c for c in closed_items(session, quoted) if item_head(c) not in heads]
    closed += keyed  # (blind 33 W6: closed_items)
    edited = _edited_since(session, quoted, start)
    if not pids and not due and not closed and not edited:
        return ""
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
        if due and is_test_run(command):
            how = "failed" if call.id in session.failed_calls else "ran"
            tests = f"tests re-run since: `{cut(line, 100)}` ({how})"
    done = [f"pid {pid} killed since: `{how}`" for pid, how in killed.items()]
    if tests:
        done.append(tests)
    done.extend(closed)
    worked = (
        "The files it names were edited after it (check them before redoing that work): "
        + ", ".join(edited[:_FILES])
        if edited
        else ""
    )
    if not done:
        return worked
    said = "Of those, done by the calls after the earlier summary (not pending any more): "
    return said + "; ".join(done) + (f". {worked}" if worked else "")


_FILES = 8  # edited files named in the line
_TASK_REF_RE = r"(?<![\w#])(?:task\s*)?#\s*{key}(?!\w)|\btask\s+{key}\b"
_DONE = frozenset({"completed", "complete", "done"})
_DISTINCT_STEM_RE = lazy_pattern(r"\w[-_]\w|[a-z][A-Z]")
"""A file stem distinctive enough to name the file alone (``organization-switcher``,
``authProvider``); ``index`` or ``page`` name nothing."""


def _completed_since(session: Session, quoted: str, start: int) -> list[str]:
    """``task #1 "…" marked completed since`` for each item of the agent's task list the quoted
    section names that a plan-tool call after the earlier summary marked completed."""
    low = quoted.casefold()
    found: dict[str, str] = {}
    for call in session.calls:
        if call.index <= start or call.id in session.failed_calls:
            continue
        for key, subject in _closed_items(call):
            named = bool(key) and re.search(_TASK_REF_RE.format(key=re.escape(key)), quoted, re.I)
            if named or (len(subject) >= 12 and subject.casefold() in low):
                what = f"task #{key}" if named else f'"{cut(subject, 80)}"'
                found.setdefault(what, f"{what} marked completed since (`{call.name}`)")
    return list(found.values())


def _closed_items(call: Call) -> list[tuple[str, str]]:
    """(id, subject) of the items a plan-tool call marks completed ([] for any other call)."""
    args = call.args
    if call.name == "TaskUpdate":
        status = str(args.get("status") or "").casefold()
        key = str(args.get("taskId") or args.get("task_id") or args.get("id") or "")
        subject = args.get("subject")
        return [(key, subject if isinstance(subject, str) else "")] if status in _DONE else []
    items = args.get("todos") if call.name in PLAN_TOOLS else None
    items = args.get("plan") if call.name == "update_plan" else items
    if not isinstance(items, list):
        return []
    return [
        ("", str(item.get("content") or item.get("step") or "").strip())
        for item in items
        if isinstance(item, dict) and str(item.get("status") or "").casefold() in _DONE
    ]


def _edited_since(session: Session, quoted: str, start: int) -> list[str]:
    """The files changed after the earlier summary that the quoted section names: by path, by
    file name, or by a distinctive stem (``organization-switcher`` for
    ``organization-switcher.tsx``)."""
    low = quoted.casefold()
    named: list[str] = []
    for path, state in session.files.items():
        if not state.changed_at or state.changed_at[-1] <= start:
            continue
        name = path.rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0]
        by_stem = len(stem) >= 6 and _DISTINCT_STEM_RE.search(stem) is not None
        words = (path, name, stem) if by_stem else (path, name)
        if any(re.search(rf"(?<![\w.-]){re.escape(w.casefold())}(?![\w-])", low) for w in words):
            named.append(name if name == path else path)
    return named
