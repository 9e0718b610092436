"""A file the final answer or a completed plan item says was changed, that no call changed
(blind check 73 N2).

rc_compact: the plan marked "[completed] Add observability section to settings modal in
app.html" and the answer listed what it had changed, yet no call ever touched ``app.html`` (the
``settings.js`` Edits failed and another file was written instead); the summary quoted both as
the agent's words, and nothing told the resuming agent which of them the results bear out.

By shape (as :mod:`.local_owed` does for pushes): a line of the assistant's last text, or a done
plan item, that says a file was changed (a change verb and a file path in it), where the file
(by its name) was changed by no call that worked: every call that edited it failed, or no call
named it at all (and no earlier summary did: its change may be older than the transcript). At
most three claims are listed, one per file.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, one_line
from compactor.facts.patterns import paths

from .local_session import Session
from .local_text import code, quote

__all__ = ["unborne_items"]

_DONE_RE = lazy_pattern(
    r"\b(?:added|updated|modified|changed|created|wrote|written|edited|fixed|implemented"
    r"|inserted|appended|integrated)\b",
    re.IGNORECASE,
)
"""A change said done (the answer's words: past tense, never "I'll change it")."""
_CHANGE_RE = lazy_pattern(
    r"\b(?:add|update|modify|change|create|write|edit|fix|implement|insert|append|integrate)"
    r"\b",
    re.IGNORECASE,
)
"""A change a done plan item names as its action (imperative, or said done)."""
_MOST = 3


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _claims(s: Session) -> list[tuple[str, str]]:
    """(file name, the claim quoted) for each line that says a file was changed."""
    texts: list[tuple[str, str, re.Pattern[str]]] = []
    last = s.last_text
    if (
        last is not None
        and last.role == "assistant"
        and last.index >= max((c.index for c in s.calls), default=-1)
    ):  # the last word, after every call
        for line in last.text.splitlines():
            if line.strip():
                texts.append((line, f"the answer says {quote(line.strip(), 160)}", _DONE_RE))
    texts += [
        (t.subject, f"the task list marks {quote(f'[{t.status}] {t.subject}', 160)}", _CHANGE_RE)
        for t in s.tasks.values()
        if t.done
    ]
    out: list[tuple[str, str]] = []
    for text, q, verbs in texts:
        if verbs.search(text) is None and _DONE_RE.search(text) is None:
            continue
        for _, path in paths(text):
            name = _name(path)
            if "." in name.strip(".") and all(n != name for n, _ in out):
                out.append((name, q))
    return out


def _plans(call: Call) -> bool:
    """Whether ``call`` writes the plan (its items name files it does not touch)."""
    return any(isinstance(call.args.get(k), list) for k in ("todos", "plan", "tasks"))


def _unborne(s: Session) -> list[tuple[str, str, str]]:
    """(file name, claim, why the results do not bear it out), at most :data:`_MOST`."""
    if not any(f.changes for f in s.files.values()):
        return []  # a session that changes no file through its calls: nothing to compare with
    changed = {_name(p) for p, f in s.files.items() if f.changes}
    out: list[tuple[str, str, str]] = []
    for name, claim in _claims(s):
        if name in changed:
            continue
        failed = [c for c in s.calls if _name(c.written_file) == name and c.id in s.failed_calls]
        if failed:
            why = f"every call that edited it failed ({len(failed)})"
        elif not any(name in c.arguments for c in s.calls if not _plans(c)) and not any(
            name in text for text in s.prior
        ):
            why = "no call touched it"
        else:
            continue
        out.append((name, claim, why))
        if len(out) == _MOST:
            break
    return out


def unborne_items(s: Session, width: int) -> list[str]:
    """Section 7's line for each claimed change the results do not bear out (the module)."""
    return [
        f"Not borne out by the results: {cut(one_line(claim), width * 2)}, but no call changed "
        f"{code(name)} ({why}): check the file before taking it as done"
        for name, claim, why in _unborne(s)
    ]
