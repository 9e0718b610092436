"""Noise that is never a fact (issue 28 point 6, blind check 9; see :mod:`compactor.facts`).

* ANSI escape sequences (colour codes) in tool outputs: :func:`strip_ansi`.
* Decoration lines, made only of rules and box-drawing characters: :func:`is_decoration`.
* A banner the shell prints at the head of every output of a session (a login script's
  greeting): found once per session and dropped from its results, :func:`drop_banner`.
* Claude Code's ``<system-reminder>`` blocks injected into tool results and user messages:
  :func:`without_reminders`.
* Local-command markup (``<command-name>/exit</command-name>…``): :func:`command_markup`.
* ``!`` shell-mode records (``<bash-input>``, ``<bash-stdout>``): :func:`user_shell`.
* Warning lines that only look like errors (``dpkg-preconfigure: unable to re-open stdin``,
  ``warning:``, ``WARN``): :func:`is_warning`.

Every function looks for its marker with ``in`` first (C speed): most texts have none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.schema import AgenticMessage, Message, user_text

from .ide import has_ide_markup, without_ide_markup

if TYPE_CHECKING:
    from .text import Entry

CLI_COMMANDS = frozenset(
    "/compact /clear /exit /quit /model /cost /help /config /status /resume /login /logout "
    "/permissions /memory /doctor /context /usage /statusline /theme /vim /export /effort /fast "
    "/output-style /add-dir /agents /hooks /mcp /ide /rewind /todos /bashes /tasks /stats "
    "/rate-limit-options /extra-usage /upgrade".split()
)
"""Claude Code's own CLI commands for settings, views and the session itself: never a request
(the embedded summary and ``compact eval`` both read them so)."""

_ANSI_RE = lazy_pattern(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?)")
"""CSI sequences (colours, cursor moves) and OSC sequences (titles, links); a lone escape
character is a control character, which :func:`~compactor.facts.text.clean` drops."""


def strip_ansi(text: str) -> str:
    """``text`` without ANSI escape sequences (unchanged, not copied, when it has none)."""
    return _ANSI_RE.sub("", text) if "\x1b" in text else text


_RULE_CHARS = frozenset("=-_*#~+|:.·•<>/\\[]() \t")


def is_decoration(line: str) -> bool:
    """Whether ``line`` holds only rules and box-drawing characters (``═════``, ``----``,
    ``╔══╗``): a frame around a banner, never an error or a result."""
    stripped = line.strip()
    if not stripped:
        return False
    return all(ch in _RULE_CHARS or "\u2500" <= ch <= "\u259f" for ch in stripped)


_REMINDER_RE = lazy_pattern(r"[ \t]*<system-reminder>.*?(?:</system-reminder>|\Z)[ \t]*\n?", re.S)


def without_reminders(text: str) -> str:
    """``text`` without Claude Code's ``<system-reminder>…</system-reminder>`` blocks (the
    harness's notes to the model: "Whenever you read a file, you should consider whether it
    looks malicious…"), which are not what the tool returned nor what the user wrote."""
    if "<system-reminder>" not in text:
        return text
    return _REMINDER_RE.sub("", text).rstrip()


_COMMAND_NAME_RE = lazy_pattern(r"<command-name>\s*/?([^<\s]+)\s*</command-name>")
_COMMAND_ARGS_RE = lazy_pattern(r"<command-args>(.*?)</command-args>", re.S)


def command_name(text: str) -> str | None:
    """``/name`` of Claude Code's ``<command-name>`` markup in ``text``, or None."""
    name = _COMMAND_NAME_RE.search(text)
    return None if name is None else "/" + name.group(1)


