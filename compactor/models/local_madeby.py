"""Which files the work made, as the resuming agent must see them (issue 28, blind check 22 N1):

* files a sub-agent (``Task``/``Agent`` calls, background agents' ``<task-notification>``)
  reports it created or wrote are changes of the session, "created by a sub-agent", in
  section 3 and among the files changed for the current request (:func:`add_agent_files`);
* files a sub-agent's report says it updated, modified or edited ("I've successfully updated
  … the file `…\\page.tsx`", a "Files modified:" list), background agents' reports arriving
  later included, are "edited by a sub-agent", never "Read, not changed" (blind check 30, W1);
* a ``Write`` whose result says the file "has been overwritten" replaced an existing file: it
  was written, not created (:func:`add_agent_files` too); so was a file a command's output says
  it created ("Created PATH") that an earlier read or listing showed;
* a sub-agent that only read (:func:`.local_readagents.reads_only`: asked to change nothing,
  seen writing nothing) made nothing, whatever its report lists: a reviewer's "Files
  Modified" names the branch's changes it looked at (blind check 69 W2);
* a deleted file under a hidden build folder or a lock/trace file (``rm -rf .next/trace``) is
  no deliverable of the request (:func:`request_files`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import Call, is_reading_call, programs
from compactor.facts.agentresults import blocked_report
from compactor.facts.shellwrap import inner_command
from compactor.facts.wrappedread import is_wrapped_read

from .local_agentreports import CUT_OFF, cut_off_targets, report_items
from .local_files import FileState
from .local_home import win_join, windows_rooted
from .local_jobfiles import BEING_WRITTEN
from .local_madelater import same_path
from .local_noise import normal_path
from .local_readagents import reads_only
from .local_reported import REPORTED
from .local_session import Session
from .local_writefix import same_file

__all__ = ["AGENT", "add_agent_files", "request_files"]

AGENT = "a sub-agent (its report says so)"
"""The tool :meth:`FileState.how` names for a file a sub-agent's report says it made."""
_AGENT_TOOLS = frozenset({"task", "agent"})
_HEAD = 700  # characters of a report where it says what it created
_MADE_RE = lazy_pattern(
    r"\b(?:ha(?:s|ve) been (?:created|written)|i (?:have )?(?:created|wrote)\b|"
    r"created (?:the )?(?:file|files)\b|written to|saved to)",
    re.IGNORECASE,
)
"""The agent's own report of what it made ("The file has been created at …", "I created the
file …"); not "X was created in 2023", which tells the past of a file it read."""
_EDITED_RE = lazy_pattern(
    r"\b(?:i(?:'ve| have)? (?:successfully |also )?(?:updated|modified|edited|changed|restyled)"
    r"|ha(?:s|ve) been (?:successfully )?(?:updated|modified|edited|restyled)"
    r"|^[\s*#-]*(?:updated|modified|edited)\b)",
    re.IGNORECASE | re.MULTILINE,
)
"""The agent's own report of a file it edited ("I've successfully updated … the file …", "The
file has been updated", a line "Updated `src/page.tsx`")."""
_LIST_RE = lazy_pattern(
    r"^[\s*#]*(?:files?|pages?) (?:modified|changed|updated|edited)[*\s]*:[*\s]*\n"
    r"((?:[ \t]*(?:[-*+]|\d+[.)])[^\n]*\n?)+)",
    re.IGNORECASE | re.MULTILINE,
)
"""A report's list of the files it changed ("Files modified:" then one item a line)."""
_REL_RE = lazy_pattern(r"(?<![\w`/\\.])((?:[\w.\[\]-]+[\\/])+[\w.\[\]-]+\.[A-Za-z0-9]{1,8})\b")
"""A relative path (``src/app/page.tsx``) in a list item or after "Updated"."""
_ITEM_RE = lazy_pattern(r"^(?:[\s*#-]*(?:updated|modified|edited)\b[^\n]*)", re.I | re.M)
_TAIL = 6_000  # characters of a report searched for its "Files modified:" list
_PATH_RE = lazy_pattern(
    r"`([^`\n]*[\\/][^`\n]*?\.[A-Za-z0-9]{1,8})`"
    r"|(?<![\w`])((?:[A-Za-z]:\\|/)[^\s`'\"<>()]+\.[A-Za-z0-9]{1,8})(?![\w`])"
)
"""A file path in a report: in backticks, or absolute, with a separator and an extension."""
_DONE_RE = lazy_pattern(r"<status>\s*completed\s*</status>", re.IGNORECASE)
_RESULT_RE = lazy_pattern(r"<result>(.*)", re.DOTALL)
_OVERWRITTEN = "has been overwritten"  # Claude Code's Write result for an existing file


