"""What a call of a tool whose name says nothing about its work did: its action core (blind
check 56 W1, W2, W4).

A failure is "Fixed" by a later call that retries it (:func:`.local_retries.retries`). For a
tool that is not a shell, that was: the same tool name and one shared argument, or no arguments
of a short string on either side. Three harnesses made that "a later call of the same tool":

* Codex code mode (cx_kiki_export): every call is an ``exec`` cell of JavaScript that calls
  ``tools.shell_command({command: …})``, ``tools.update_plan(…)``, ``tools.apply_patch(…)``;
  the cell is no argument object, so any later cell that succeeded fixed any failed one: an
  ``export-desktop-all`` run was "Fixed" by a ``repair-desktop --dry-run`` + ``validate-bundles``
  cell, an upload script's refusal by an ``update_plan`` cell. :func:`cell_signature` reads a
  cell as the commands it runs (a shell signature: the same command again, or a later one that
  holds it, retries it) or, without any, as the tools it calls (``exec → update_plan``: a plan
  update or a search retries nothing but itself).
* A browser tool (cc_kasir_inflight): ``computer(tabId=seed, action=screenshot)`` timed out
  twice and was "Fixed" by ``computer(tabId=seed, action=left_click, ref=ref_4)``: the shared
  tab was the shared argument. :func:`action_marks` names the argument that selects what the
  call does (``action``, ``operation``, ``method``, …): two calls that differ in it never retry
  one another.
* A search tool (blind check 58 W6): ``Glob(pattern=**/.claude/settings*.json, path=HOME)``
  timed out and was "Fixed" by ``Glob(pattern=.claude/settings.json, path=HOME)``, a narrower
  search that answered another question: the shared ``path`` was the shared argument. What a
  search looks for (``pattern``, ``query``, ``regex``, ``glob``) is marked the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from compactor._util import lazy_pattern
from compactor.facts import Call

__all__ = ["ACTION", "ACTION_KEYS", "action_marks", "cell_signature", "same_action"]

ACTION = "\x00action "
"""The prefix of a signature target that names a call's action (``\\x00action action=click``)."""
ACTION_KEYS = ("action", "operation", "op", "method", "subcommand", "verb", "kind")
"""Argument names that select what a generic tool does (a browser's ``action=screenshot``)."""
_WHAT_KEYS = ("pattern", "query", "regex", "glob", "search_query")
"""Argument names that say what a search looks for: a later ``Glob`` of the same ``path`` with
another ``pattern`` is another search, no retry of a failed one (blind check 58 W6)."""
_CELL = 8_000
_TOOL_RE = lazy_pattern(r"\btools\.(\w+)\s*\(")
_COMMAND_RE = lazy_pattern(
    r"""\b(?:cmd|command)["']?\s*:\s*(?:"((?:[^"\\\n]|\\.){1,2000})"|'((?:[^'\\\n]|\\.){1,2000})'|`([^`]{1,2000})`)"""
)
_SHELL_TOOLS = frozenset({"shell_command", "exec_command", "shell", "local_shell", "bash"})

Signature = tuple[str, str, frozenset[str]]


_MARK_KEYS = frozenset((*ACTION_KEYS, *_WHAT_KEYS))


def action_marks(args: dict[str, object]) -> frozenset[str]:
    """The action-selecting arguments of a generic call, as signature targets (the call's few
    arguments looked up among the keys, not the twelve keys among its arguments)."""
    return frozenset(
        f"{ACTION}{k}={v}"
        for k, v in args.items()
        if k in _MARK_KEYS and isinstance(v, str) and 0 < len(v) < 200
    )


def same_action(failed: frozenset[str], later: frozenset[str]) -> bool:
    """Whether two generic calls' targets name the same action (or neither names one)."""
    return {t for t in failed if t.startswith(ACTION)} == {t for t in later if t.startswith(ACTION)}


def _unescape(text: str) -> str:
    try:
        value = json.loads(f'"{text}"')
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def cell_signature(call: Call, command: Callable[[str], Signature]) -> Signature | None:
    """The signature of a code cell (a call whose text is code calling ``tools.NAME(…)``):
    ``command``'s signature of the commands it runs (joined by ``&&``), else the tools it
    calls (``exec → update_plan``) with the cell's text as its one target; None for any
    other call."""
    if call.args:  # (first: an argument object is no cell, and its text is not copied)
        return None
    text = call.arguments[:_CELL]
    if "tools." not in text:
        return None
    tools = _TOOL_RE.findall(text)
    if not tools:
        return None
    commands = [_unescape(m[0]) if m[0] else (m[1] or m[2]) for m in _COMMAND_RE.findall(text)]
    commands = [c.strip() for c in commands if c.strip()]
    if commands and any(t in _SHELL_TOOLS for t in tools):
        return command(" && ".join(commands))
    names = sorted(set(tools))
    return (f"{call.name} → {'+'.join(names)}", "", frozenset({" ".join(text.split())}))
