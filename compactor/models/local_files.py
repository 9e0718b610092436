"""Which files a tool call created, edited or deleted, and with what (for the local summarizer).

:func:`file_changes` reads one tool call and returns its :class:`Change` records:

* editor tools by their arguments: a path (``file_path``, ``path``, ``filename``…) with full
  content (``content``, ``file_text``…) is a write; with ``old_string``/``new_string`` (and the
  ``old_str``/``new_str``, ``old``/``new``, ``search``/``replace`` spellings, ``edits`` lists) an
  edit; ``str_replace_editor``-style ``command`` arguments say which;
* ``apply_patch`` patches (Codex), also inside a shell command's here-document or a code-mode
  script's string literal;
* shell commands: ``> file`` / ``>> file`` redirections (with the here-document body as
  content), ``tee``, ``sed -i``, ``perl -pi``, ``touch``, ``rm``, ``mv``/``cp`` targets,
  ``install``/``dd of=``/``rsync`` destinations (:mod:`compactor.facts.destwrites`), and
  PowerShell's ``Set-Content``/``Add-Content``/``Out-File``/``New-Item``/``Remove-Item``;
* files a script inside a shell command writes (``python - <<'PY' … Path(p).write_text(…)``,
  ``open(p, 'w')``, ``fs.writeFileSync``): :data:`SCRIPT_CHANGE` (issue 28, blind check 10).

Files that only appear in a listing or a read are not changes.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from dataclasses import replace as with_fields

from compactor._util import lazy_pattern
from compactor.facts import Call, clean_path, command_of, cut, shell_words
from compactor.facts.converters import PATTERN_ACTION, converter_output, fill_assigned, is_pattern
from compactor.facts.destwrites import DEST_WRITERS, dest_writes
from compactor.facts.shellwrap import without_redirections
from compactor.facts.shellwrites import script_writes

from .local_chain import LINKED, links, remade, settled
from .local_heredoc import EXPANDED_NOTE, as_printed, heredoc_text
from .local_home import tilde
from .local_itemvalues import item_values
from .local_keylines import key_lines
from .local_noise import glob_name, is_shell_fragment
from .local_text import code_line

__all__ = [
    "REMOVED_AND_REGENERATED",
    "SCRIPT_CHANGE",
    "SHOWN_PRESENT",
    "Change",
    "FileState",
    "editor_change",
    "file_changes",
    "file_item",
    "key_lines",
    "printed_back",
    "regenerated",
]

_PATH_KEYS = ("file_path", "path", "filename", "file", "notebook_path", "target_file", "filepath")
_CONTENT_KEYS = ("content", "file_text", "contents", "new_source", "new_content", "code")
_EDIT_PAIRS = (
    ("old_string", "new_string"),
    ("old_str", "new_str"),
    ("old", "new"),
    ("search", "replace"),
    ("find", "replace"),
)
_WRITE_NAMES = ("write", "create")
_EDIT_NAMES = ("edit", "replace", "insert", "patch", "update", "modify", "append")
_DELETE_NAMES = ("delete", "remove")
_PATCH_FILE_RE = lazy_pattern(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_MOVE_RE = lazy_pattern(r"^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_HEREDOC_RE = lazy_pattern(
    r"<<-?[ \t]*(['\"]?)\\?(\w[\w.-]*)\1([^\n]*)\n(.*?)(?:\n[ \t]*\2[ \t]*(?=\n|$)|\Z)", re.DOTALL
)
"""A here-document: ``<<'EOF'``, the rest of its line, its body up to the ``EOF`` line."""
_HEREDOC_WRITER_RE = lazy_pattern(r"(?:^|[\s;&|(])(cat|tee)\b([^\n]*)$")
_REDIRECT_RE = lazy_pattern(r"(?<![0-9&<>=])(>>?)(?!=)\s*([^\s<>|;&()]+)")  # not => or >=
_PATCH_BODY_RE = lazy_pattern(r"\*\*\* Begin Patch.*?(?:\*\*\* End Patch|\Z)", re.DOTALL)
_PS_WRITE_RE = lazy_pattern(
    r"\b(Set-Content|Add-Content|Out-File|New-Item|Remove-Item)\b[^|;\n]*?"
    r"(?:-(?:Path|FilePath|LiteralPath)\s+)?['\"]?([^\s'\";|]+\.[A-Za-z0-9]{1,8})['\"]?",
    re.IGNORECASE,
)
_PS_READ_RE = lazy_pattern(r"\b(?:Get-Content|gc|cat|type)\b", re.IGNORECASE)
_DOTNET_WRITE_RE = lazy_pattern(
    r"\[(?:System\.)?IO\.File\]::(WriteAll(?:Text|Lines|Bytes)|AppendAll(?:Text|Lines))\(\s*"
    r"['\"]([^'\"\n]+\.[A-Za-z0-9]{1,8})['\"]",
    re.IGNORECASE,
)
"""A .NET write in PowerShell: ``[IO.File]::WriteAllText('notes.md', $text)``."""
_PERL_IN_PLACE_RE = lazy_pattern(r"-[a-hj-zA-Z0]*i(?:\.?\w+)?$")
SHOWN_PRESENT = "shown present by a later result"
"""The last action of a deleted file a later result lists (``git status``: `` M file``)."""
SCRIPT_CHANGE = "changed by a script in a shell call"
"""The action of a file a script inside a shell command wrote (:func:`script_writes`)."""
_SEGMENT_RE = lazy_pattern(r"&&|\|\||[;|\n]")
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "&1", "&2", "-"})


@dataclass(frozen=True, slots=True)
class Change:
    """One change to one file by one call."""

    path: str
    action: str
    """``created``, ``written`` (full content of an existing or unknown file), ``edited`` or
    ``deleted``."""
    content: str | None = None
    """The full new content, when the call wrote all of it."""
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    replace: tuple[str, str] | None = None
    """(old, new) text of an exact replacement, to apply to known content."""
    more: tuple[tuple[str, str], ...] = ()  # the next replacements of a multi-edit, in order
    expanded: bool = False
    """The content is an unquoted here-document's body whose ``$(…)``/``$VAR`` the shell
    expanded (:mod:`.local_heredoc`): not the file's literal text."""


