"""A failed patch is fixed only by a later write of the same file (blind check 37, W5).

cx-jenga (Codex 0.63, Windows): ``apply_patch`` of ``firebase.json`` failed ("apply_patch
verification failed: Failed to find expected lines in …\\firebase.json"); the file was then
rewritten whole by a PowerShell here-string (``@'…'@ | Set-Content -Path firebase.json``), and
section 4 said "Fixed: a later apply_patch(*** Update File: web/index.html …) succeeded": the
custom ``apply_patch`` tool's input is no JSON, so every patch had the same empty signature and
any later patch "retried" any failed one. The legacy form (``bash -lc "apply_patch <<'PATCH'
…"``) had the same flaw one step later: another patch ran the same program, so it was the
failure's workaround.

A patch's target is the files it names (``*** Update File:``, ``*** Add File:``, ``*** Delete
File:``, ``*** Move to:``): :func:`patch_files` gives them to the retry signature (a patch of
another file is no retry) and to the workaround check. :func:`judge_patch_rewrites` settles a
failed patch still open as ``fixed`` when a later call of any tool changed one of its files (the
session model's file list: another patch, a shell write, a here-string rewrite).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of

from .local_shellwrite import shell_rewrite
from .local_text import call_line

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["judge_patch_rewrites", "patch_files", "same_file", "touches_patched"]

_BEGIN = "*** Begin Patch"
_FILE_RE = lazy_pattern(r"^\*\*\* (?:(?:Update|Add|Delete) File|Move to): *(.+?)\s*$", re.MULTILINE)
_INPUT_KEYS = ("input", "patch", "diff")


def _norm(path: str) -> str:
    path = path.strip().strip("'\"").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def patch_files(call: Call) -> frozenset[str]:
    """The files a patch call names (Codex ``apply_patch``, the custom tool or the legacy
    ``apply_patch <<'PATCH'`` heredoc), as written, with ``/`` separators; empty for a call
    that is no patch."""
    if _BEGIN not in call.arguments:
        return frozenset()
    text = call.arguments
    if "apply_patch" in call.name:
        text = next((v for k in _INPUT_KEYS if isinstance(v := call.args.get(k), str)), text)
    else:
        command = command_of(call)
        if command is None or "apply_patch" not in command:
            return frozenset()
        text = command
    return frozenset(_norm(m.group(1)) for m in _FILE_RE.finditer(text) if m.group(1).strip())


def same_file(one: str, two: str) -> bool:
    """Whether two paths name the same file: equal, or one ends with the other (a relative
    path and the absolute one, ``web/index.html`` and ``/w/app/web/index.html``)."""
    a, b = _norm(one), _norm(two)
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return bool(short) and long.endswith("/" + short)


def touches_patched(failed: Call, later: Call) -> bool | None:
    """For a failed patch: whether ``later`` is a patch of one of its files; None when
    ``failed`` is no patch (its goal is judged otherwise)."""
    mine = patch_files(failed)
    if not mine:
        return None
    theirs = patch_files(later)
    return any(same_file(a, b) for a in mine for b in theirs)


def judge_patch_rewrites(s: Session) -> None:
    """Mark ``fixed`` each open failure of a patch whose file a later call changed."""
    open_errors = [e for e in s.errors if e.after in ("", "failed again") and _BEGIN in e.call]
    if not open_errors:
        return
    failed: dict[str, list[Call]] = {}
    for c in s.calls:
        if c.id in s.failed_calls and _BEGIN in c.arguments:
            failed.setdefault(call_line(c, 300), []).append(c)
    for err in open_errors:
        call = next((c for c in reversed(failed.get(err.call, [])) if c.index < err.index), None)
        files = patch_files(call) if call is not None else frozenset()
        if not files:
            continue
        first: tuple[int, str] | None = None
        for path, state in s.files.items():
            if any(same_file(path, f) for f in files):
                later = [i for i in state.changed_at if i > err.index]
                if later and (first is None or later[0] < first[0]):
                    first = (later[0], path)
        if first is None:
            if (by_shell := shell_rewrite(s, err.index, files)) is not None:
                err.after, err.why, err.by = "fixed", "", call_line(by_shell, 160)  # (49 W5)
            continue
        base = first[1].replace("\\", "/").rsplit("/", 1)[-1]
        by = [
            c for c in s.calls
            if err.index < c.index < first[0] and c.id not in s.failed_calls and base in c.arguments
        ]  # fmt: skip
        err.after, err.why = "fixed", ""
        err.by = call_line(by[-1], 160) if by else f"a write of {first[1]}"
