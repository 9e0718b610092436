"""Files changed by a tool of an unknown harness, recognised by shape (issue 28, blind check 14).

A home-made agent called its own ``search_replace`` tool from inside a shell command (``python
-c "… execute('search_replace', {'command': 'replace', 'lines_range': '1-1', 'file_path':
'tools/x.py', 'snippet_path': '/tmp/s.txt'})"``) and overwrote line 1 of ``tools/x.py``; the
summary listed the file as "Read, not changed". :func:`embedded_changes` reads such a call by
its shape: an argument object (a dict or JSON literal in the command) with a path key and either
a write word in its ``command``/``action`` (write, replace, edit, insert, append, patch, create,
save, modify, update) or a field only a write has (content, replacement, new or old text, line
numbers, a snippet); a read word (read, view, cat, get, open, list, search, find, show) never
changes the file, and neither does a call whose result says it failed. A relative path is read
from the directory the command ``cd``'s into first."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import Call, clean_path, command_of

from .local_files import Change, editor_change, printed_back
from .local_scriptwrites import script_writes

if TYPE_CHECKING:
    from .local_session import Session

__all__ = ["READ_WORDS", "direct_change", "embedded_changes", "with_embedded"]

READ_WORDS = ("read", "view", "cat", "get", "open", "list", "search", "find", "show", "grep")
_WRITE_WORDS = ("write", "replace", "edit", "insert", "append", "patch", "create", "save")
_WRITE_WORDS_MORE = ("modify", "update", "overwrite", "put", "set")
_VERB_KEYS = ("command", "action", "operation", "op", "mode", "cmd")
_PATH_KEYS = ("file_path", "path", "filename", "file", "target_file", "filepath", "target")
_WRITE_FIELDS = lazy_pattern(
    r"^(?:content|contents|replacement|replace_with|new_?(?:text|string|str|content|code|lines?)"
    r"|old_?(?:text|string|str)|lines?(?:_?range)?|line_?(?:number|start|end)|start_line"
    r"|end_line|snippet(?:_path)?|text|insert_text|patch|diff)$"
)
_WORD_RE = lazy_pattern(r"\w{1,40}")
"""A command that is one word (a tool's own name, not a shell command)."""
_DICT_RE = lazy_pattern(r"\{[^{}]{1,4000}\}")
_PAIR_RE = lazy_pattern(
    r"""(['"])(\w{1,40})\1\s*:\s*(?:(['"])((?:(?!\3)[^\\\n]|\\.){0,2000})\3|[\w.\-]+)"""
)
_NAME_RE = lazy_pattern(r"""(['"])(\w{1,60})\1\s*,\s*$""")
_CD_RE = lazy_pattern(r"(?:^|[;&|]\s*)cd\s+(['\"]?)([^\s'\";&|]+)\1\s*(?:&&|;)")
_FAILED_RE = lazy_pattern(
    r"""(?i:['"]?success['"]?\s*[:=]\s*false|\btraceback\b|\bfailed\b|\bexception\b"""
    r"""|no such file|not found|permission denied|['"]?error['"]?\s*:\s*['"][^'"\s])"""
)


def _has(words: tuple[str, ...], text: str) -> bool:
    return any(w in text for w in words)


def _verb(args: dict[str, str], name: str) -> str | None:
    """``write``, ``read`` or None (unknown) for one argument object and its tool's name."""
    for key in _VERB_KEYS:
        value = args.get(key, "").lower()
        if value:
            if _has(READ_WORDS, value) and not _has(_WRITE_WORDS, value):
                return "read"
            if _has(_WRITE_WORDS + _WRITE_WORDS_MORE, value):
                return "write"
    if any(_WRITE_FIELDS.match(k) for k in args):
        return "write"
    lowered = name.lower()
    if _has(_WRITE_WORDS, lowered) and not _has(READ_WORDS, lowered):
        return "write"
    return None


def with_embedded(
    call: Call, result: str, found: list[Change], s: Session | None = None
) -> list[Change]:
    """``found`` (what :func:`.local_files.file_changes` read from ``call``) and the changes
    :func:`embedded_changes` and :func:`direct_change` find that it could not; an unquoted
    here-document's content as the call printed it back (:func:`.local_files.printed_back`);
    with the session ``s``, what the code the command runs writes (:mod:`.local_scriptwrites`)."""
    own = _own_changes(call, result, found)
    return own + script_writes(call, s, own) if s is not None else own


def _own_changes(call: Call, result: str, found: list[Change]) -> list[Change]:
    if found and any(c.expanded for c in found):
        found = [printed_back(c, result) for c in found]
    command = command_of(call)
    if command is not None and _WORD_RE.fullmatch(command.strip()) is None:
        return found + embedded_changes(call, result) if "{" in command else found
    if found:
        return found
    change = direct_change(call, result)
    return [change] if change is not None else []


def direct_change(call: Call, result: str) -> Change | None:
    """The file an unknown tool's own call changes: a path argument, and a write verb (its
    ``command`` argument, ``replace``, or its name, ``save_file``) or write fields; None for a
    read-shaped call or a result that says it failed."""
    raw = call.args
    path = next((v for k in _PATH_KEYS if isinstance(v := raw.get(k), str) and v), None)
    if path is None:
        return None  # (most calls: no string dict built)
    args = {k: v for k, v in raw.items() if isinstance(v, str)}
    if _verb(args, call.name) != "write" or clean_path(path) is None:
        return None
    if _FAILED_RE.search(_not_echoed(result[:4000], args)) is not None:
        return None
    known = editor_change(call, path)  # content, old/new text: what changed, as for Edit
    if known is not None and known.action != "deleted":
        return known
    verb = next((args[k] for k in _VERB_KEYS if args.get(k)), "")
    return Change(path, f"changed ({verb})" if verb else "changed")


def _not_echoed(result: str, args: dict[str, str]) -> str:
    """``result`` without the lines that echo the call's own text: an editor answers a create
    with a diff of the whole file, and a guide's "Troubleshooting: … failed" line in it is no
    failure of the call (blind check 74 W3: the recreated guide was called deleted)."""
    sent = {
        bare
        for value in args.values()
        if "\n" in value
        for ln in value.splitlines()
        if (bare := ln.strip())
    }
    if not sent:
        return result
    kept = (ln for ln in result.splitlines() if not _echoes(ln, sent))
    return "\n".join(kept)


def _echoes(line: str, sent: set[str]) -> bool:
    """Whether ``line`` is one of the ``sent`` lines as printed back: bare, as a diff's added
    line (``+text``) or numbered (``  12\ttext``)."""
    bare = line.strip()
    return (
        bare in sent
        or (line[:1] == "+" and line[1:].strip() in sent)
        or ("\t" in line and line.split("\t", 1)[1].strip() in sent)
    )


def embedded_changes(call: Call, result: str) -> list[Change]:
    """The files the argument objects inside ``call``'s shell command change (see the module
    doc); empty when its ``result`` says it failed or the command holds no such object."""
    command = command_of(call)
    if command is None or "{" not in command or not _has(_PATH_KEYS, command):
        return []
    if _FAILED_RE.search(result[:4000]) is not None:
        return []
    cd = _CD_RE.search(command)
    out: list[Change] = []
    for literal in _DICT_RE.finditer(command):
        args = {m.group(2): m.group(4) or "" for m in _PAIR_RE.finditer(literal.group(0))}
        path = next((args[k] for k in _PATH_KEYS if args.get(k)), None)
        if path is None or clean_path(path) is None:
            continue
        named = _NAME_RE.search(command[max(0, literal.start() - 80) : literal.start()])
        name = named.group(2) if named else ""
        if _verb(args, name) != "write":
            continue
        if cd is not None and not path.startswith(("/", "~")):
            path = posixpath.normpath(posixpath.join(cd.group(2), path))
        verb = next((args[k] for k in _VERB_KEYS if args.get(k)), "")
        how = f" ({verb})" if verb and verb != name else ""
        out.append(Change(path, f"changed by a {name or 'tool'} call{how} in a shell call"))
    return out
