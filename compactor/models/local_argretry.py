"""A tool call retried with one argument corrected is the retry (BENCH48 W4).

cc-pupmcp: ``Task(subagent_type="code-simplifier")`` failed ("Agent type 'code-simplifier' not
found. Available agents: …, code-simplifier:code-simplifier, …"); the very next call ran the same
``Task`` (same description, same prompt) with ``subagent_type="code-simplifier:code-simplifier"``,
the name the error listed, and it completed. A sub-agent's signature holds its type, so the retry
counted as another job; section 4 said "Set aside on purpose, not to be fixed" with a sentence of
the final report that only shared a word with the prompt.

:func:`judge_arg_retries` marks such a failure ``fixed`` ("Fixed: a later `Task(…)` ran; the retry
with subagent_type=code-simplifier:code-simplifier completed"): a later call that did not fail, of
the same tool (not a shell command: those are judged by :mod:`.local_retries`), with the same
arguments but one, among the next calls of that tool, when the changed value is one the error
named (a valid choice it listed), or when the call came right next and the changed argument is no
target (a path, a URL, a query, an id: a read of another file is no retry of a read that found
nothing, a look-up of another issue no retry of the first). A later call of the same tool among
the next ones with every argument of the failed call unchanged and only non-target ones added is
the retry too, however far it came (blind check 74 W4: an MCP call given the workspace it
lacked).
"""

from __future__ import annotations

from compactor.facts import Call, cut
from compactor.facts.commands import command_of

from .local_again import still_open
from .local_session import ErrorFact, Session
from .local_standin import result_texts
from .local_text import call_line

__all__ = ["judge_arg_retries"]

_TARGETS = frozenset(
    {"file_path", "path", "paths", "filename", "notebook_path", "url", "uri", "query", "pattern",
     "glob", "command", "cmd", "directory", "dir", "cwd"}
)  # fmt: skip
"""Arguments that name what a call is about: another value is another call, not a retry."""
_NEXT = 3
"""How many later calls of the same tool may hold the retry."""


def _one_change(failed: Call, later: Call) -> str:
    """The one argument ``later`` changed from ``failed`` ("" when none or more than one did)."""
    mine, theirs = failed.args, later.args
    keys = set(mine) | set(theirs)
    changed = [k for k in keys if mine.get(k) != theirs.get(k)]
    return changed[0] if len(changed) == 1 else ""


def _added(failed: Call, later: Call) -> str:
    """The arguments ``later`` added to ``failed``'s, unchanged, as ``k=v`` ("" when it changed
    or dropped one, added none, or added a target: another file or query is another call).
    ``beads-ready(limit=20)`` failed, "No beads workspace found"; ``beads-ready(limit=20,
    workspace_root=D:\\w)`` succeeded: the same call with what it lacked."""
    mine, theirs = failed.args, later.args
    if any(k not in theirs or theirs[k] != v for k, v in mine.items()):
        return ""
    added = [k for k in theirs if k not in mine]
    if not added or any(_is_target(k) for k in added):
        return ""
    return ", ".join(f"{k}={theirs[k]}" for k in added)


def _is_target(key: str) -> bool:
    low = key.lower()
    return low in _TARGETS or low.endswith(("id", "ids", "number", "name", "key"))


def judge_arg_retries(s: Session) -> None:
    """Mark ``fixed`` each still-open failure of a tool call that a later call of the same tool
    with one argument corrected got past (module docstring)."""
    failed = {
        call_line(c, 300): c for c in s.calls if c.id in s.failed_calls and command_of(c) is None
    }
    if not failed:
        return
    todo: list[tuple[ErrorFact, Call]] = [
        (e, c) for e in s.errors if still_open(e) and (c := failed.get(e.call)) is not None
    ]
    texts = result_texts(s, {c.id for _, c in todo})
    for err, call in todo:
        after = [c for c in s.calls if c.index > call.index]
        nxt = after[0] if after else None  # the very next call: a retry even unlisted
        later = [c for c in after if c.name == call.name][:_NEXT]
        said = texts.get(call.id, "") or " ".join(err.outcome.lines)
        for other in later:
            if other.id in s.failed_calls or other.id not in s.answered:
                continue
            added = _added(call, other)
            if added:  # the same call with what it lacked (blind check 74 W4)
                err.after, err.by = "fixed", call_line(other, 160)
                err.why = f"the retry with {cut(added, 80)} added completed"
                break
            key = _one_change(call, other)
            value = other.args.get(key) if key else None
            if value is None or isinstance(value, (dict, list)):
                continue
            shown = str(value)
            listed = bool(shown) and shown in said and shown not in str(call.args.get(key))
            if listed or (other is nxt and not _is_target(key)):
                err.after, err.by = "fixed", call_line(other, 160)
                err.why = f"the retry with {key}={cut(shown, 80)} completed"
                break
