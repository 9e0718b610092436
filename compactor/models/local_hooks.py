"""Hooks that failed, as one standing problem each (blind check 63 N4).

Claude Code writes a failing hook as an ``attachment`` record of type
``hook_non_blocking_error`` (also ``hook_blocking_error``, ``hook_error_during_execution``):
``hookName`` ("PostToolUse:Edit"), ``hookEvent`` ("PostToolUse"), ``command`` and ``stderr``
("Failed with non-blocking status code: … Error: Cannot find module '/usr/…/posttooluse.mjs'").
The reader turns it into a context message (``<system-reminder>\\nattachment hook_…_error\\n
hookName: …``). A hook that fails on every tool call is a problem of the set-up the resuming
agent should know about, yet no failed call shows it.

:func:`hook_failure_items` lists each failing hook once, by its event and error line, with how
many times it failed: "Hook PostToolUse failed 3 times (`node /…/posttooluse.mjs`): Error:
Cannot find module '/usr/…/posttooluse.mjs'".
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut

from .local_session import Session
from .local_text import code

__all__ = ["hook_failure_items"]

_HEAD_RE = lazy_pattern(r"^<system-reminder>\nattachment (hook_[a-z_]*error[a-z_]*)\n")
_FIELD_RE = lazy_pattern(r"^(hookEvent|hookName|command|stderr|exitCode): ?(.*)$", re.MULTILINE)
_MOST = 4
"""Failing hooks listed at most (each once, with its count)."""
_ERROR_RE = lazy_pattern(r"^\s*(?:[A-Z]\w*)?(?:Error|error|ERROR)\b[^\n]*", re.MULTILINE)


def _error_line(stderr: str) -> str:
    """The telling line of a hook's standard error: its first ``Error: …`` line, else its first
    line without the harness's "Failed with non-blocking status code:" prefix."""
    if (m := _ERROR_RE.search(stderr)) is not None:
        return m.group(0).strip()
    first = next((x for x in stderr.splitlines() if x.strip()), "")
    return re.sub(r"^Failed with [\w -]*status code:\s*", "", first).strip()


def hook_failure_items(s: Session, room: int) -> list[str]:
    """One line per failing hook (its event and command), first failure's order."""
    counts: dict[tuple[str, str], int] = {}
    errors: dict[tuple[str, str], str] = {}
    for e in s.entries:
        if not e.injected or not e.text.startswith("<system-reminder>\nattachment hook_"):
            continue  # (one prefix test per message: most are no hook's)
        if _HEAD_RE.match(e.text) is None:
            continue  # ``hook_success``, ``hook_additional_context``: no failure
        body = e.text.removesuffix("</system-reminder>")
        fields = dict(_FIELD_RE.findall(body))
        stderr = body.split("\nstderr: ", 1)[1] if "\nstderr: " in body else ""
        stderr = stderr.split("\nstdout: ", 1)[0].split("\nexitCode: ", 1)[0]
        event = fields.get("hookEvent") or fields.get("hookName", "?").split(":", 1)[0]
        key = (event, fields.get("command", ""))
        counts[key] = counts.get(key, 0) + 1
        errors.setdefault(key, _error_line(stderr))
    items: list[str] = []
    for (event, command), count in list(counts.items())[:_MOST]:
        times = f" {count} times" if count > 1 else ""
        run = f" ({code(cut(command, room // 2))})" if command else ""
        said = f": {cut(errors[event, command], room)}" if errors[event, command] else ""
        items.append(f"Hook {event} failed{times}{run}{said} (a hook's error, no tool call's)")
    return items
