"""Noise the embedded summary leaves out (issue 28 point 6, blind check 10): the same request
quoted in every section, re-sent user messages, paths compared by spelling, pasted dependency
paths, shell fragments taken for files, a sub-agent's usage footer shown as its result."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from itertools import islice, repeat

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line
from compactor.facts.noise import CLI_COMMANDS, user_shell

from .local_text import slash_command

LOCAL_COMMANDS = CLI_COMMANDS  # never a request (``/plan`` alone only switches plan mode)
_TYPED_COMMAND_RE = lazy_pattern(r"/[a-z][a-z\-]*(?:[ \t][^\n]{0,150})?")


def local_command(text: str) -> str | None:
    """What the user did in the CLI itself, never a request: a settings command (``/model
    opus``, as markup or typed) as ``/name args``, a ``!`` shell command as "the user ran `cmd`
    themselves", "" for that command's echo (blind check 12); None for other texts."""
    if (shell := user_shell(text)) is not None:
        return shell
    command = slash_command(text)
    if command is None and _TYPED_COMMAND_RE.fullmatch(stripped := text.strip()):
        command = one_line(stripped)
    if command is not None and (command.split()[0] in LOCAL_COMMANDS or command == "/plan"):
        return command
    return None


def local_note(command: str) -> str:
    """The steps' note for :func:`local_command`'s ``command``."""
    if command.startswith("/"):
        return f"User ran {command} (handled by the CLI)."
    return f"{command[0].upper()}{command[1:]}."


def normal_path(text: str) -> str:
    """``text`` with paths spelt one way: lower case, ``/`` separators (two C-speed passes, no
    regex: it runs over every call's arguments once)."""
    return text.lower().replace("\\", "/")


def _forms(path: str) -> list[str]:
    p = normal_path(path)
    forms = [p, p.lstrip("~/")]
    if len(p) > 3 and p[1:3] == ":/" and p[0].isalpha():
        forms.append(f"/{p[0]}/{p[3:]}")
    elif len(p) > 3 and p[0] == "/" and p[2] == "/" and p[1].isalpha():
        forms.append(f"{p[1]}:/{p[3:]}")
    return [f for f in forms if f]


def path_in(path: str, said: str | set[str]) -> bool:
    """Whether ``path`` is in ``said`` (a text or a set of paths, already
    :func:`normal_path`), however it is spelt: ``E:\\AI\\AGENTS.md``, ``e:/ai/agents.md``
    and Git Bash's ``/e/AI/AGENTS.md`` are one."""
    return any(f in said for f in _forms(path))


_DEPENDENCY_DIRS = ("/node_modules/", "/site-packages/", "/.venv/", "/vendor/bundle/")


def is_pasted_dependency(path: str) -> bool:
    """A path inside an installed dependency (``…/node_modules/browserslist/cli.js``): in a
    user's message it comes from pasted tool output (a ``find``), not a file of the work."""
    p = path.replace("\\", "/")
    return any(d in p for d in _DEPENDENCY_DIRS) or p.startswith(
        tuple(d[1:] for d in _DEPENDENCY_DIRS)
    )


def pasted_listing(text: str) -> set[str]:
    """The paths of ``text`` that are tool output the user pasted: a path inside an installed
    dependency (:func:`is_pasted_dependency`), and, when there is one, every path alone on its
    line (the rest of the ``find`` listing it came from)."""
    if "node_modules" not in text and "-packages/" not in text and "/vendor/" not in text:
        return set()
    lines = [ln.strip() for ln in text.splitlines()]
    bare = [ln for ln in lines if ln and " " not in ln and ("/" in ln or "\\" in ln)]
    if not any(is_pasted_dependency(ln) for ln in bare):
        return set()
    return set(bare)


def is_shell_fragment(word: str) -> bool:
    """A shell word that is no file: a redirection (``2>/dev/null``, ``>&2``), a device."""
    w = word.strip("\"'")
    return not w or w[0] in "<>&|" or (w[0].isdigit() and ">" in w[:3]) or w.startswith("/dev/")


_ROUTE_SEGMENT_RE = lazy_pattern(
    r"(?:^|(?<=[/\\]))\[{1,2}(?:\.\.\.)?[A-Za-z_]\w*\]{1,2}(?=$|[/\\.])"
)
"""A bracketed name that is a whole path segment: a web framework's dynamic route folder or
file (``app/members/[id]/page.tsx``, ``[...slug].tsx``), not a shell character class."""


