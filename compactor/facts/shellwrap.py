"""The script a shell wrapper runs: ``bash -lc 'rg x f'`` runs ``rg x f`` (Codex sends its shell
calls as ``["bash", "-lc", SCRIPT]``; agents also type ``sh -c '…'``). Whatever asks which
program a command ends with (``rg`` exit 1 is "no match") asks it of the script, not of
``bash`` (blind check 15, p2m-const: ``bash -lc rg '\\[' FILE`` exit 1 was a failure)."""

from __future__ import annotations

import re
import shlex

from .text import Call

_SHELLS = frozenset("bash sh zsh dash ksh ash".split())
_WIN_SHELLS = frozenset("powershell pwsh cmd".split())
_PS_OPTIONS_WITH_VALUE = frozenset(
    "-executionpolicy -ep -windowstyle -outputformat -inputformat -workingdirectory".split()
)


def _is_command_flag(word: str) -> bool:
    """``-c``, ``-lc``, ``-ic``, ``-lic``, ``-ec``: a short-option cluster that ends in ``c``."""
    return len(word) >= 2 and word[0] == "-" and word[1:].isalpha() and word.endswith("c")


def _script(words: list[str]) -> str | None:
    if len(words) >= 3 and words[0].rsplit("/", 1)[-1] in _SHELLS and _is_command_flag(words[1]):
        return words[2]
    return _win_script(words) if len(words) >= 3 else None


def _win_script(words: list[str]) -> str | None:
    """The script of ``powershell.exe -NoLogo -NoProfile -Command SCRIPT`` (``pwsh -c``) or
    ``cmd /c SCRIPT`` (the legacy Codex ``shell`` tool on Windows, blind check 35 W3): the
    words after the flag, joined as the shell joins them; None for any other command."""
    name = words[0].replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    if name not in _WIN_SHELLS:
        return None
    at, skip = 1, False
    while at < len(words):
        word = words[at].lower()
        if skip:
            skip = False
        elif name == "cmd" and word in ("/c", "/k"):
            break
        elif name != "cmd" and word in ("-c", "-command"):
            break
        elif word in _PS_OPTIONS_WITH_VALUE:
            skip = True
        elif not word.startswith(("-", "/")):
            return None  # a script file or an argument: not a wrapped command
        at += 1
    rest = words[at + 1 :]
    return " ".join(rest) if rest and at < len(words) else None


def _win_head(command: str) -> bool:
    first = command.lstrip()[:120].split(None, 1)
    low = first[0].lower() if first else ""
    return "pwsh" in low or "powershell" in low or "cmd" in low


def inner_command(call: Call) -> str | None:
    """The command ``call`` runs, with one shell wrapper (``bash -lc SCRIPT``) taken off (found
    once per call: its arguments do not change)."""
    if call.inner is None:
        call.inner = (_inner_command(call),)
    return call.inner[0]


def _inner_command(call: Call) -> str | None:
    command = call.command
    if command is None:
        return None
    head = command.lstrip()[:6]
    if (
        not any(head.startswith(shell) for shell in _SHELLS)
        and "/" not in head
        and not _win_head(command)
    ):
        return command  # cheap: no wrapper can start this command
    for key in ("command", "cmd"):
        value = call.args.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            found = _script([str(v) for v in value])
            if found is not None:
                return found
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return command
    found = _script(words)
    return found if found is not None else command


_REDIRECT_RE = re.compile(r"\d*(?:&>>?|>>?\|?|<<<|<>?|>&|<&)(.*)", re.DOTALL)
"""A shell word that is a redirection (``2>/dev/null``, ``>out.log``, ``2>&1``, ``&>``, ``<in``),
its target after the operator (empty: the target is the next word, ``> out.log``)."""


def without_redirections(words: list[str]) -> list[str]:
    """A command's words without its redirections and their targets: the operands a program
    reads (``mv a/.* . 2>/dev/null`` moves to ``.``, not to ``2>/dev/null``: blind check 68 W6).
    A process substitution (``< <(vault read x)``, ``<(sort a)``) goes with its words."""
    if not any(("<" in w or ">" in w) for w in words):
        return words
    out: list[str] = []
    skip = depth = 0
    for word in words:
        if depth:  # inside ``<(…)``: up to the word that closes it
            depth += word.count("(") - word.count(")")
            continue
        if skip:
            skip = 0
            depth = _opened(word)
            continue
        match = _REDIRECT_RE.fullmatch(word)
        if match is None:
            out.append(word)
        elif not match.group(1):
            skip = 1  # ``> out.log``, ``2> err``: the next word is the target
        else:
            depth = _opened(match.group(1))
    return out


def _opened(word: str) -> int:
    """How many parentheses a process substitution's first word leaves open (``<(vault`` or,
    after its operator, ``(vault`` → 1); 0 for any other word."""
    if not word.lstrip("<>").startswith("("):
        return 0
    return max(0, word.count("(") - word.count(")"))
