"""Commands and the programs they run: which programs a shell command runs
(:func:`programs`, :func:`main_program`), whether a call only reads (:func:`is_reading_call`),
what a program's exit code 1 means when it is an answer, not a failure (:func:`exit_one_program`,
:func:`exit_one_meaning`), and a command's words (:func:`shell_words`). Moved out of
:mod:`compactor.facts.outcomes`, which judges whether a tool result failed.
"""

from __future__ import annotations

import functools
import re
import shlex

from .shellwrap import inner_command
from .text import Call

__all__ = [
    "command_of",
    "exit_one_meaning",
    "exit_one_program",
    "is_reading_call",
    "is_reading_program",
    "main_program",
    "no_match_program",
    "programs",
    "shell_words",
]

_READING_TOOLS = frozenset(
    "read read_file readfile view view_file open open_file cat grep glob ls list list_dir "
    "list_files search search_file search_files search_dir find_file find_files file_search "
    "codebase_search webfetch web_fetch websearch web_search notebookread todoread tasklist "
    "taskget skill".split()
)
_READING_PROGRAMS = frozenset(
    "cat head tail less more nl sed awk grep egrep fgrep rg ag ack find fd ls tree wc file stat "
    "jq yq diff cut sort uniq column xxd od strings which whereis type echo printf pwd cd true "
    "get-content select-string get-childitem get-item gc gci ls dir set-location".split()
)
_READING_SUBCOMMANDS = frozenset(
    "git show|git diff|git log|git blame|git grep|git status|git ls-files|git remote|git branch|"
    "git rev-parse|docker logs|docker ps|docker inspect|kubectl logs|kubectl get|kubectl describe|"
    "systemctl status|journalctl".split("|")
)
"""Sub-commands that only read; their output is data (logs, listings), not a report."""
_TWO_WORD_PROGRAMS = frozenset({"git", "docker", "kubectl", "systemctl"})
_NO_MATCH_PROGRAMS = frozenset(
    [*"grep egrep fgrep rg ag ack diff test [ cmp pgrep pkill".split(), "git grep"]
)
"""Programs whose exit code 1 means "no match" / "different" / "false", not a failure."""
_QUOTED_RE = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")
"""A quoted word of a command (its ``|`` is a regex's, not a pipe: ``rg "a|b"``)."""
_MEANINGS = dict.fromkeys(("pgrep", "pkill"), "no process matched") | {
    "test": "false",
    "[": "false",
}
_MEANINGS |= dict.fromkeys(("diff", "cmp"), "differences found")


def exit_one_program(call: Call | None) -> str:
    """The last program of ``call``'s command when its exit code 1 is an answer, not a failure
    (``rg``/``grep``/``git grep``: no match, ``diff``: differences, ``test``/``[``: false), quoted
    words (a regex's ``|``) aside; else ''."""
    command = inner_command(call) if call is not None else None  # bash -lc SCRIPT: the script
    if command is None:
        return ""
    return no_match_program(command)


def no_match_program(command: str) -> str:
    last = (programs(_QUOTED_RE.sub("Q", command)) or [""])[-1]
    return last if last in _NO_MATCH_PROGRAMS else ""


def exit_one_meaning(call: Call | None) -> str:
    """What exit code 1 of ``call`` established (``no match``, ``differences found``,
    ``false``), or '' when it is a failure."""
    program = exit_one_program(call)
    return _MEANINGS.get(program, "no match") if program else ""


_SEGMENT_RE = re.compile(r"\|\||&&|[|;\n]")


def command_of(call: Call) -> str | None:
    """The shell command a call runs (``command`` / ``cmd`` / ``script`` argument), if any."""
    return call.command


_CACHED_COMMAND = 2_000
"""Commands up to this length are read once per process (agents repeat them; entries bounded)."""


def programs(command: str) -> list[str]:
    """The program names of each segment of a shell command (lower-case, no path)."""
    if len(command) <= _CACHED_COMMAND:
        return list(_programs_cached(command))
    return _programs(command)


@functools.lru_cache(maxsize=4096)
def _programs_cached(command: str) -> tuple[str, ...]:
    return tuple(_programs(command))


def _programs(command: str) -> list[str]:
    out: list[str] = []
    for segment in _SEGMENT_RE.split(command):
        words = segment.strip().split()
        if len(words) > 1 and words[0].startswith("$") and words[1].startswith("="):
            continue  # a PowerShell assignment: $x = ...
        while words and (
            ("=" in words[0] and not words[0].startswith("="))  # VAR=value prefixes
            or words[0] in ("sudo", "env", "time", "nohup", "exec", "command")
        ):  # in any order: sudo VAR=1 ./build.sh runs build.sh
            words = words[1:]
        if not words or words[0].startswith("#"):  # a comment, a shebang (BENCH46 W1)
            continue
        name = words[0].strip("'\"()").rsplit("/", 1)[-1].rsplit("\\", 1)[-1].lower()
        if name in _TWO_WORD_PROGRAMS and len(words) > 1:
            name = name + " " + words[1].lower()
        out.append(name)
    return out


_NEUTRAL_PROGRAMS = frozenset(
    "cd pushd popd set export source . unset true set-location push-location".split()
)


def main_program(command: str) -> str:
    """The first program of a command that does the work (``cd x && pytest`` → ``pytest``)."""
    return next((p for p in programs(command) if p not in _NEUTRAL_PROGRAMS), "")


def is_reading_program(name: str) -> bool:
    """Whether a program (as :func:`programs` names it) only reads, lists or searches."""
    if " " in name or name == "journalctl":
        return name in _READING_SUBCOMMANDS
    return name in _READING_PROGRAMS


def is_reading_call(call: Call | None) -> bool:
    """Whether a call only reads or searches (its output is file content, not a report)."""
    if call is None:
        return False
    if call.reads is None:  # (judged once: asked about twice per call)
        names = programs(command) if (command := command_of(call)) is not None else []
        call.reads = call.name.lower() in _READING_TOOLS or (
            bool(names) and all(is_reading_program(n) for n in names)
        )
    return call.reads


def shell_words(command: str) -> list[str]:
    """``shlex`` words of a command (a whitespace split when the quoting is broken)."""
    try:
        return shlex.split(command, posix=True)
    except ValueError:
        return command.split()