@dataclass(slots=True)
class FileState:
    """Everything the transcript did to one file, up to its latest version."""

    path: str
    actions: list[str] = field(default_factory=list)
    content: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changes: int = 0
    tool: str = ""
    last_index: int = 0
    lost: str = ""
    """How a later check found its change lost (:mod:`.local_lost`); empty when none did."""
    lost_at: int = -1
    changed_at: list[int] = field(default_factory=list)
    """The entry index of each change's result (read by :mod:`.local_lost`)."""
    expanded: bool = False  # its content has expansions the shell made (Change.expanded)
    older: bool = False  # a later change not shown (a script's) came after ``added``/``removed``
    history: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    """Each change's tool, added and removed lines, in order (:mod:`.local_changelog`)."""

    def how(self, times: str = "") -> str:
        """``created, then edited by Edit``; a script's change names the shell tool after it;
        ``times`` (``, 2 changes``) before a loss found later (``then found lost: …``)."""
        acts, tail = self.actions, ""
        if len(acts) > 1 and (acts[-1] == SHOWN_PRESENT or acts[-1].startswith((",", " "))):
            acts, tail = acts[:-1], acts[-1] if acts[-1][0] in ", " else f", then {acts[-1]}"
        by = f", {self.tool}" if " by " in acts[-1] else f" by {self.tool}"  # a script's change
        lost = f", then found lost: {self.lost}; not in the file now" if self.lost else ""
        return ", then ".join(acts) + by + times + tail + lost

    def apply(self, change: Change, tool: str, index: int) -> None:
        """Record ``change`` as the latest one."""
        action = change.action
        if action == "written" and not self.actions:
            action = "created"
        if not self.actions or self.actions[-1] != action:
            self.actions.append(action)
        self.changes += 1
        self.changed_at.append(index)
        self.history.append((tool, change.added, change.removed))
        self.tool = tool
        self.last_index = index
        if change.content is not None:
            self.content, self.added, self.removed = change.content, (), ()
            self.expanded = change.expanded
            return
        if change.added or change.removed:
            self.added, self.removed, self.older = change.added, change.removed, False
        else:  # blind check 41 W7: the diff shown is no longer the latest change
            self.older = bool(self.added or self.removed)
        if self.content is not None:
            old, new = change.replace or ("", "")
            if old and old in self.content:
                self.content = self.content.replace(old, new, 1)
                for old, new in change.more:  # each edit of a multi-edit on the last one's result
                    if self.content is not None and old and old in self.content:
                        self.content = self.content.replace(old, new, 1)
                    else:
                        self.content = None
            elif change.added and not change.removed and action == "edited" and not old:
                self.content = self.content + "\n" + "\n".join(change.added)
            else:
                self.content = None  # changed in a way this reader cannot replay
        self.expanded = change.expanded or (self.expanded and self.content is not None)
        if action == "deleted":
            self.content, self.added, self.removed, self.expanded = None, (), (), False


