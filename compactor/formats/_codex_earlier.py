"""What the calls before a Codex ``compacted`` record did, for the summarizer (:mod:`.codex`).

The history a Codex rollout resumes starts at its last ``compacted`` record; the calls before it
are not messages. Blind check 15 (kn-commit, Codex 0.77): ``apply_patch`` calls had edited
``CLAUDE.md`` and ``.agent/README.md`` before the compaction, and the summary said the user named
them "never by a call (they may not exist)". :func:`earlier_calls` scans those records once,
cheaply (no message is built): the files ``apply_patch`` changed (its ``*** Update File:``
headers) and every call's arguments, each cut short, go on the first history message under
:data:`~compactor.schema.EARLIER_CALLS_KEY`, with ``"encrypted"`` when the history holds the
server's encrypted summary (``compaction``/``compaction_summary``: the summary says it cannot read
it, blind check 24).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from compactor._json import JsonObject
from compactor._util import lazy_pattern
from compactor.schema import EARLIER_CALLS_KEY, Message

from ._codex_kept import COMPACTIONS
from ._jsonl import Line

__all__ = ["earlier_calls", "note_earlier_calls"]

_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_PATCH_FILE_RE = lazy_pattern(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE
)
_SAID_CHARS = 400
"""Of each earlier call's arguments, this much is kept (a path is named near the start)."""
_SAID_MOST = 200_000
"""At most this much of all earlier calls' arguments (the newest first)."""


def earlier_calls(lines: Sequence[Line], end: int) -> JsonObject | None:
    """``{"changed": [paths], "said": text}`` of the calls in ``lines[:end]``; None when none."""
    groups: list[list[str]] = []  # each call's changed paths, the newest call first
    said: list[str] = []
    size = 0
    for i in range(end - 1, -1, -1):  # the newest first: the cap drops the oldest
        rec = lines[i].obj
        if rec.get("type") != "response_item":
            continue
        item = rec.get("payload")
        if not isinstance(item, dict) or item.get("type") not in _CALLS:
            continue
        text = item.get("input") if item.get("type") == "custom_tool_call" else None
        if not isinstance(text, str):
            text = item.get("arguments") if isinstance(item.get("arguments"), str) else ""
        assert isinstance(text, str)
        if "*** " in text and "File: " in text:  # an apply_patch's headers name its files
            found = _PATCH_FILE_RE.finditer(_patch_text(text))
            groups.append([m.group(1) or m.group(2) for m in found])
        if size < _SAID_MOST and text:
            said.append(text[:_SAID_CHARS])
            size += min(len(text), _SAID_CHARS)
    changed = dict.fromkeys(p for group in reversed(groups) for p in group)
    if not said and not changed:
        return None
    return {"changed": list(changed), "said": "\n".join(reversed(said))}


def _patch_text(text: str) -> str:
    """The patch a call's text holds: JSON arguments (``{"command": ["apply_patch", "*** Begin
    Patch\\n…"]}``, an older Codex's shell call) are decoded so that each header is a line."""
    if not text.startswith("{"):
        return text
    try:
        args = json.loads(text)
    except ValueError:
        return text
    values = args.values() if isinstance(args, dict) else ()
    parts = [v for x in values for v in (x if isinstance(x, list) else [x]) if isinstance(v, str)]
    return "\n".join(parts)


def note_earlier_calls(messages: list[Message], lines: Sequence[Line], end: int) -> None:
    """Put :func:`earlier_calls` of ``lines[:end]`` on the first of ``messages``."""
    if not messages or end < 0:
        return
    found = earlier_calls(lines, end) or {}
    if _encrypted(lines[end].obj):  # the summarizer says it cannot read it (blind check 24)
        found["encrypted"] = "yes"
    if found:
        messages[0].extra[EARLIER_CALLS_KEY] = found


def _encrypted(rec: JsonObject) -> bool:
    """Whether a ``compacted`` record's history holds the server's encrypted summary."""
    payload = rec.get("payload")
    history = payload.get("replacement_history") if isinstance(payload, dict) else None
    items = history if isinstance(history, list) else []
    return any(isinstance(i, dict) and i.get("type") in COMPACTIONS for i in items)
