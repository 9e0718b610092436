"""Whether a command has a known end, judged by shape (issue 28, blind check 16).

A job that returned an id (a Codex unified-exec session, ``Process running with session ID
N``) and was never polled again is not proof of a running process: a command wrapped in
``timeout 4s``, or a short query (``rg``, ``grep``, ``find``, ``ls``, ``cat``, ``rosnode list``,
``git status``, ``node --version`` …) ends by itself. Such a job has ended by the time the
session resumes. Anything else (a server, ``npm run dev``, a watcher, ``tail -f``, a ``&`` job,
a training run) keeps the "may still be running" reading.

:func:`bounded_reason` answers with how the command is bounded (``"timeout 4s"``, ``"rg, a
query that ends by itself"``) or ``""``."""

from __future__ import annotations

import shlex
from functools import lru_cache

from compactor._util import lazy_pattern

__all__ = ["bounded_reason", "expected_exit", "is_startup_noise", "own_timeout"]

_TIMEOUT_RE = lazy_pattern(r"(?:^|[\s;&|(\"'])timeout\s+(?:-\S+\s+)*\d+(?:\.\d+)?[smhd]?\s")
_STARTUP_RE = lazy_pattern(
    r"^(?:-?\w*sh: )?\S*/\.(?:bash_profile|bashrc|bash_login|profile|zshrc|zprofile|zshenv|"
    r"kshrc): line \d+: "
)


def own_timeout(command: str | None) -> bool:
    """Whether ``command`` runs under its own ``timeout N`` (its exit 124 is that time-box
    ending the run, as intended, not a failure by itself)."""
    return command is not None and "timeout" in command and _TIMEOUT_RE.search(command) is not None


def is_startup_noise(line: str) -> bool:
    """A login shell's start-up error (``/home/u/.bash_profile: line 1: souce: command not
    found``): printed by every command of that machine, never the error of a call."""
    return ": line " in line and _STARTUP_RE.match(line.strip()) is not None


_SHELLS = frozenset("bash sh zsh dash ksh ash".split())
_SETUP = frozenset("cd source . export set unset pushd popd true : umask ulimit".split())
_QUERIES = frozenset(
    "rg grep egrep fgrep find fd ls ll cat head wc echo printf stat which whereis type pwd file du "
    "df ps uname date id whoami hostname readlink realpath basename dirname sort uniq cut tr awk "
    "sed diff cmp md5sum sha256sum lsof ss netstat ip ifconfig free nproc lscpu env printenv test "
    "[ jq tree less more dpkg pip3 nvidia-smi".split()
)
_QUERY_VERBS = frozenset(
    "list ls status --version -V -v version info show --help -h help log diff branch rev-parse "
    "remote describe config".split()
)
_FOLLOW = frozenset("-f -F --follow -n0 watch".split())
_SEPARATORS = frozenset("&& || ; | ;; |& \n".split()) | {"\n"}


_SHORT_BOUND = 300.0
"""A ``timeout`` up to this many seconds has ended by the time a session resumes; a longer one
(``timeout 3h python train.py``) may still be running."""
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _seconds(duration: str) -> float:
    """``8s`` → 8, ``2m`` → 120, ``90`` → 90; ``inf`` for what is not a duration."""
    unit = _UNITS.get(duration[-1:], 0.0)
    number = duration[:-1] if unit else duration
    try:
        return float(number) * (unit or 1.0)
    except ValueError:
        return float("inf")


def _tokens(command: str) -> list[str] | None:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return None


def _segments(command: str) -> list[list[str]] | None:
    """The simple commands of ``command`` (split at ``&&``, ``||``, ``;``, ``|``); ``None`` when
    it cannot be read or sends a part to the background (``&``)."""
    tokens = _tokens(command.replace("\n", " ; "))
    if tokens is None:
        return None
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token == "&" or (token.endswith("&") and token not in ("&&", "|&")):
            return None
        if token in _SEPARATORS or set(token) <= set(";&|"):
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s]


def _strip(words: list[str]) -> list[str]:
    """``words`` without leading ``VAR=value`` assignments and ``sudo``/``env`` and their flags."""
    i = 0
    while i < len(words):
        w = words[i]
        if "=" in w and not w.startswith("-") and w.split("=", 1)[0].isidentifier():
            i += 1
        elif w in ("sudo", "env", "command", "exec", "time"):
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in ("-p", "-u", "-g") else 1
        else:
            break
    return words[i:]


def _segment(words: list[str], depth: int) -> str | None:
    """How one simple command is bounded: the reason, ``""`` for set-up (``cd``, ``source``),
    ``None`` when it has no known end."""
    words = _strip(words)
    if not words:
        return ""
    name = words[0].rsplit("/", 1)[-1]
    if name in _SETUP:
        return ""
    if name == "timeout":
        rest = [w for w in words[1:] if not w.startswith("-")]
        return f"timeout {rest[0]}" if rest and _seconds(rest[0]) <= _SHORT_BOUND else None
    if name in _SHELLS and depth < 3:
        flags = [w for w in words[1:] if w.startswith("-")]
        script = next((w for w in words[1:] if not w.startswith("-")), None)
        if script is not None and flags and flags[-1][1:].isalpha() and flags[-1].endswith("c"):
            return _bounded(script, depth + 1)
        return None
    if name in ("tail", "less", "watch", "journalctl", "dmesg", "ping", "top"):
        follows = name != "tail" or any(w in _FOLLOW for w in words[1:])
        return None if follows or name != "tail" else f"{name}, a query that ends by itself"
    if name in _QUERIES:
        return f"{name}, a query that ends by itself"
    verb = next((w for w in words[1:] if not w.startswith("-") or w in _QUERY_VERBS), "")
    if verb in _QUERY_VERBS and name not in ("npm", "yarn", "pnpm", "docker", "kubectl"):
        return f"{name} {verb}, a query that ends by itself"
    return None


@lru_cache(maxsize=256)
def _bounded(command: str, depth: int = 0) -> str | None:
    segments = _segments(command)
    if not segments:
        return None
    reasons = []
    for words in segments:
        reason = _segment(words, depth)
        if reason is None:
            return None
        reasons.append(reason)
    timed = next((r for r in reasons if r.startswith("timeout")), "")
    return timed or next((r for r in reversed(reasons) if r), None)


def bounded_reason(command: str) -> str:
    """How ``command`` is bounded (``"timeout 8s"``, ``"rg, a query that ends by itself"``), or
    ``""`` when nothing in its shape says it ends by itself."""
    if len(command) > 4_000:
        return ""
    return _bounded(command.strip()) or ""


_SEARCHES = ("find,", "grep,", "rg,", "ls,", "du,", "tree,", "fd,", "egrep,")
_DENIED = ("Permission denied", "Operation not permitted")


def _denied(line: str) -> bool:
    return any(word in line for word in _DENIED)


def expected_exit(code: int | None, lines: list[str], body: str, command: str | None) -> bool:
    """Whether a non-zero exit is the expected end of ``command``, not a failure by itself:
    124 of a command under its own ``timeout N``; 1 of a search (``find``/``grep``/``ls``…)
    whose only error lines are "Permission denied" while it printed hits (a search that found
    results, partly blocked; blind check 16, ua-walk)."""
    if code == 124:
        return own_timeout(command)
    if code != 1 or not command or not lines or not all(_denied(x) for x in lines):
        return False
    if not bounded_reason(command).startswith(_SEARCHES):
        return False
    return any(x.strip() and not _denied(x) for x in body.splitlines())
