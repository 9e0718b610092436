"""Work changed after the step that shipped it and not shipped since (integrator rows 2710-2711;
blind check 57 G1: a workflow saved with ``update_workflow`` after its last ``publish_workflow``,
so the live bot still ran the older version, and nothing in the summary said "publish it").

**Tools** (row 2711): a successful call of a tool whose name says it ships something (publish,
deploy, release) names its target by an id argument (``workflowId``, ``site_id``, ``id``); a
later successful call of a tool whose name says it changes something (update, edit, save,
modify, patch, upsert, set, put, write) with the same id value, and no later ship call of that
id, leaves the change unshipped: section 7 says so, naming both calls.

**Git** (row 2710): commits made after the session's last successful push, never pushed in it.

A resuming agent that reads "pushed" in an earlier result and "committed" later cannot tell
whether the later commits reached the remote. By shape: when the session ran a ``git push`` that
succeeded, the commits that successful ``git commit`` calls reported after it (``[main 1a2b3c4]
message``) with no successful push after them are listed in section 7 as local only. A session
that never pushed says nothing (pushing may not be part of its work); so does one where a later
call may have pushed by other means (``gh pr create``, any command naming ``push``), or rewrote
history (``git reset``, ``rebase``, ``commit --amend`` of a listed commit is listed as itself).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import command_of

from .local_session import Session, once
from .local_standin import result_texts

__all__ = ["unpushed_items", "unshipped_items"]

_PUSH_RE = lazy_pattern(r"\bgit\b[^|;&\n]*?\bpush\b")
_PUSHY_RE = lazy_pattern(r"\bpush\b|\bgh\s+pr\s+(?:create|merge)\b|\bsubmit\b", re.IGNORECASE)
"""A later command that may have pushed by other means (a script, ``gh pr create``)."""
_REWRITE_RE = lazy_pattern(r"\bgit\b[^|;&\n]*?\b(?:reset|rebase|filter-branch|branch\s+-D)\b")
_REFUSED_RE = lazy_pattern(r"\[rejected\]|\[remote rejected\]|^(?:fatal|error): ", re.MULTILINE)
_COMMIT_RE = lazy_pattern(
    r"^\[([\w./\-]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.MULTILINE
)
"""A commit's header line: ``[main 1a2b3c4] message`` (``[main (root-commit) 1a2b3c4] …``)."""
_SHOWN = 5


_WORD = r"(?:^|[_\-.]|(?<=[a-z])(?=[A-Z]))(?:{})(?=$|[_\-.A-Z])"
_SHIP_RE = lazy_pattern(_WORD.format("publish|deploy|release|Publish|Deploy|Release"))
_CHANGE_RE = lazy_pattern(
    _WORD.format("update|edit|save|modify|patch|upsert|set|put|write|Update|Edit|Save|Modify|Patch")
)
"""A tool name's word (``update_workflow``, ``updateWorkflow``, ``workflow.update``)."""
_ID_KEY_RE = lazy_pattern(r"^(?:id|ID)$|_(?:id|ID)$|[a-z](?:Id|ID)$")
"""An argument naming its target by id (``id``, ``site_id``, ``workflowId``; not ``valid``)."""


def unshipped_items(s: Session, width: int) -> list[str]:
    """Section 7's lines: the commits no push sent (:func:`unpushed_items`) and the targets a
    tool changed after the tool call that last shipped them (module docstring)."""
    return unpushed_items(s, width) + [
        f"Changed after its last {ship} and not shipped since: {tool}({_cut(v, width)}) ran"
        f" after {ship}({_cut(v, width)}); the shipped version is the earlier one"
        for v, tool, ship in once(s, _changed_targets)
    ]


def _changed_targets(s: Session) -> list[tuple[str, str, str]]:
    """(id value, the tool that changed it, the tool that last shipped it before) of each
    target changed after its last ship (read once: each render lists them)."""
    shipped: dict[str, str] = {}  # id value -> the tool that last shipped it
    changed: dict[str, str] = {}  # id value -> the change tool, when after the last ship
    kinds: dict[str, tuple[bool, bool]] = {}  # tool name -> (ships, changes): once a name
    for call in s.calls:
        name = call.name.rsplit("__", 1)[-1]
        if (kind := kinds.get(name)) is None:
            kind = kinds[name] = (bool(_SHIP_RE.search(name)), bool(_CHANGE_RE.search(name)))
        ship, change = kind
        if (not ship and not change) or call.id in s.failed_calls or call.id not in s.answered:
            continue
        for value in _ids(call.args):
            if ship:
                shipped[value] = name
                changed.pop(value, None)
            elif value in shipped:
                changed[value] = name
    return [(v, tool, shipped[v]) for v, tool in changed.items()]


def _ids(args: dict[str, object]) -> list[str]:
    """The string values of ``args``' id-like keys (``workflowId``, ``site_id``, ``id``)."""
    return [
        v.strip()
        for k, v in args.items()
        if isinstance(v, str) and v.strip() and len(v) <= 200 and _ID_KEY_RE.search(k)
    ]


def unpushed_items(s: Session, width: int) -> list[str]:
    """Section 7's line naming the commits made after the last successful ``git push`` that no
    later push sent (module docstring); empty when there are none or it cannot be told."""
    commits = once(s, _unpushed)
    if not commits:
        return []
    shown = [f'{h[:7]} "{_cut(m, width)}" (on {b})' for b, h, m in commits[:_SHOWN]]
    more = f", and {len(commits) - _SHOWN} more" if len(commits) > _SHOWN else ""
    return [
        "Committed after the last `git push` that succeeded and not pushed in the session"
        f" (local only, unless pushed outside it): {', '.join(shown)}{more}"
    ]


def _unpushed(s: Session) -> list[tuple[str, str, str]]:
    """(branch, hash, message) of each commit after the last push that no later push sent, in
    order; empty when none or when it cannot be told (read once: each render asks)."""
    commands = [(c, command_of(c) or "") for c in s.calls]
    if not any(_PUSH_RE.search(cmd) for _, cmd in commands):
        return []
    ids = {c.id for c, cmd in commands if "git" in cmd or _PUSHY_RE.search(cmd)}
    texts = result_texts(s, ids)
    pushed = False
    commits: list[tuple[str, str, str]] = []  # (branch, hash, message) since the last push
    for call, cmd in commands:
        if call.id not in texts or call.id in s.failed_calls:
            continue
        text = texts[call.id]
        found = [m.groups() for m in _COMMIT_RE.finditer(text[:20_000])] if "commit" in cmd else []
        if _PUSH_RE.search(cmd) and not _REFUSED_RE.search(text):
            pushed, commits = True, []  # this call's own commits went with its push
        elif pushed and commits and (_PUSHY_RE.search(cmd) or _REWRITE_RE.search(cmd)):
            return []  # pushed by other means, or history rewritten: not told
        elif pushed:
            commits.extend((b, h, m) for b, h, m in found)
    return commits


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(width - 1, 1)].rstrip() + "…"