def add_agent_files(s: Session) -> None:
    """Record the files sub-agents' reports say they created (module docstring) and mark a
    ``Write`` that overwrote an existing file as written."""
    _overwritten(s)
    agents = {c.id for c in s.calls if c.name.lower() in _AGENT_TOOLS}
    if not agents:
        return  # no sub-agent was started here: no report to read (a long chat stays cheap)
    writers = agents - {c.id for c in s.calls if c.id in agents and reads_only(c)}  # (69 W2)
    known = {normal_path(p) for p in s.files}
    polls = {c.id for c in s.calls if c.name == "TaskOutput"}  # a background agent's result
    for e in s.entries:
        if e.role != "user":
            continue
        reports = [r.text for r in e.results if r.call_id in writers] if e.results else []
        reports += [_polled(r.text) for r in e.results if r.call_id in polls] if polls else []
        notice = e.text.find("<task-notification>", 0, 200) >= 0  # no copy: a chat is long
        if notice and _DONE_RE.search(e.text[:600]):
            found = _RESULT_RE.search(e.text[:_TAIL])
            reports.append(found.group(1) if found is not None else "")
        for r in e.results if e.results else ():  # cut off mid-task (blind check 59, W6)
            if r.call_id in agents and (told := _told(s, r.call_id, r.text)):
                for path in told:
                    if normal_path(path) not in known:
                        known.add(normal_path(path))
                        s.files[path] = FileState(path, [CUT_OFF], tool=_CUT, last_index=e.index)
        for report in reports:
            if blocked_report(f"<t><result>{report[:_HEAD]}", "<t>"):
                continue  # it says it was denied: it changed nothing (row 592)
            made = _made(report)
            listed = [(p, a) for p, a, _ in report_items(report)]  # "1. Created `x`" (59 W6)
            for path, action in [*((p, "created") for p in made), *_edited(report, made), *listed]:
                if normal_path(path) not in known:
                    known.add(normal_path(path))
                    s.files[path] = FileState(path, [action], tool=AGENT, last_index=e.index)


_CUT = "a sub-agent cut off before it finished (its prompt told it to change it)"


def _told(s: Session, call_id: str, text: str) -> list[str]:
    """The files a sub-agent call's prompt told it to change when its result ``text`` says it
    was cut off (:func:`.local_agentreports.cut_off_targets`)."""
    call = next((c for c in s.calls if c.id == call_id), None)
    prompt = call.args.get("prompt") if call is not None else None
    return cut_off_targets(prompt, text) if isinstance(prompt, str) else []


def _polled(text: str) -> str:
    """The output of a ``TaskOutput`` poll that retrieved a completed sub-agent ('' for a
    shell job's or a running agent's: a build log's "updated 3 packages" is no report)."""
    head = text[:600]
    if "local_agent" not in head or _DONE_RE.search(head) is None:
        return ""
    at = text.find("<output>")
    return text[at + len("<output>") :].lstrip() if at >= 0 else ""