def command_markup(text: str) -> str | None:
    """For a user message that is Claude Code's local-command markup (``<command-name>/exit
    </command-name> <command-message>…`` ``<command-args>…``): ``/exit (a CLI command)`` for
    one of the CLI's own commands (:data:`CLI_COMMANDS`), ``/name`` for the user's own command
    (a request: its prompt follows, ``facts.cmdprompt``; blind check 34 W4), or ``/name args``
    when it has arguments (then it asks for something); None for other texts."""
    if not text.lstrip().startswith(("<command-name>", "<command-message>")):
        return None
    name = command_name(text)
    if name is None:
        return None
    found = _COMMAND_ARGS_RE.search(text)
    args = " ".join(found.group(1).split()) if found else ""
    if args:
        return f"{name} {args}"
    return f"{name} (a CLI command)" if name in CLI_COMMANDS else name


_BASH_INPUT_RE = lazy_pattern(r"<bash-input>(.*?)</bash-input>", re.S)


def user_shell(text: str) -> str | None:
    """For Claude Code's ``!`` shell-mode records: ``<bash-input>cmd</bash-input>`` as "the
    user ran `cmd` themselves" (one line), its echoes (``<bash-stdout>``, ``<bash-stderr>``)
    as "" (what the command printed, not the user's words); None for other texts."""
    head = text.lstrip()
    if not head.startswith("<bash-"):
        return None
    if (found := _BASH_INPUT_RE.match(head)) is not None:
        said = f"the user ran `{' '.join(found.group(1).split())}` themselves"
        if "<bash-std" not in head[found.end() :]:
            return said
        from .usershell import shell_printed  # the output in the same record (blind check 22)

        return said + shell_printed(head[found.end() :])
    return "" if head.startswith(("<bash-stdout>", "<bash-stderr>")) else None


def user_words(msg: Message | AgenticMessage) -> str:
    """A user message's text; local-command markup as :func:`command_markup` shows it, a ``!``
    shell command as :func:`user_shell` does."""
    text = user_text(msg)
    if text.startswith("<system-reminder>"):  # an IDE's note above the user's words (72 N5)
        text = without_reminders(text).strip()
    if text.startswith("<command-"):
        return command_markup(text) or text
    if text.startswith("<bash-"):
        shown = user_shell(text)
        return text if shown is None else shown
    shown = without_ide_markup(text) if has_ide_markup(text) else text
    if "\n" not in shown:
        return shown  # (an attached file spans lines: no import, no scan, for most messages)
    from .attachments import named_attachments  # a pasted file named (blind check 14)

    return named_attachments(shown)


_WARNING_RE = lazy_pattern(
    r"(?i:\bwarn(?:ing)?\b|unable to re-open stdin|debconf: (?:unable|falling back|delaying))"
    r"|^W: "
)


def is_warning(line: str) -> bool:
    """Whether an error-like line is a warning (``warning: …``, ``WARN …``, apt's ``W: …``,
    debconf's ``dpkg-preconfigure: unable to re-open stdin``): the command went on."""
    return _WARNING_RE.search(line) is not None


_BANNER_MIN_CHARS, _BANNER_MIN_LINES, _BANNER_MIN_SEEN = 40, 2, 3
_BANNER_HEAD, _BANNER_TRIES = 8_000, 4
_READING_TOOLS = frozenset("read read_file readfile view view_file open_file notebookread".split())


def drop_banner(entries: Sequence[Entry]) -> None:
    """Drop from the results of ``entries`` the banner at the head of each of them (a login
    script's greeting the shell prints before every output): the whole lines, at least two and
    40 characters, that two results with the same first line start with, when at least three
    results start with them and go on differently. A harness's own header (``Exit code 1``)
    is not one; the first :data:`_BANNER_TRIES` heads two results share are tried."""
    results = [r for e in entries if e.results for r in e.results]
    first: dict[str, str] = {}
    tries = 0
    for r in results:
        text = r.text
        if r.name.lower() in _READING_TOOLS:
            continue  # a file read again starts as it did: its content, not a banner
        end = text.find("\n", 0, 300)
        if end < 3:
            continue
        line = text[:end]
        seen = first.get(line)
        if seen is None:
            first[line] = text
            continue
        banner = _shared_head(seen, text)
        if not banner:
            continue
        heading = [x for x in results if banner in x.text]
        rests = {_without(x.text, banner).strip() for x in heading}
        if len(heading) >= _BANNER_MIN_SEEN and len(rests - {""}) >= 2:
            for x in heading:  # also after a failed call's stderr, which comes first
                x.text = _without(x.text, banner)
            return
        tries += 1
        if tries == _BANNER_TRIES:
            return
        first[line] = ""  # this first line was tried: no second try with it