def is_glob(word: str) -> bool:
    """A shell pattern (``reports/kp-pipeline-s1-*``): the files it matched, not one file. A
    dynamic route segment (``[id]``) is a real folder's name (blind check 18, atlas-cc: "files
    matching app/members/[id]/page.tsx")."""
    if "*" in word or "?" in word:
        return True
    return "[" in word and "[" in _ROUTE_SEGMENT_RE.sub("", word)


def glob_name(path: str) -> str:
    """How a changed path is named: a glob (``rm reports/kp-*``) as the files it matched."""
    return f"files matching {path}" if is_glob(path) else path


_RESENT_PREFIX = 120


def _same_message(a: str, b: str) -> bool:
    """``b`` is ``a`` sent again: the same text, or an edited version of it (the same first
    :data:`_RESENT_PREFIX` characters, one at least that long: a message interrupted and sent
    again with more)."""
    if a == b:
        return True
    n = _RESENT_PREFIX
    return len(a) >= n and len(b) >= n and a[:n] == b[:n]


def collapse_resent(texts: Sequence[str], at_last: bool = False) -> list[tuple[str, str]]:
    """``texts`` with a message sent again right after itself (the same text, or an edited
    version of it) listed once, its last version, labelled `` (sent N times)``; identical
    messages sent apart are counted on their first listing (``at_last``: on their last one, so
    that the latest message stays last, blind check 13). Each item: (text, label)."""
    if len(set(texts)) == len(texts):  # all distinct: equal heads are long texts' (C loops)
        heads = [t[:_RESENT_PREFIX] for t in texts]
        if not any(map(operator.eq, heads, islice(heads, 1, None))):
            return list(zip(texts, repeat(""), strict=False))  # nothing sent twice (most)
    runs: list[tuple[str, int, bool]] = []  # (last version, times sent, edited)
    for t in texts:
        if runs and _same_message(runs[-1][0], t):
            last, n, edited = runs[-1]
            runs[-1] = (t, n + 1, edited or t != last)
        else:
            runs.append((t, 1, False))
    counts: dict[str, int] = {}
    for t, n, _ in runs:
        counts[t] = counts.get(t, 0) + n
    out: list[tuple[str, str]] = []
    shown: set[str] = set()
    for t, _, edited in reversed(runs) if at_last else runs:
        if t not in shown:
            shown.add(t)
            n = counts[t]
            note = ", edited; the last version" if edited else ""
            out.append((t, f" (sent {n} times{note})" if n > 1 else ""))
    return out[::-1] if at_last else out


def first_resent(texts: Sequence[str]) -> str:
    """``collapse_resent(texts)[0][0]`` without collapsing them all: the last version of the
    first message's run of sendings (``texts`` holds one at least)."""
    last = texts[0]
    for t in islice(texts, 1, None):
        if not _same_message(last, t):
            break
        last = t
    return last


CURRENT_REF = "the current request (section 1)"
_QUOTE_AGAIN = 100
"""A current request this short is quoted again where it is named; a longer one is referred to."""


def request_ref(text: str, quoted: str) -> str:
    """How sections 6-9 name the current request: ``quoted`` (its quote) when it is short,
    else :data:`CURRENT_REF` (section 1 quotes it verbatim once)."""
    if len(text) <= _QUOTE_AGAIN:
        return quoted
    refused = text.find(" — the CLI did not know the command")  # a refused slash command
    return CURRENT_REF if refused < 0 else CURRENT_REF + text[refused:]


_FOOTER_MARKS = ("agentId:", "<usage>", "total_tokens:", "tool_uses:")
_API_ERROR_RE = lazy_pattern(r"^.*\bAPI Error: \d{3}\b.*$", re.M)


def agent_error_line(text: str) -> str | None:
    """For a sub-agent's result that ended in an API error (``API Error: 400 Param Incorrect``)
    before its usage footer (``agentId: … <usage>total_tokens: 0 | tool_uses: 0``): the error
    line, which the footer must not hide; None for any other result."""
    if "API Error" not in text:
        return None
    found = _API_ERROR_RE.search(text)
    return found.group(0).strip() if found else None


def is_usage_footer(line: str) -> bool:
    """A sub-agent result's usage footer line (``tool_uses: 0``, ``agentId: …``)."""
    return line.lstrip().startswith(_FOOTER_MARKS)


_EDIT_TOOLS = frozenset(
    "edit multiedit write notebookedit str_replace_editor str_replace_based_edit_tool "
    "apply_patch create_file write_file edit_file replace_in_file".split()
)


def is_file_edit(call: Call) -> bool:
    """A call of a file-editing tool (``Edit``, ``Write``, ``apply_patch``): its result echoes
    the file's lines (a snippet naming ``cli.js``), which are no facts it printed."""
    return call.name.lower() in _EDIT_TOOLS