def _path_arg(call: Call) -> str | None:
    args = call.args
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _diff_lines(old: str, new: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    old_lines = [(ln, bare) for ln in old.splitlines() if (bare := ln.strip())]
    new_lines = [(ln, bare) for ln in new.splitlines() if (bare := ln.strip())]
    old_set = {bare for _, bare in old_lines}  # (each line stripped once: test_speed_dryfix)
    new_set = {bare for _, bare in new_lines}
    added = tuple(ln for ln, bare in new_lines if bare not in old_set)
    removed = tuple(ln for ln, bare in old_lines if bare not in new_set)
    return added, removed


def editor_change(call: Call, path: str) -> Change | None:
    args = call.args
    name = call.name.lower()
    command = args.get("command")
    command = command.lower() if isinstance(command, str) else ""
    for key in _CONTENT_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            action = "created" if "create" in (name + command) else "written"
            return Change(path, action, content=value)
    for old_key, new_key in _EDIT_PAIRS:
        old, new = args.get(old_key), args.get(new_key)
        if isinstance(new, str) and isinstance(old, str | None):
            added, removed = _diff_lines(old or "", new)
            return Change(path, "edited", added=added, removed=removed, replace=(old or "", new))
    edits = args.get("edits")
    if isinstance(edits, list):
        added_all: list[str] = []
        removed_all: list[str] = []
        pairs: list[tuple[str, str]] = []
        for edit in edits:
            if isinstance(edit, dict):
                old = edit.get("old_string", edit.get("old_str", ""))
                new = edit.get("new_string", edit.get("new_str", ""))
                if isinstance(old, str) and isinstance(new, str):
                    pairs.append((old, new))
                    added, removed = _diff_lines(old, new)
                    added_all.extend(added)
                    removed_all.extend(removed)
        first = pairs[0] if pairs else None
        added, removed = tuple(added_all), tuple(removed_all)
        return Change(
            path, "edited", added=added, removed=removed, replace=first, more=(*pairs[1:],)
        )
    text = args.get("text") or args.get("insert_text") or args.get("new_str")
    if any(n in command for n in (*_EDIT_NAMES, *_DELETE_NAMES, *_WRITE_NAMES)):
        name = command  # ``str_replace_editor``'s ``create`` creates (blind check 74 W3)
    if any(n in name or n in command for n in _EDIT_NAMES):
        lines = tuple(ln for ln in text.splitlines() if ln.strip()) if isinstance(text, str) else ()
        return Change(path, "edited", added=lines)
    if any(n in name or n in command for n in _DELETE_NAMES):
        return Change(path, "deleted")
    if any(n in name or n in command for n in _WRITE_NAMES):
        content = text if isinstance(text, str) else None
        return Change(path, "created", content=content)
    return None


_PATCH_LITERAL_RE = lazy_pattern(r'"(\*\*\* Begin Patch(?:[^"\\]|\\.)*?\*\*\* End Patch(?:\\n)?)"')
"""An ``apply_patch`` text written as a string literal in code (``const patch = "*** Begin …"``)."""


def _patch_changes(patch: str) -> list[Change]:
    """The changes of an ``*** Begin Patch`` text (Codex ``apply_patch``)."""
    out: list[Change] = []
    heads = list(_PATCH_FILE_RE.finditer(patch))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(patch)
        body = patch[head.end() : end]
        kind, path = head.group(1), head.group(2).strip()
        plus = [ln[1:] for ln in body.splitlines() if ln.startswith("+")]
        minus = [ln[1:] for ln in body.splitlines() if ln.startswith("-")]
        if kind == "Add":
            out.append(Change(path, "created", content="\n".join(plus)))
        elif kind == "Delete":
            out.append(Change(path, "deleted"))
        else:
            move = _PATCH_MOVE_RE.search(body)
            added, removed = _diff_lines("\n".join(minus), "\n".join(plus))
            target = move.group(1).strip() if move else path
            if move:
                out.append(Change(path, "deleted"))
            out.append(Change(target, "edited", added=added, removed=removed))
    return out


def _target(word: str) -> str | None:
    word = tilde(word.strip("'\""))  # ``$HOME/x`` is ``~/x`` (blind check 46 W2)
    if not word or word in _NOT_FILES or word.startswith(("$", "&", "-")):
        return None
    if "$(" in word or word.endswith("$"):  # ``> data/$(basename $URL)``: the shell names it
        return None
    if is_shell_fragment(word):  # ``2>/dev/null``, ``>&2``: a redirection, not a file
        return None
    return clean_path(word) or (word if "/" in word or "." in word.strip(".") else None)


def _heredoc_changes(command: str) -> tuple[list[Change], str]:
    """Files written by ``cat > f <<EOF`` / ``tee f <<EOF``, and the command without the
    here-document bodies (so code inside them is not read as shell)."""
    out: list[Change] = []
    kept: list[str] = []
    pos = 0
    for match in _HEREDOC_RE.finditer(command):
        line_start = command.rfind("\n", 0, match.start()) + 1
        before = command[line_start : match.start()]
        rest, body = match.group(3), match.group(4)
        kept.append(command[pos : match.start()] + "<<" + match.group(2) + rest + "\n")
        pos = match.end()
        writer = _HEREDOC_WRITER_RE.search(before)
        if writer is None:
            continue
        redirect = _REDIRECT_RE.search(writer.group(2) + " " + rest)
        words = [w for w in shell_words(writer.group(2)) if not w.startswith("-")]
        if redirect is not None:
            op, path = redirect.group(1), _target(redirect.group(2))
        elif writer.group(1) == "tee" and words:
            op, path = (">>" if "-a" in writer.group(2) else ">"), _target(words[0])
        else:
            continue
        if path is None:
            continue
        quoted = match.group(1) or command[match.start(2) - 1] == "\\"  # 'EOF', "EOF", \EOF
        text, expanded = heredoc_text(body) if not quoted else (body, False)
        if op == ">>":
            added = tuple(ln for ln in text.splitlines() if ln)
            out.append(Change(path, "edited", added=added, expanded=expanded))
        else:
            out.append(Change(path, "written", content=text, expanded=expanded))
    kept.append(command[pos:])
    return out, "".join(kept)


_CACHED_COMMAND = 2_000
"""Commands up to this length are read once per process (agents repeat their commands)."""


def _shell_changes(command: str) -> list[Change]:
    if len(command) <= _CACHED_COMMAND:
        return list(_shell_changes_cached(command))  # Change is frozen: sharing is safe
    return _read_shell_changes(command)


@functools.lru_cache(maxsize=4096)
def _shell_changes_cached(command: str) -> tuple[Change, ...]:
    return tuple(_read_shell_changes(command))


def _quoted(command: str) -> list[tuple[int, int]]:
    """The spans of the command's closed ``'…'`` and ``"…"`` strings (a quote never closed is
    not one): a ``>`` or ``;`` inside them is code (``node -e "… k => k.trim()"``, a sed script
    ``'s/a/b/; s/c/d/'``), not the shell's."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (start := _QUOTE_RE.search(command, pos)) is not None:
        quote = start.group()
        end = command.find(quote, start.end())
        while quote == '"' and end > 0 and command[end - 1] == "\\":
            end = command.find(quote, end + 1)
        if end < 0:
            pos = start.end()
            continue
        spans.append((start.start(), end + 1))
        pos = end + 1
    return spans


_QUOTE_RE = lazy_pattern("['\"]")


def _outside(spans: list[tuple[int, int]], pos: int) -> bool:
    return not any(a < pos < b for a, b in spans)


def _segments(command: str, spans: list[tuple[int, int]]) -> list[str]:
    """The command split at ``;``, ``&&``, ``||``, ``|`` and line ends outside its strings."""
    if not spans:
        return _SEGMENT_RE.split(command)
    out, pos = [], 0
    for m in _SEGMENT_RE.finditer(command):
        if _outside(spans, m.start()):
            out.append(command[pos : m.start()])
            pos = m.end()
    return [*out, command[pos:]]


def _read_shell_changes(command: str) -> list[Change]:
    out = [Change(p, SCRIPT_CHANGE) for p in script_writes(command)]  # `python - <<'PY' …`
    if "*** Begin Patch" in command:
        out.extend(_patch_changes(command))
        command = _PATCH_BODY_RE.sub(" ", command)  # its text is data, not shell (blind 36)
    if "<<" in command:
        found, command = _heredoc_changes(command)
        out.extend(found)
    if "\\\n" in command:  # a line continued by a backslash is one line to the shell
        command = command.replace("\\\n", " ")
    done = {c.path for c in out}
    spans = _quoted(command) if "'" in command or '"' in command else []
    if ">" in command:
        for match in _REDIRECT_RE.finditer(command):
            if spans and not _outside(spans, match.start()):
                continue
            path = _target(match.group(2))
            if path is not None and _output_log(path, command[: match.start()]):
                continue  # a log of the command's output, not a deliverable (blind check 21)
            if path is not None and path not in done:
                out.append(Change(path, "edited" if match.group(1) == ">>" else "written"))
                done.add(path)
    for segment in (segments := _segments(command, spans)):
        words = without_redirections(shell_words(segment.strip()))
        if not words:
            continue
        prog, rest = words[0].rsplit("/", 1)[-1], [w for w in words[1:] if not w.startswith("-")]
        if prog in ("rm", "unlink"):
            out.extend(Change(p, "deleted") for w in rest if (p := _target(w)))
        elif made := regenerated(words):  # ``rm package-lock.json && npm install`` (blind 13)
            label, files = made
            out = [
                Change(c.path, f"{REMOVED_AND_REGENERATED} `{label}`")
                if c.action == "deleted" and c.path.replace("\\", "/").rsplit("/", 1)[-1] in files
                else c
                for c in out
            ]
        elif prog == "tee" and _piped_into(command, segment):
            out.extend(
                Change(p, "written")
                for w in rest
                if (p := _target(w)) and p not in done and not _output_log(p, "")
            )
        elif prog in ("touch", "tee"):
            out.extend(Change(p, "written") for w in rest if (p := _target(w)) and p not in done)
        elif prog in ("sed", "perl") and _in_place(words) and len(rest) >= 2:
            out.extend(Change(p, "edited") for w in rest[1:] if (p := _target(w)))
        elif prog in _DOWNLOADERS and (p := _download_target(words)):  # blind 17
            out.append(Change(p, "written"))
        elif made_by := converter_output(words):  # ffmpeg/magick/cwebp's output (blind 25)
            p = fill_assigned(made_by[0], command)
            out.append(Change(p, PATTERN_ACTION if is_pattern(p) else "written"))
        elif prog in DEST_WRITERS:  # install -m 600 SRC DEST, dd of=, rsync (blind 28 W4)
            out.extend(Change(p, "written") for w in dest_writes(words) if (p := _target(w)))
        elif prog == "ln":  # ``ln -s T L`` makes the link L (blind check 52 W10)
            out.extend(Change(p, LINKED + t) for w, t in links(words) if (p := _target(w)))
        elif prog in ("mv", "cp") and len(rest) >= 2 and (p := _target(rest[-1])):
            out.append(Change(p, "written"))
            if prog == "mv":
                out.extend(Change(q, "deleted") for w in rest[:-1] if (q := _target(w)))
    gone = {c.path for c in out if c.action == "deleted"}
    if gone and len(segments) > 1 and (back := remade(segments, gone, _target)):
        out = settled(out, back)  # ``rm -rf X && mkdir -p X``: the last effect decides
    if "-" in command:
        for match in _PS_WRITE_RE.finditer(command):
            verb, path = match.group(1).lower(), match.group(2)
            if clean_path(path) is None:
                continue
            action = {"add-content": "edited", "remove-item": "deleted"}.get(verb, "written")
            if action == "written" and _read_first(command[: match.start()], path):
                action = "edited"  # `(Get-Content X) -replace … | Set-Content X` (blind 35 W2)
            out.append(Change(path, action))
    if "::" in command:  # [IO.File]::WriteAllText('X', …)
        for match in _DOTNET_WRITE_RE.finditer(command):
            if clean_path(path := match.group(2)) is not None:
                out.append(
                    Change(path, "edited" if "append" in match.group(1).lower() else "written")
                )
    return out


def _read_first(before: str, path: str) -> bool:
    """Whether a PowerShell write's command read the same file before it (a read-modify-write:
    the file was there)."""
    return path in before and _PS_READ_RE.search(before) is not None


_TEMP_DIRS = ("/tmp/", "/var/tmp/", "/private/tmp/", "$TMPDIR/", "${TMPDIR}/")
_LOG_SUFFIXES = (".log", ".txt", ".out", ".output")
_CONTENT_WRITERS = frozenset({"echo", "printf", "cat", "jq", "base64", "envsubst"})
"""Programs whose output is content written on purpose (``echo x > f``), not a run's log."""
_LAST_STEP_RE = lazy_pattern(r"(?:&&|\|\||;|\n|\|)\s*")


