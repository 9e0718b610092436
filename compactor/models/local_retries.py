"""What makes a later call another attempt at a failed one, and what makes it not a fix.

:func:`signature` and :func:`retries` decide whether a later call retries a failed one (moved
here from :mod:`compactor.models.local_session`, which builds the session from them). Issue 28
(blind check 9): a retry that "succeeded" is not always a fix. :func:`job_started` finds a result
that only says a background job started (``Command running in background with ID: bash_1``):
the job's final status decides (:func:`compactor.models.local_jobs.settle_job_retries`).
:func:`piped_error` finds the error line in the output of a command piped to ``tee`` or another
program, whose exit status the pipe hid (``script.sh: line 3: SCRIPT_DIR: readonly variable``).
:func:`restated` finds the line of a later run's output that repeats the failure's error (blind
check 23, cx-qz: ``python -m pip install`` failed "No module named pip", a later ``python - <<PY
import pip`` printed "pip missing No module named 'pip'" and read "Fixed").
"""

from __future__ import annotations

import functools
import re

from compactor._util import lazy_pattern
from compactor.facts import (
    Call,
    clean,
    command_of,
    is_reading_program,
    last_error_lines,
    main_program,
    paths,
    programs,
    scan_window,
    strip_output_header,
)
from compactor.facts.outcomes import Outcome
from compactor.facts.preamble import ends_with_own_marker, sets_pipefail
from compactor.facts.retrysig import agent_signature, same_head, similar_words
from compactor.facts.samecommand import core_command, core_tool, leading_cd, unwrapped
from compactor.facts.text import FILE_KEYS

from .local_actioncore import action_marks, cell_signature, same_action
from .local_closing import closes_in_success
from .local_patchfix import patch_files
from .local_text import runner_words
from .local_workdir import place, place_of, without_place

__all__ = [
    "contains_command",
    "job_started",
    "piped_error",
    "program_of",
    "reruns_stopped",
    "restated",
    "retries",
    "signature",
    "waited_out",
]

_JOB_START_RE = lazy_pattern(
    r"(?:running in (?:the )?background with ID|background (?:task|shell|job) (?:started|id)|"
    r"agentId|Process running with session ID)[:\s]+`?([\w\-]+)",
    re.IGNORECASE,
)
_JOB_HEAD = 600
"""A result that only starts a job is short: its id is in its first characters."""
_SHELL_ERROR_RE = lazy_pattern(
    r"^\S+: line \d+: .{3,}$|^\S+: (?:\S+: )?(?:command not found|unbound variable|"
    r"readonly variable|Permission denied|No such file or directory)$",
    re.MULTILINE,
)
"""A shell's own error line (``./x.sh: line 3: X: readonly variable``)."""
_PIPE_RE = lazy_pattern(r"(?<![|\\])\|(?!\|)")
"""A pipe (``a | tee log``), not ``||``."""
_PIPE_TAIL = 8_000
_SEARCHES = frozenset({"rg", "grep", "egrep", "fgrep", "ag", "ack", "git grep", "select-string"})
_HIT_RE = lazy_pattern(r"[^\s:]+[:-]\d+[:-]")
"""A search hit (``logs/run4.log:4: ERROR …``, ``file:12-context``): a line of a file, no error."""


def job_started(text: str) -> str:
    """The id of the background job a result says it started (empty when it does not)."""
    head = text[:_JOB_HEAD]
    if "ackground" not in head and "ID" not in head and "agentId" not in head:
        return ""
    found = _JOB_START_RE.search(head)
    return found.group(1) if found is not None else ""


