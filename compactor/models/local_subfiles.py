"""Files and folders made by other means than this agent's own edit calls (blind check 16,
issue 28).

adl-agents: the agent ran ``mkdir -p …/workflow`` and three background agents wrote four files
into it, yet section 3 said "No file was created, edited or deleted": a resuming agent may
rewrite all of them. :func:`outside_writes` says what section 3 must add then: the folders a
``mkdir`` created, the files a sub-agent's final report (``<task-notification>`` result) says
it wrote, the sub-agents told to write files, and the names the last listing of their folder
showed. Only calls whose command holds ``mkdir``, sub-agent calls and notifications are read.
"""

from __future__ import annotations

import re
import shlex

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, paths
from compactor.facts.shellmade import made_folders, might_make
from compactor.facts.shellvars import resolve_path
from compactor.facts.shellwrap import inner_command

from .local_listing import SUBAGENT_TOOLS, listed_names, lists_work_folder
from .local_readagents import asks_to_write, findings, reads_only
from .local_removed import made_then_removed, removed_folders
from .local_session import Session
from .local_text import code

__all__ = ["committed", "outside_writes", "shell_made"]

_RESULT_RE = lazy_pattern(
    r"<task-id>\s*([\w\-.]+)\s*</task-id>.*?<result>(.*?)(?:</result>|\Z)", re.S
)
_WROTE_RE = lazy_pattern(r"\b(?:created|wrote|written|saved|generated|produced)\b", re.IGNORECASE)
_INTENT_RE = lazy_pattern(r"\b(?:let me|I'll|I will|going to|will|next|now I)\b", re.IGNORECASE)
"""A sentence that announces a write ("Now let me write …") reports none."""
_SENTENCE_END_RE = lazy_pattern(r"(?<=[.!?])\s+|\n")
_COMMIT_HEAD_RE = lazy_pattern(r"^\[[\w./\-]+ (?:\(root-commit\) )?[0-9a-f]{7,}\] .+$", re.M)
_COMMIT_SIZE_RE = lazy_pattern(r"^\s*(\d+ files? changed\b.*)$", re.M)
_COMMIT_NEW_RE = lazy_pattern(r"^\s*create mode \d+ (.+)$", re.M)


def _mkdir_targets(command: str) -> list[str]:
    found: list[str] = []
    for part in re.split(r"&&|;|\|\||\n", command):
        try:
            words = shlex.split(part)
        except ValueError:
            words = part.split()
        if not words or words[0].rsplit("/", 1)[-1] != "mkdir":
            continue
        found.extend(w for w in words[1:] if not w.startswith("-") and not _hidden(w))
    return found


def _output(s: Session, call_id: str) -> str:
    """The result text of call ``call_id`` ('' when none)."""
    return next((r.text for e in s.entries for r in e.results if r.call_id == call_id), "")


def _hidden(path: str) -> bool:
    """A hidden folder (``~/.superstack``, ``.cache/x``): the tooling's, not the work's."""
    return any(part.startswith(".") and part not in (".", "..") for part in path.split("/"))


def _reported(s: Session) -> dict[str, list[str]]:
    """The files each sub-agent's final report says it wrote (by task id)."""
    said: dict[str, list[str]] = {}
    for e in s.entries:
        if e.role != "user" or "<task-notification>" not in e.text or "<result>" not in e.text:
            continue
        for m in _RESULT_RE.finditer(e.text):
            for sentence in _SENTENCE_END_RE.split(m.group(2)[:4_000]):
                if _WROTE_RE.search(sentence) is None or _INTENT_RE.search(sentence):
                    continue
                for _, path in paths(sentence):
                    if "." in path.rsplit("/", 1)[-1]:
                        said.setdefault(m.group(1), []).append(path)
    return said


def _in_flight(s: Session, call: Call) -> bool:
    """Whether sub-agent ``call`` is a call still in flight (no result), no background agent:
    section 7 lists it (blind check 69 W3)."""
    background = call.id in s.background or call.args.get("run_in_background")
    return not background and call.id not in s.answered


def _writes(call: Call) -> bool:
    """Whether sub-agent ``call``'s prompt asks to change files (none given: it may)."""
    prompt = call.args.get("prompt")
    return not isinstance(prompt, str) or asks_to_write(prompt)