def _output_log(path: str, before: str) -> bool:
    """A file that keeps a command's output for reading it later (``… | tee /tmp/run.txt``,
    ``npm test > /tmp/test.log 2>&1``): under a temp folder with a log-like name, or a
    ``.log`` file; for a redirect (``before``: the command up to it), only when the program
    writing it is not one that prints content (``echo``, ``cat``, ``printf``)."""
    low = path.lower()
    temp = low.startswith(_TEMP_DIRS) and (low.endswith(_LOG_SUFFIXES) or "." not in low[-8:])
    if not (temp or low.endswith(".log")):
        return False
    words = _LAST_STEP_RE.split(before)[-1].split() if before else []
    return not words or words[0].rsplit("/", 1)[-1] not in _CONTENT_WRITERS


def _piped_into(command: str, segment: str) -> bool:
    """``tee`` takes a command's output through a pipe (``cmd | tee f``)."""
    at = command.find(segment)
    return (
        at > 0 and command[:at].rstrip().endswith("|") and not command[:at].rstrip().endswith("||")
    )


_DOWNLOADERS = frozenset({"curl", "wget", "yt-dlp", "youtube-dl"})
_OUTPUT_FLAGS = frozenset({"-o", "--output", "-O", "--output-document"})
"""The options naming the file a download writes (curl's bare ``-O`` takes no value)."""