def piped_error(command: str, text: str) -> str:
    """The error line a piped command's output holds (its exit status is the last program's,
    ``tee``'s): a shell error line first, else the last error-shaped line; empty when the
    command has no pipe or its output no error line."""
    if "|" not in command or _PIPE_RE.search(command) is None or sets_pipefail(command):
        return ""
    text = strip_output_header(text)  # the echoed command is no output (BENCH46 W1)
    if ends_with_own_marker(command, text):  # `set -e … echo RENAMED_OK` got to its end
        return ""
    window = clean(text if len(text) <= _PIPE_TAIL else text[len(text) - _PIPE_TAIL :])
    if _SEARCHES & set(programs(command)):  # a search's hits (old logs) are data, no error
        window = "\n".join(ln for ln in window.splitlines() if _HIT_RE.match(ln) is None)
    shell = [m.group(0).strip() for m in _SHELL_ERROR_RE.finditer(window)]
    if shell:
        return shell[-1]
    found = last_error_lines(scan_window(window), 1)
    return found[0] if found else ""


_CORE_MIN = 12
_WORD_RE = lazy_pattern(r"(?<!\S)[a-z]{2,}[.,;:!?]?(?!\S)")
"""A plain word of a (casefolded) message: not a path, a version or a name@version."""
_QUOTES = str.maketrans("", "", "'\"`\u2018\u2019\u201c\u201d")


def _plain(text: str) -> str:
    return " ".join(text.translate(_QUOTES).casefold().split())


def restated(failure: Outcome, text: str) -> str:
    """The line of ``text`` (a later run's output that did not fail) that repeats the error of a
    failure (its first error line, from its last ``": "`` on: the message without the program
    or file that printed it), quotes and case aside; empty when none does. A line that only
    stands in for the error (the first output line of a failure that printed no error line)
    counts when it says something in words (``python: No module named pip``, blind check 23),
    not when it is a path or a name (npm's prefix path, or ``app@1.0.0 /w/app``, before
    ``└── (empty)``: every ``npm list`` prints it; blind check 27, W2), nor when the run's
    closing lines say it succeeded (a banner every run prints; blind check 38 W2,
    :mod:`.local_closing`)."""
    lines = failure.lines
    if not lines or not text:
        return ""
    core = _plain(lines[0].rsplit(": ", 1)[-1])
    if len(core) < _CORE_MIN or (failure.stand_in and len(_WORD_RE.findall(core)) < 2):
        return ""
    window = scan_window(strip_output_header(text))  # not the echoed command (BENCH46 W1)
    if core not in _plain(window):
        return ""
    found = next((ln.strip() for ln in window.splitlines() if core in _plain(ln)), core)
    return "" if closes_in_success(text, found) else found  # its banner, then success (38 W2)


def signature(call: Call) -> tuple[str, str, frozenset[str]]:
    """(tool, program, targets): what a later call must share to be a retry. A command's
    targets are the paths it names and the command itself (the same command again is a retry)."""
    command = command_of(call)
    if command is not None and (file := editor_target(call, command)):
        return (call.name, "", frozenset({file}))  # `create` of one file, not a shell command
    if command is not None:
        if len(command) <= _CACHED_COMMAND:
            sig = _command_signature(command)
        else:
            sig = _read_command_signature(command)
        where = place(call, unwrapped(command))  # another directory: no retry (local_workdir)
        return (sig[0], sig[1], sig[2] | {where}) if where else sig
    if files := patch_files(call):  # a patch's target is its files (blind check 37 W5)
        return (call.name, "", files)
    if cell := cell_signature(call, _command_signature):  # Codex code mode (blind check 56 W1)
        return cell
    targets = {v for v in call.args.values() if isinstance(v, str) and 0 < len(v) < 300}
    targets |= action_marks(call.args)  # a browser's action=screenshot (blind check 56 W4)
    if not call.args and call.arguments.strip():  # text, not arguments: itself is its target
        targets.add("= " + " ".join(call.arguments[:2000].split()))
    for v in call.args.values():  # wait_agent(targets=[id]): the ids it waits on (blind 29 W4)
        if isinstance(v, list) and len(v) <= 20:
            targets |= {x for x in v if isinstance(x, str) and 0 < len(x) < 300}
    for k, v in call.args.items():  # a poll's session (write_stdin(session_id=N); blind 40 W5)
        if isinstance(v, int) and not isinstance(v, bool) and k.lower().endswith("id"):
            targets.add(f"{k}={v}")
    return agent_signature(call.name, call.args) or (call.name, "", frozenset(targets))