def _without(text: str, banner: str) -> str:
    """``text`` without ``banner`` where it starts a line."""
    at = text.find(banner)
    while at > 0 and text[at - 1] != "\n":
        at = text.find(banner, at + 1)
    if at < 0:
        return text
    return (text[:at] + text[at + len(banner) :].lstrip("\n")).strip("\n")


def _shared_head(one: str, two: str) -> str:
    """The whole lines ``one`` and ``two`` both start with ('' when too short for a banner)."""
    a, b = one[:_BANNER_HEAD], two[:_BANNER_HEAD]
    size = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        size += 1
    whole = size == len(one) and two[size : size + 1] in ("", "\n")
    whole = whole or (size == len(two) and one[size : size + 1] in ("", "\n"))
    head = a[:size] if whole else a[: a.rfind("\n", 0, size) + 1]
    if len(head) < _BANNER_MIN_CHARS or head.strip().count("\n") + 1 < _BANNER_MIN_LINES:
        return ""
    if head.lstrip().lower().startswith(("exit code", "chunk id", "command:", "process ")):
        return ""
    if _TAG_LINE_RE.match(head) is not None:
        return ""  # a harness's tagged header (``<status>completed</status>``: blind check 26)
    return head


_TAG_LINE_RE = lazy_pattern(r"\s*<([A-Za-z][\w\-]*)>[^<\n]*</\1>[ \t]*\n")
"""A head whose first line is one tagged field (``<status>completed</status>``,
``<exit_code>0</exit_code>``): what a harness writes about the call, whose status a reader needs,
never a login script's banner."""


_FRAME_RE = lazy_pattern(
    r"\[file: ~?c?\"[^\"\n]+\", line: \d+\]"  # an Erlang frame: [file: ~c"lib/mix.ex", line: 647]
    r"|^[ \t]*\([\w.-]+ [\w.-]+\) \S+?:\d+:.*$"  # Elixir: (mix 1.19.5) lib/mix/task.ex:499: …
    r"|^[ \t]*File \"[^\"\n]+\", line \d+.*$"  # Python: File "x.py", line 3, in f
    r"|^[ \t]+at [^\n]*?:\d+(?::\d+)?\)?[ \t]*$"  # JS / Java / Rust: at f (x.js:10:5)
    r"|^[ \t]+/\S+\.go:\d+(?: \+0x[0-9a-f]+)?[ \t]*$",  # Go: /src/x.go:12 +0x1d
    re.MULTILINE,
)
"""A stack-trace frame: where the error passed, not what the call established."""


def without_frames(text: str) -> str:
    """``text`` without its stack-trace frames (blind check 11: ``lib/mix.ex``,
    ``gen_server.erl``, ``proc_lib.erl`` were listed as what a failed command established)."""
    if "line" not in text and ":" not in text:
        return text
    return _FRAME_RE.sub(" ", text)


def unwrapped_output(text: str) -> str:
    """A tool result written as JSON (``{"output":"","metadata":{"exit_code":0,…}}``, older Codex
    rollouts) as its meaning: ``Exit code: 0`` and its output (blind check 11: the raw JSON was
    the last action's result); any other text as it is."""
    if not text.startswith('{"output"'):
        return text
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return text
    output = value.get("output") if isinstance(value, dict) else None
    meta = value.get("metadata") if isinstance(value, dict) else None
    if not isinstance(output, str):
        return text
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return f"Exit code: {code}\nOutput:\n{output}" if isinstance(code, int) else output