def _download_target(words: list[str]) -> str | None:
    """The file ``curl -o F``/``wget -O F``/``yt-dlp -o F`` writes (``-qO F``, ``--output=F``
    too); none for standard output (``-O-``), ``/dev/null`` or a name template (``%(title)s``)."""
    prog = words[0].rsplit("/", 1)[-1]
    for i, word in enumerate(words[1:], 1):
        value: str | None = None
        if word.startswith("--output") and "=" in word:
            flag, value = word.split("=", 1)
            if flag not in _OUTPUT_FLAGS:
                continue
        elif word in _OUTPUT_FLAGS or (
            word.startswith("-") and not word.startswith("--") and word[-1] in "oO"
        ):
            if prog != "wget" and word.endswith("O"):
                continue  # curl -O: the remote name; yt-dlp -O: --print
            value = words[i + 1] if i + 1 < len(words) else None
        elif re.fullmatch(r"-[a-zA-Z]*O[^-\s].*", word) and prog == "wget":
            value = word[word.index("O") + 1 :]
        if value is not None:
            if "%(" in value or value == "-":
                return None
            return _target(value)
    return None


REMOVED_AND_REGENERATED = "removed and regenerated by"
"""The action of a file a command removed and a later part of it wrote again (a lock file)."""
_REGENERATORS: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (
    ("npm", frozenset({"install", "i", "update", "up"}), frozenset({"package-lock.json"})),
    ("yarn", frozenset({"", "install", "upgrade"}), frozenset({"yarn.lock"})),
    ("pnpm", frozenset({"install", "i", "update", "up"}), frozenset({"pnpm-lock.yaml"})),
    ("bun", frozenset({"install", "i", "update"}), frozenset({"bun.lock", "bun.lockb"})),
    ("poetry", frozenset({"lock", "install", "update"}), frozenset({"poetry.lock"})),
    ("uv", frozenset({"lock", "sync"}), frozenset({"uv.lock"})),
    ("pipenv", frozenset({"lock", "install"}), frozenset({"Pipfile.lock"})),
    (
        "cargo",
        frozenset({"generate-lockfile", "update", "build", "check"}),
        frozenset({"Cargo.lock"}),
    ),
    ("go", frozenset({"mod tidy", "mod download", "get"}), frozenset({"go.sum"})),
    ("bundle", frozenset({"", "install", "lock", "update"}), frozenset({"Gemfile.lock"})),
    ("composer", frozenset({"install", "update"}), frozenset({"composer.lock"})),
)
"""Commands that write a lock file again (program, subcommands, the files they write)."""