_VERB_RE = lazy_pattern(r"[a-z_]{2,20}")


def editor_target(call: Call, command: str) -> str:
    """The file an editor call works on when its ``command`` argument is its verb, not a shell
    command (``str_replace_editor(command=create, path=F)``): ``F``, else ''. Its failure is
    fixed only by a later call of the tool on ``F``; the verb alone ties nothing (blind check 74
    W5: a failed ``create`` of ``.gitignore`` was "fixed" by a create of another file)."""
    if _VERB_RE.fullmatch(command) is None:
        return ""
    for key in FILE_KEYS:
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            path = value.strip()
            if "\\" in path or path[1:3] == ":/":  # Windows: C:\\x\\A.md is c:/x/a.md
                path = path.replace("\\", "/").casefold()
            return "file " + path
    return ""


_TIMED_OUT_RE = lazy_pattern(r'"timed_out"\s*:\s*true')


def waited_out(text: str) -> bool:
    """Whether a result is a wait that timed out (Codex ``wait_agent``: ``{"status": {},
    "timed_out": true}``): the agents it waited on have not finished, so it fixes no failure."""
    return '"timed_out"' in text[:2000] and _TIMED_OUT_RE.search(text[:2000]) is not None


_KILL_PIDS_RE = lazy_pattern(r"\bkill(?:\s+-\w+)*((?:\s+\d{2,7}\b)+)")
_CACHED_COMMAND = 2_000  # commands up to this length are read once (agents repeat them)


def program_of(command: str) -> str:
    """The program a command runs, as :func:`signature` names it (a runner with its step:
    ``npx hardhat test``, not ``npx``)."""
    if len(command) <= _CACHED_COMMAND:
        return _command_signature(command)[1]
    return _read_command_signature(command)[1]


@functools.lru_cache(maxsize=4096)
def _command_signature(command: str) -> tuple[str, str, frozenset[str]]:
    return _read_command_signature(command)


def _read_command_signature(command: str) -> tuple[str, str, frozenset[str]]:
    script = unwrapped(command)
    body = leading_cd(script)[1]  # its directory is its place (blind check 33)
    if "echo" in body or "printf" in body or "Write-" in body:  # a banner names no target
        body = _BANNER_RE.sub(" ", body)  # (`echo "=== src/x.ts ==="`: blind check 41 W8)
    targets = {p for _, p in paths(body)}
    targets.add("$ " + " ".join(command.split()))
    if "kill" in command:  # the pids a kill names are its targets (`printf pw | sudo -S kill N`)
        targets |= {"pid " + n for m in _KILL_PIDS_RE.findall(command) for n in m.split()}
    program = main_program(command)
    if script is not command and program in _SHELLS:  # its script's (blind check 35 W3, 36 W5)
        program = main_program(script) or program
    if program in _TEST_PROGRAMS:  # a runner's subcommand tells its steps apart
        program = runner_words(command, program)
    return ("shell", program, frozenset(targets))


_BANNER_RE = lazy_pattern(
    r"""(?<![\w-])(?:echo|printf|Write-Host|Write-Output)(?:\s+-\w+)*\s+("[^"\n]*"|'[^'\n]*')"""
)
"""A printed banner's text (``echo "=== src/x.ts ==="``): a label, not a path the command uses."""
_SHELLS = frozenset("powershell powershell.exe pwsh pwsh.exe cmd cmd.exe bash sh zsh dash".split())
"""The program names of a shell wrapper (``powershell.exe … -Command SCRIPT``, ``bash -lc
SCRIPT``): every call of a legacy Codex rollout has one, so it tells no two calls apart; the
script's program does (blind check 36 W5: ``bash -lc git add X && git commit …`` failed, and a
later ``bash -lc rg … X && sed -n … X`` on the same file is no retry of it)."""
_TEST_PROGRAMS = frozenset(
    "pytest tox nox jest vitest mocha cargo go npm pnpm yarn npx make mvn gradle bun deno "
    "dotnet ctest phpunit rspec".split()
)