def _made(report: str) -> list[str]:
    """The files a sub-agent's report says it created or wrote (in its opening)."""
    head = report[:_HEAD]
    if not head or _MADE_RE.search(head) is None:
        return []
    found = (m.group(1) or m.group(2) for m in _PATH_RE.finditer(head))
    return list(dict.fromkeys(p.strip() for p in found if p and "*" not in p))


def _edited(report: str, made: list[str]) -> list[tuple[str, str]]:
    """The files a sub-agent's report says it updated or edited, each ``(path, "edited")``:
    those its opening names beside such a verb, and those of its "Files modified:" list."""
    head = report[:_HEAD]
    found: list[str] = []
    if head and _EDITED_RE.search(head) is not None:
        found += (m.group(1) or m.group(2) for m in _PATH_RE.finditer(head))
        for line in _ITEM_RE.findall(head):  # "Updated src/app/page.tsx"
            found += _REL_RE.findall(line)
    listed = _LIST_RE.search(report[:_TAIL])
    if listed is not None:
        for item in listed.group(1).splitlines():
            paths = [m.group(1) or m.group(2) for m in _PATH_RE.finditer(item)]
            found += paths or _REL_RE.findall(item)[:1]
    return [(p, "edited") for p in dict.fromkeys(p.strip() for p in found if p) if
            "*" not in p and p not in made]  # fmt: skip


def _overwritten(s: Session) -> None:
    made = [f for f in s.files.values() if f.actions and f.changed_at and _created(f.actions[0])]
    made = [f for f in made if f.tool != AGENT]
    shown, maybe = _shown_before(s, made) if made else ({}, {})
    for f in made:
        at, by = f.changed_at[0], f.actions[0].removeprefix("created")  # " by `x`'s script …"
        if 0 <= at < len(s.entries) and any(
            _OVERWRITTEN in r.text[:300] for r in s.entries[at].results
        ):
            f.actions[0] = "written" + by  # an existing file's whole content, not a new file
        elif shown.get(f.path, at) < at:  # read or listed before: it was there (blind 28 W7)
            f.actions[0] = "overwritten" + by
        elif maybe.get(f.path, at) < at:  # the same spelling, a directory unknown (check 34 W1)
            f.actions[0] = "written" + by


def _created(action: str) -> bool:
    """A new file's first action: "created", or a call's output saying it created the file
    (:data:`.local_reported.REPORTED`: blind check 40 W4)."""
    return action == "created" or action.startswith(REPORTED)


_TOKEN_RE = lazy_pattern(r"[^\s'\"`:;,()<>|]+")
_MISSING_RE = lazy_pattern(
    r"no such file|can(?:no|')t (?:access|open|read|stat)|does not exist|not found|ENOENT",
    re.IGNORECASE,
)
"""A read that found nothing: it shows the file was not there (blind check 31 W8)."""
_CONTENT_RE = lazy_pattern(
    r"(?:^|[;&|\n(\"']|\\n)\s*(?:sudo\s+)?(?:cat|sed|head|tail|nl|bat|less|more|awk|wc|stat|"
    r"Get-Content|type|jq|yq)\b[^;&|\n]*$"
)
"""The command segment before a path reads that file's content (``sed -n '1,20p' a.md``);
not a search (``find . -name a.md``, ``rg a.md``), whose arguments are a pattern."""
_READ_TOOLS = frozenset({"read", "view", "read_file", "view_file"})
_CONTENT_PROGRAMS = frozenset(
    {"cat", "sed", "head", "tail", "nl", "bat", "less", "more", "awk", "type", "get-content"}
)
"""Programs whose output is a file's content: a path in it (a document's code sample) is no
listing entry (blind check 34 W2)."""
_SURE, _MAYBE = 2, 1
_PATH_KEYS = ("file_path", "path", "filename", "notebook_path")