def regenerated(words: list[str]) -> tuple[str, frozenset[str]] | None:
    """The command ``words`` (as written, without its options) and the lock files it writes
    again (``npm install``: package-lock.json; ``go mod tidy``: go.sum); None for any other."""
    prog = words[0].rsplit("/", 1)[-1]
    subs = [w for w in words[1:3] if not w.startswith("-")]
    for name, known, files in _REGENERATORS:
        if prog == name:
            for sub in (" ".join(subs[:2]), subs[0] if subs else ""):
                if sub in known:
                    return " ".join([prog, *sub.split()]), files
    return None


def _in_place(words: list[str]) -> bool:
    """``sed -i``, ``perl -pi -e`` / ``perl -i.bak``: an in-place edit of the files named."""
    if words[0].rsplit("/", 1)[-1] == "sed":
        return any(w.startswith("-i") for w in words[1:])
    return any(_PERL_IN_PLACE_RE.match(w) is not None for w in words[1:])


def file_changes(call: Call, open_file: str | None = None) -> list[Change]:
    """The file changes ``call`` makes (``open_file``: the file an editor without a path
    argument works on, as SWE-agent's ``edit`` and ``insert`` do)."""
    name = call.name.lower()
    if "apply_patch" in name or call.arguments.lstrip().startswith("*** Begin Patch"):
        patch = call.arguments
        for key in ("input", "patch", "diff"):
            value = call.args.get(key)
            if isinstance(value, str):
                patch = value
        return _patch_changes(patch)
    command = command_of(call)
    if command is not None:
        return _shell_changes(command)
    if "*** Begin Patch" in call.arguments:  # a patch in a script's string (Codex code-mode)
        literal = _PATCH_LITERAL_RE.search(call.arguments)
        if literal is not None:
            try:
                return _patch_changes(json.loads(f'"{literal.group(1)}"'))
            except ValueError:
                return _patch_changes(literal.group(1).replace("\\n", "\n"))
    path = _path_arg(call)
    if path is None:
        if open_file is None or not any(n in name for n in (*_EDIT_NAMES, *_WRITE_NAMES)):
            return []
        path = open_file
    change = editor_change(call, path)
    return [change] if change is not None else []