def outside_writes(s: Session, most: int, width: int) -> list[str]:
    """Section 3's lines for what this agent's own edit calls did not write: folders made by
    ``mkdir``, files sub-agents report writing, sub-agents told to write, and the last listing
    of a folder they write to (none when there is nothing of the kind)."""
    lines: list[str] = []
    made: dict[str, None] = {}
    agents: list[str] = []
    pending: list[str] = []  # calls in flight told to change files (blind check 69 W3)
    readers: list[Call] = []
    for call in s.calls:
        if call.name in SUBAGENT_TOOLS:
            what = call.args.get("description")
            if reads_only(call):  # it only searched: no writer (blind check 68, W4)
                readers.append(call)
            elif (flight := _in_flight(s, call)) and not _writes(call):
                continue  # section 7 lists it (blind check 69, W3)
            elif isinstance(what, str) and what and "resume" not in call.args:
                (pending if flight else agents).append(code(cut(what, width // 4)))
            continue
        command = call.command
        if command is None or "mkdir" not in command or call.id in s.failed_calls:
            continue
        targets = _mkdir_targets(command)
        said = _output(s, call.id) if any("$" in t for t in targets) else ""
        made.update(dict.fromkeys(p for t in targets if (p := resolve_path(t, command, said))))
    if made:
        shown = ", ".join(code(p) for p in list(made)[:most])
        lines.append(f"Created by mkdir: {shown}")
    lines.extend(shell_made(s, most))
    lines.extend(committed(s, most, width))
    for key, files in _reported(s).items():
        shown = ", ".join(code(p) for p in dict.fromkeys(files))
        lines.append(f"Written by background agent {key} (its report): {cut(shown, width)}")
    if agents and not any(x.startswith("Written by") for x in lines):
        lines.append(
            "Background agents were told to write files (their own writes are not in this log; "
            f"check what exists): {', '.join(agents[:most])}"
        )
    if pending:
        lines.append(
            "Sub-agent calls still in flight (section 7) were told to change files (what they "
            f"wrote so far is not in this log; check what exists): {', '.join(pending[:most])}"
        )
    lines.extend(findings(s, readers, most, width) if readers else [])
    results = {r.call_id: r for e in s.entries[-200:] for r in e.results if r.call_id}
    for call in reversed(s.calls[-200:]):
        if call.id in results and lists_work_folder(call, s):
            names = listed_names(results[call.id].text)
            if names:
                target = code(cut(call.command or "", width // 2))
                lines.append(f"The last listing ({target}) showed: {cut(', '.join(names), width)}")
            break
    return lines


def shell_made(s: Session, most: int) -> list[str]:
    """Section 3's line for the folders shell commands created with their whole content (``git
    clone URL`` → the repository's folder, ``cargo new``; blind check 19, neuro-codex): only
    calls that returned without failing (a rejected or unanswered clone made nothing), and not
    a folder a later ``rm -r`` removed (blind check 36 W7)."""
    answered: set[str] | None = None
    made: dict[str, str] = {}
    removed: dict[str, int] | None = None  # a folder removed later is no more (blind 36 W7)
    for call in s.calls:
        command = call.command
        if command is None or call.id in s.failed_calls:
            continue
        if not might_make(command):
            continue
        found = made_folders(inner_command(call) or command)
        if not found:
            continue
        if answered is None:
            answered = {r.call_id for e in s.entries for r in e.results if r.call_id}
        if call.id in answered:
            removed = removed_folders(s) if removed is None else removed
            if any("$" in folder for folder, _ in found):  # ``"$repo"`` (blind check 54, W4)
                said = _output(s, call.id)
                found = [(p, how) for f, how in found if (p := resolve_path(f, command, said))]
            made.update(
                (folder, how)
                for folder, how in found
                if folder not in made and not made_then_removed(call, folder, removed)
            )
    if not made:
        return []
    shown = ", ".join(f"{code(p)} ({how})" for p, how in list(made.items())[:most])
    return [f"Created by shell commands (a folder with its content): {shown}"]


def committed(s: Session, most: int, width: int) -> list[str]:
    """Section 3's line for the latest ``git commit`` that succeeded (blind check 26 N5,
    cx-personalize: the root commit of 404 files, yet "No file was created, edited or
    deleted"): its header, its size line and the first files it added."""
    for call in reversed(s.calls):
        command = call.command
        if command is None or "git commit" not in command or call.id in s.failed_calls:
            continue
        text = next((r.text for e in s.entries[call.index :] for r in e.results
                     if r.call_id == call.id), "")  # fmt: skip
        head = _COMMIT_HEAD_RE.search(text[:4_000])
        if head is None:
            continue
        said = [head.group(0).strip()]
        if (size := _COMMIT_SIZE_RE.search(text[:4_000])) is not None:
            said.append(size.group(1).strip())
        new = [m.group(1).strip() for m in _COMMIT_NEW_RE.finditer(text[:20_000])]
        if new:
            more = f", … ({len(new) - most} more)" if len(new) > most else ""
            said.append("added " + ", ".join(code(p) for p in new[:most]) + more)
        return [f"Committed by `git commit` (files recorded in git): {cut('; '.join(said), width)}"]
    return []