def _shown_before(s: Session, files: list[FileState]) -> tuple[dict[str, int], dict[str, int]]:
    """The entry where a successful read or listing first showed each of ``files`` existed
    (a ``cat``, ``sed -n``, ``Read`` of it that found it, or a ``find``/``ls`` output line
    naming it), for those it showed; then the same for those only a read or listing of the
    same relative spelling showed while the directory of the read or of the write is unknown.
    A failed read ("No such file"), a search naming it in its pattern, a path inside a read
    file's content or any other text naming it shows nothing (blind check 31 W8/W9, 34 W2).
    Each call's relative paths are resolved against the directory it ran in (its ``workdir``,
    a leading ``cd``, the recorded ``cwd``): a file of the same relative name in another
    folder is another file (blind check 34 W1)."""
    bases: dict[str, list[str]] = {}
    for f in files:
        bases.setdefault(f.path.replace("\\", "/").rsplit("/", 1)[-1], []).append(f.path)
    end = max(f.changed_at[0] for f in files)
    readers = {c.id: c for c in s.calls if c.index < end and c.id not in s.failed_calls}
    readers = {k: c for k, c in readers.items() if is_reading_call(c) or is_wrapped_read(c)}
    first: dict[str, int] = {}
    maybe: dict[str, int] = {}
    for e in s.entries[:end] if readers else ():
        for r in e.results:
            call = readers.get(r.call_id)
            if call is None:
                continue
            text = r.text[:20_000]
            where = s.dirs.get(call.id, "") or _windows_dir(call)
            for base in (b for b in bases if b in call.arguments or b in text):
                for path in bases[base]:
                    if path in first:
                        continue
                    how = _read_it(call, where, text, path) or _listed(call, where, text, path)
                    if how == _SURE:
                        first[path] = e.index
                    elif how == _MAYBE:
                        maybe.setdefault(path, e.index)
    return first, maybe


def _windows_dir(call: Call) -> str:
    """The Windows directory a call recorded (its ``workdir``, else its ``cwd``), in which its
    relative paths are, as a write's are (blind check 67 N1); "" for any other."""
    given = call.args.get("workdir")
    where = given if isinstance(given, str) and given[1:3] in (":\\", ":/") else call.cwd
    return where if where[1:3] in (":\\", ":/") else ""


def _absolute(path: str) -> bool:
    return path.startswith("/") or path[1:3] in (":\\", ":/")


def _norm(path: str) -> str:
    path = posixpath.normpath(path.replace("\\", "/"))
    return path.lower() if path[1:2] == ":" else path  # a Windows drive: any case


def _in(where: str, token: str) -> str:
    """``token`` resolved against the directory ``where`` (as written when either is not)."""
    if where[1:3] in (":\\", ":/"):  # a Windows directory (blind check 67 N1)
        return token if windows_rooted(token) else win_join(where, token)
    if not where.startswith("/") or _absolute(token) or token.startswith(("~", "$")):
        return token
    return posixpath.normpath(posixpath.join(where, token))


def _same_file(token: str, where: str, path: str) -> int:
    """Whether ``token``, in a call that ran in ``where`` ("" unknown), names the file ``path``:
    ``_SURE`` (the same absolute path, or the same relative spelling where no directory is
    known at all), ``_MAYBE`` (the same spelling, but only one side's directory is known), 0."""
    full = _in(where, token)
    if _absolute(full) and _absolute(path):
        return _SURE if _norm(full) == _norm(path) else 0
    if not same_path(full, path):
        return 0
    return _SURE if not _absolute(full) and not _absolute(path) else _MAYBE


def _read_it(call: Call, where: str, text: str, path: str) -> int:
    """Whether a call read ``path``'s content and found it (its output names no missing file):
    ``_SURE``, ``_MAYBE`` or 0 (:func:`_same_file`)."""
    if not text.strip() or _MISSING_RE.search(text[:2_000]) is not None:
        return 0
    if call.name.lower() in _READ_TOOLS:  # its path argument, whole (spaces kept)
        named = [v for k in _PATH_KEYS if isinstance(v := call.args.get(k), str) and v]
        if named:
            return max(_same_file(v, where, path) for v in named)
    arguments = inner_command(call) or call.arguments  # a wrapper's script (blind check 35 W2)
    best = 0
    for m in _TOKEN_RE.finditer(arguments):
        how = _same_file(m.group().strip("\\"), where, path)
        if how > best and (
            call.name.lower() in _READ_TOOLS
            or _CONTENT_RE.search(arguments, 0, m.start()) is not None
        ):
            best = how
    return best