@functools.lru_cache(maxsize=4096)
def retries(
    failed: tuple[str, str, frozenset[str]], later: tuple[str, str, frozenset[str]]
) -> bool:
    """Whether a later call with signature ``later`` is another attempt at ``failed``: the same
    tool on a shared target (for commands: the same program, or two that do more than read); or
    the same test/build runner; or, for programs that do more than read, the same program where
    neither names a file. A pure function of the two signatures, memoized: each success or
    failure is compared with up to 64 open failures, and agents repeat their commands (on the
    agent bench shape 39,054 comparisons are 18 distinct pairs)."""
    if failed[0] != later[0]:
        return False
    if failed[0] != "shell":  # a sub-agent: the same type on a similar description
        if failed[1]:
            return failed[1] == later[1] and similar_words(failed[2], later[2])
        if not same_action(failed[2], later[2]):  # screenshot, then click: no retry (56 W4)
            return False
        return bool(failed[2] & later[2]) or not (failed[2] or later[2])
    program = failed[1]
    mine, theirs = place_of(failed[2]), place_of(later[2])
    if mine and theirs and theirs != mine:  # the same command run elsewhere (local_workdir)
        return False
    if mine or theirs:
        failed = (failed[0], program, without_place(failed[2]))
        later = (later[0], later[1], without_place(later[2]))
    if same_core(failed[2], later[2]):  # `PYTHONPATH=. pytest -q` reran `pytest -q` (check 32)
        return True
    if contains_command(failed[2], later[2]):  # `brew install x && <the failed command>`
        return True
    if any(t.startswith("pid ") for t in failed[2] & later[2]):  # a kill of the same pid
        return True
    if failed[2] & later[2]:  # the same command head: python x.py → python3 x.py, not du → bash
        return same_head(program, later[1], failed[2], later[2])
    if not program or program != later[1]:
        return False
    if program.split(" ", 1)[0] in _TEST_PROGRAMS:
        return True
    return not failed[2] and not later[2] and not is_reading_program(program)


@functools.lru_cache(maxsize=4096)
def same_core(failed: frozenset[str], later: frozenset[str]) -> bool:
    """Whether two commands are one run but for a wrapper, a ``cd``, environment assignments, a
    runner or (for a test or build tool) flags and paths (:mod:`compactor.facts.samecommand`)."""
    mine = next((t[2:] for t in failed if t.startswith("$ ")), "")
    theirs = next((t[2:] for t in later if t.startswith("$ ")), "")
    if not mine or not theirs:
        return False
    core = core_command(mine)
    if core and core == core_command(theirs):
        return True
    tool = core_tool(mine)
    return bool(tool) and tool == core_tool(theirs)


_JOINER_RE = lazy_pattern(r"\s*(?:&&|\|\||;)\s*")
_MIN_PART = 6
"""A failed command shorter than this (``ls``, ``cd x``) is no sign of a retry inside another."""


@functools.lru_cache(maxsize=4096)
def contains_command(failed: frozenset[str], later: frozenset[str]) -> bool:
    """Whether the later command holds the failed one as one of its ``&&``/``;``-joined parts
    (quotes aside; the part may pipe it on, ``… | rg x`` → ``… | rg x | sed -n 1,40p``, or run
    it under a wrapper, ``nix develop -c bash -lc '…'``): issue
    28, blind check 10: ``brew install X && ghostty +list-fonts | rg …`` retried ``ghostty
    +list-fonts | rg …``."""
    mine = next((t[2:] for t in failed if t.startswith("$ ")), "")
    theirs = next((t[2:] for t in later if t.startswith("$ ")), "")
    if len(mine) < _MIN_PART or len(theirs) <= len(mine):
        return False
    bare = _unquoted(mine)
    if bare not in _unquoted(theirs):  # the cheap test first
        return False
    return any(
        p == bare or p.startswith(bare + " |") or p.endswith(" " + bare)  # `sudo`, `nix … -lc`
        for p in _parts(theirs)
    )


