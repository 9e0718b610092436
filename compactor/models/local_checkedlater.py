"""An item the assistant said was still open, closed by a later call (blind check 46 W4).

cx-tauri: the assistant said "T030 is still unchecked because the quickstart validation requires
running tauri:dev (GUI) and full test runs; I did not execute those here."; much later an
``apply_patch`` of ``tasks.md`` turned ``- [ ] T030 Run quickstart validation steps`` into
``- [x] T030 …`` and the phase was declared complete, yet section 5 kept the sentence as a
decision: a resuming agent is shown an open task that is closed. Now
:func:`judge_checked_later` labels "No longer holds" (the marker of :mod:`.local_reverted`):

* a decision sentence saying an item is still open ("still unchecked", "not done yet", "remains
  open", "pending", "not completed") that names a task id (``T030``, ``TASK-12``) or the text of
  a checkbox a later successful change checked (``- [ ] X`` → ``- [x] X``);
* a sentence saying the agent did not run a command it names in backticks ("I did not run
  `npm test`") when a later call ran that command and succeeded.

Only sentences with one of those words are looked at (a cheap pre-check), so a session without
them costs nothing.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from compactor._util import lazy_pattern

from .local_files import file_changes
from .local_reverted import NO_LONGER, change_calls, labelled
from .local_session import Session

__all__ = ["judge_checked_later"]

_OPEN_RE = lazy_pattern(
    r"\b(?:still (?:un(?:checked|ticked|done|finished)|open|pending|to do|todo|missing)|"
    r"(?:is|are|remains?|stays?|left) (?:open|unchecked|pending|incomplete)|"
    r"not (?:yet )?(?:done|checked|ticked|complete[d]?|finished|marked)(?: yet)?|"
    r"(?:have|has)n['’]?t (?:been )?(?:done|checked|completed|marked)|unchecked)\b",
    re.IGNORECASE,
)
_NOT_RUN_RE = lazy_pattern(
    r"\b(?:I|we) (?:did not|didn['’]t|have not|haven['’]t|could not|couldn['’]t) "
    r"(?:yet )?(?:run|execute|executed|ran)\b",
    re.IGNORECASE,
)
_ID_RE = lazy_pattern(r"\b[A-Z]{1,6}-?\d{2,5}\b")
_CHECKED_RE = lazy_pattern(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]\s+(.+?)\s*$")
_UNCHECKED_RE = lazy_pattern(r"^\s*(?:[-*+]|\d+[.)])\s+\[ \]\s+(.+?)\s*$")
_TICKED_RE = lazy_pattern(r"`([^`\n]{3,80})`")
_CLAUSE_RE = lazy_pattern(r"[;:,]|\s\b(?:but|while|whereas|although|and)\b\s")
"""Where a sentence's clauses part: the id an open-item clause names is the open one ("T031
is not done yet, but T030 passed": T031)."""
_MIN_TEXT = 12  # characters of a checkbox's text a sentence must repeat to name it


def judge_checked_later(s: Session) -> None:
    """Label the open-item and not-run statements a later change or run closed (module
    docstring)."""
    todo = [
        n
        for n, (_, _, x) in enumerate(s.decisions)
        if not x.startswith(NO_LONGER) and (_OPEN_RE.search(x) or _NOT_RUN_RE.search(x))
    ]
    if not todo:
        return
    checked = _checked(s)
    labels: dict[int, str] = {}
    for n in todo:
        i, _, x = s.decisions[n]
        why = _closed_by(x, i, checked) if _OPEN_RE.search(x) else None
        if why is None and _NOT_RUN_RE.search(x):
            why = _ran_later(s, x, i)
        if why is not None:
            labels[n] = f"{NO_LONGER}({why}): "
    if labels:
        s.decisions = labelled(s.decisions, labels)


def _checked(s: Session) -> list[tuple[int, str, str]]:
    """(entry index, file name, item text) of each checkbox a successful change checked: one
    not seen checked before in that file (a whole-file write repeating an item checked
    earlier checks nothing)."""
    out: list[tuple[int, str, str]] = []
    state: dict[tuple[str, str], bool] = {}
    for j, call in change_calls(s, -1, len(s.entries)):
        for change in file_changes(call):
            lines = change.added or tuple((change.content or "").splitlines())
            if "[" not in "".join(lines):
                continue
            for ln in lines:
                if (m := _UNCHECKED_RE.match(ln)) is not None:
                    state[change.path, m.group(1)] = False
                elif (m := _CHECKED_RE.match(ln)) is not None:
                    if not state.get((change.path, m.group(1)), False):
                        out.append((j, PurePosixPath(change.path).name, m.group(1)))
                    state[change.path, m.group(1)] = True
    return out


def _closed_by(sentence: str, index: int, checked: list[tuple[int, str, str]]) -> str | None:
    """The later change that checked the item ``sentence`` says is open, in words."""
    ids = {i for c in _CLAUSE_RE.split(sentence) if _OPEN_RE.search(c) for i in _ID_RE.findall(c)}
    low = sentence.lower()
    for j, name, item in checked:
        if j <= index:
            continue
        head = item.split(None, 1)[0].strip("*_`:") if item.split() else ""
        text = item.lower().strip("*_` ")
        if (head in ids and _ID_RE.fullmatch(head)) or (len(text) >= _MIN_TEXT and text in low):
            return f'a later change to {name} checked "{_cut(item, 80)}"'
    return None


def _ran_later(s: Session, sentence: str, index: int) -> str | None:
    """The later successful call that ran a command ``sentence`` says was not run."""
    wanted = [
        (t, re.compile(rf"(?:^|[\s;&|(]){re.escape(t)}(?=$|[\s;&|)])"))
        for t in (w.strip() for w in _TICKED_RE.findall(sentence))
        if len(t) >= 3 and not t.startswith(("-", "/", "."))
    ]
    if not wanted:
        return None
    for call in s.calls:
        command = call.command
        if call.index <= index or command is None or call.id in s.failed_calls:
            continue
        if call.id not in s.answered:
            continue
        for t, word in wanted:
            if t in command and word.search(command) is not None:
                return f"a later call ran `{_cut(t, 80)}` and it succeeded"
    return None


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