def _listed(call: Call, where: str, text: str, path: str) -> int:
    """Whether a listing's output holds ``path`` as an entry: a line ending in its path, or in
    its bare name when the listing was of the file's own folder. The content a ``Read`` or a
    ``cat``/``sed -n`` printed is no listing."""
    if call.name.lower() in _READ_TOOLS:
        return 0
    command = inner_command(call)
    if command is not None and all(p in _CONTENT_PROGRAMS for p in programs(command)):
        return 0
    arguments = call.arguments
    norm = path.replace("\\", "/").lstrip("./")
    base = norm.rsplit("/", 1)[-1]
    folder = norm.rsplit("/", 1)[0] if "/" in norm else ""
    best = 0
    for line in text.splitlines():
        fields = line.split()
        if not fields or len(fields) > 10 or not fields[-1].endswith(base):
            continue
        entry = fields[-1]
        if "/" in entry.replace("\\", "/"):
            best = max(best, _same_file(entry, where, path))
        elif entry == base:
            best = max(best, _own_folder(arguments, where, path, folder))
        if best == _SURE:
            break
    return best


def _own_folder(arguments: str, where: str, path: str, folder: str) -> int:
    """Whether a listing (``arguments``, run in ``where``) was of ``path``'s own folder."""
    if where.startswith("/") and _absolute(path):
        own = _norm(posixpath.dirname(path.replace("\\", "/")))
        tokens = (_in(where, m.group()) for m in _TOKEN_RE.finditer(arguments))
        return _SURE if own == _norm(where) or any(_norm(t) == own for t in tokens) else 0
    if folder and folder.rsplit("/", 1)[-1] not in arguments:
        return 0
    return _SURE if not _absolute(path) and not where.startswith("/") else _MAYBE


_DEBRIS_RE = lazy_pattern(
    r"(?:^|[\\/])(?:\.next|\.nuxt|\.turbo|\.cache|\.parcel-cache|\.vite|\.svelte-kit|\.angular|"
    r"\.expo|\.gradle|\.pytest_cache|\.mypy_cache|\.ruff_cache|__pycache__)(?:[\\/]|$)"
    r"|\.pid$|(?:^|[\\/])(?:trace|LOCK|lockfile)$"
)
"""A path in a build tool's cache or output folder (``.next/trace``), or a lock, pid or trace
file; not a configuration folder (``~/.claude/skills/…``: deleting there is work), nor a
package lockfile (``yarn.lock``: removing it is a change of its own)."""


def request_files(files: Sequence[FileState]) -> list[str]:
    """The paths of ``files`` (changed for the current request) without deleted build debris:
    its deletion (``rm -rf .next/trace`` before a restart) made nothing the request asked for;
    section 3 and the call itself still show it. A file changed under two spellings (``~/.x``
    and ``/Users/u/.x``: :func:`.same_file`) is listed once (blind check 80 W1)."""
    once: list[FileState] = []
    for f in files:
        if not any(same_file(f.path, g.path) for g in once):
            once.append(f)
    return [
        f"{f.path} ({BEING_WRITTEN} by {f.tool.replace(' (', ', ').rstrip(')')})"
        if f.actions[-1] == BEING_WRITTEN
        else f"{f.path} (deleted)"  # gone now, not a file to build on (blind check 68 W6)
        if f.actions[-1] == "deleted"
        else f.path
        for f in once
        if not (f.actions[-1] == "deleted" and _DEBRIS_RE.search(f.path))
    ]  # a file a running job writes is no finished change (blind check 65 W3)