_SUDO_FLAGS_RE = lazy_pattern(r"\bsudo(?:\s+-[SEHkn]+)+(?=\s)")
"""``sudo -S`` (the password on stdin: ``echo PW | sudo -S CMD``), ``-E``, ``-H``, ``-k``, ``-n``:
the same command as plain ``sudo CMD`` (blind check 75 W1/W2)."""


@functools.lru_cache(maxsize=1024)
def _unquoted(command: str) -> str:
    if "sudo" in command:  # ``echo PW | sudo -S CMD``: the masker's own recogniser (blind 75 S1)
        from compactor.secrets.prose import SUDO_PIPE_RE  # here: the module compiles 10 patterns

        command = SUDO_PIPE_RE.sub("sudo", command)
    words = " ".join(command.replace("'", " ").replace('"', " ").split())
    return _SUDO_FLAGS_RE.sub("sudo", words) if "sudo -" in words else words


_QUIET_RE = lazy_pattern(r"\s*(?:[0-9]?>>?|&>>?)\s*(?:&[0-9]|/dev/null)(?![\w/])")
"""A redirection that only silences a stream (``2>/dev/null``, ``2>&1``, ``&>/dev/null``)."""
_CHAIN_RE = lazy_pattern(r"\s*(?:&&|;|\n)\s*")


@functools.lru_cache(maxsize=1024)
def chain_parts(command: str) -> tuple[str, ...]:
    """The ``&&``/``;``/line-joined parts of ``command`` as :func:`contains_command` reads them
    (quotes aside, ``echo PW | sudo -S`` as ``sudo``), each without a redirection that only
    silences a stream and without a leading ``sudo``; ``()`` when it holds ``||`` (one part
    runs in place of another). For :mod:`.local_chainfix` (blind check 75 W1)."""
    if "||" in command:
        return ()
    out = []
    for part in _CHAIN_RE.split(command):
        bare = _unquoted(_QUIET_RE.sub("", part)) if part.strip() else ""
        bare = bare[5:] if bare.startswith("sudo ") else bare
        if bare:
            out.append(bare)
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _parts(command: str) -> tuple[str, ...]:
    return tuple(_unquoted(p) for p in _JOINER_RE.split(command) if p.strip())


_QUOTED_RE = lazy_pattern(r"""\"([^"\n]+)\"|'([^'\n]+)'""")
_NAME_OPTION_RE = lazy_pattern(r"(?<!\S)-(?:i?name|i?path|i?regex|wholename)\s+([^\s\"']+)")
_COUNTS_RE = lazy_pattern(r"\|\s*wc(?:\s+-[a-z]+)*\s*$")
"""A command whose last stage only counts (``… | wc -l``)."""


@functools.lru_cache(maxsize=1024)
def reruns_stopped(
    failed: tuple[str, str, frozenset[str]], later: tuple[str, str, frozenset[str]]
) -> bool:
    """Whether a later command (already a retry by :func:`retries`) runs again a command the user
    interrupted: the same command (:func:`same_core`, :func:`contains_command`), or one with its
    every search pattern (its quoted words, ``-name``/``-path`` values) that does not only count
    what the first listed (``| wc -l``). Blind check 80 W2: ``find ~/.claude/projects -name
    "*.env*" -o -name "*secret*"`` was interrupted, and ``find ~/.claude/projects -maxdepth 2
    -type f | wc -l`` (a count of every file) read as its fix. Not a shell command: ``True``."""
    mine = next((t[2:] for t in failed[2] if t.startswith("$ ")), "")
    theirs = next((t[2:] for t in later[2] if t.startswith("$ ")), "")
    if not mine or not theirs:
        return True
    if same_core(failed[2], later[2]) or contains_command(failed[2], later[2]):
        return True
    if _COUNTS_RE.search(theirs) is not None and _COUNTS_RE.search(mine) is None:
        return False
    wanted = [a or b for a, b in _QUOTED_RE.findall(mine)] + _NAME_OPTION_RE.findall(mine)
    return all(w in theirs for w in wanted)