_LATEST = ("latest change", "an earlier change (the later one, by a script, is not shown)")


def file_item(f: FileState, width: int, code_lines: int) -> list[str]:
    """Section 3's lines for one changed file (moved from :mod:`compactor.models.local`): how it
    changed, its latest content's key lines or its latest change (the lost one, when a later
    check found it lost: :mod:`.local_lost`)."""
    times = f", {f.changes} changes" if f.changes > 1 else ""
    items = [f"{glob_name(f.path)} ({f.how(times)})"]
    if f.content is not None:
        shown = key_lines(f.content, code_lines)
        whole = len(shown) >= len([ln for ln in f.content.splitlines() if ln.strip()])
        title = "content" if whole else "latest content (key lines)"
        items.append(f"  {title} {EXPANDED_NOTE}:" if f.expanded else f"  {title}:")
        items.extend("      " + code_line(ln, width) for ln in shown)
    if f.added or f.removed:
        room = code_lines if f.content is None else max(2, code_lines // 2)
        change = [f"+ {ln.strip()}" for ln in f.added[:room]]
        change += [f"- {ln.strip()}" for ln in f.removed[: max(1, min(room - len(change), 3))]]
        title = "the lost change (not in the file now)" if f.lost else _LATEST[f.older]
        note = f" {EXPANDED_NOTE}" if f.expanded and f.content is None else ""
        items.append(f"  {title}{note}:")
        items.extend("      " + cut(ln, width) for ln in change)
        if values := item_values(f.added, room, width):  # estimates past the cut (66 N3)
            items.append(f"    {values}")
    return items


def printed_back(change: Change, printed: str) -> Change:
    """``change`` with the content its call printed back (``cat F`` after an unquoted
    here-document: :func:`.local_heredoc.as_printed`) when it is such a change and did."""
    if not change.expanded or change.content is None:
        return change
    text = as_printed(change.content, printed)
    return change if text is None else with_fields(change, content=text, expanded=False)


def omitted_files(files: list[FileState], most: int) -> str:
    """Section 3's line for the changed files shown without their content when there are too
    many: each named with how it changed, at most ``most`` (blind check 47 N2: "16 more changed
    files omitted" hid the feature's source files from a resuming agent)."""
    named = [f"{glob_name(f.path)} ({cut(f.how(''), 60)})" for f in files[:most]]
    more = f"; and {len(files) - most} more" if len(files) > most else ""
    return f"… {len(files)} more changed files, named only: {', '.join(named)}{more}"
