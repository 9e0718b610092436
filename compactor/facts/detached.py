"""Jobs a detaching launcher started, keyed by what it reported (blind check 54, W1).

``tmux new-session -d -s NAME …``, ``screen -dmS NAME …`` and ``docker run -d …`` return at once
BY DESIGN: the call's exit (``Process exited with code 0``) is not the end of the job it left
running. :func:`launched` names that job by what the launcher reports: the tmux/screen session's
name (a literal, or a shell variable the same command assigned a literal, or printed as
``NAME=value``), the container's name or the id ``docker run -d`` printed. :func:`check_end`
ends such a job (and one known by the pid ``nohup … & echo $!`` printed) only by a later check
that shows it gone: ``tmux ls`` / ``screen -ls`` / ``docker ps`` / ``ps``/``pgrep`` output
without it, "no server running", "can't find session", "No such process"/"No such container",
or a kill/stop naming it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from compactor._util import lazy_pattern

from .commands import command_of
from .pidchecks import PROBE_RE, probe_end, unlisted_by_name
from .text import Call

__all__ = ["check_end", "end_detached", "launched", "launcher_part", "polled_body"]

_TMUX_RE = lazy_pattern(r"\btmux\s+(?:new-session|new)\b([^;&|\n]*)")
_SCREEN_RE = lazy_pattern(r"\bscreen\s+((?:-[A-Za-z]+\s+)*-[A-Za-z]*S\s*\S+[^;&|\n]*)")
_DOCKER_RE = lazy_pattern(r"\b(?:docker|podman)\s+run\b([^;&|\n]*)")
_SESSION_OPT_RE = lazy_pattern(r"(?:^|\s)-[A-Za-z]*[sS]\s*(\"[^\"]*\"|'[^']*'|\S+)")
_NAME_OPT_RE = lazy_pattern(r"--name[=\s]+(\"[^\"]*\"|'[^']*'|\S+)")
_CONTAINER_RE = lazy_pattern(r"^\s*([0-9a-f]{12,64})\s*$", re.MULTILINE)
_VAR_RE = lazy_pattern(r"\A\$\{?([A-Za-z_]\w*)\}?\Z")
_FAILED_RE = lazy_pattern(
    r"Process exited with code [1-9]|duplicate session|command not found|not found|"
    r"\berror\b|Cannot connect|No such file",
    re.IGNORECASE,
)
_KILL_RE = lazy_pattern(
    r"\b(?:kill(?:-session|-server)?(?!\s+-0\b)|pkill|killall)\b|-X\s+quit\b|"
    r"\b(?:docker|podman)\s+(?:stop|kill|rm)\b"
)
_LIST_RE = lazy_pattern(
    r"\btmux\s+(?:ls|list-sessions|has-session|has)\b|\bscreen\s+-(?:ls|list)\b|"
    r"\b(?:docker|podman)\s+(?:ps|container\s+ls)\b|(?:^|[;&|(]\s*)(?:ps|pgrep|pidof)\b",
    re.MULTILINE,
)
_GONE_RE = lazy_pattern(
    r"no server running|can't find session|no sessions|No Sockets found|No such process|"
    r"No such container|session not found",
    re.IGNORECASE,
)


def _literal(value: str) -> str:
    value = value.strip().strip("\"'")
    return "" if not value or any(c in value for c in "$`(){}*") else value


def _resolve(word: str, command: str, text: str) -> str:
    """``word`` as a literal: itself, or the literal the same command assigned to the variable
    it names (``SESSION="evk_1"`` … ``-s "$SESSION"``), or the value it printed
    (``SESSION=evk_1``); '' when neither is a plain literal."""
    word = word.strip().strip("\"'")
    var = _VAR_RE.match(word)
    if var is None:
        return _literal(word)
    name = re.escape(var.group(1))
    for where in (command, text):
        found = re.search(rf"(?:^|[\s;&(]){name}=(\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]+)", where)
        if found is not None and (value := _literal(found.group(1))):
            return value
    return ""


def launched(command: str, text: str) -> str:
    """The key of the job a detaching launcher in ``command`` left running (its output
    ``text``): a tmux/screen session name, a container's name or id; '' when the command has no
    such launcher, the launch failed, or the name is not a plain literal."""
    if not any(word in command for word in ("tmux", "screen", "docker", "podman")):
        return ""  # (read for every shell result that names no job)
    if _FAILED_RE.search(text[:2_000]) is not None:
        return ""
    tmux = _TMUX_RE.search(command)
    if tmux is not None and re.search(r"(?:^|\s)-[A-Za-z]*d", tmux.group(1)):
        opt = _SESSION_OPT_RE.search(tmux.group(1))
        return _resolve(opt.group(1), command, text) if opt is not None else ""
    screen = _SCREEN_RE.search(command)
    if screen is not None and re.search(
        r"(?:^|\s)-[A-Za-z]*d[A-Za-z]*m|-[A-Za-z]*m[A-Za-z]*d", screen.group(1)
    ):
        opt = _SESSION_OPT_RE.search(screen.group(1))
        return _resolve(opt.group(1), command, text) if opt is not None else ""
    docker = _DOCKER_RE.search(command)
    if docker is not None and re.search(
        r"(?:^|\s)(?:-d|--detach)\b|\s-[A-Za-z]*d[A-Za-z]*\s", docker.group(1)
    ):
        name = _NAME_OPT_RE.search(docker.group(1))
        if name is not None:
            return _resolve(name.group(1), command, text)
        printed = _CONTAINER_RE.search(text[-2_000:])
        return printed.group(1)[:12] if printed is not None else ""
    return ""


def _names(text: str, key: str) -> bool:
    return re.search(rf"(?<![\w.\-]){re.escape(key)}(?![\w\-])", text) is not None


def _kind(label: str) -> str:
    """The launcher a detached job's command used: ``tmux``, ``screen``, ``docker`` or ''."""
    return next((k for k in ("tmux", "screen", "docker", "podman") if k in label), "")


def check_end(command: str, text: str, key: str, label: str = "") -> str:
    """How a later call (its shell ``command``, its output ``text``) shows the detached job
    ``key`` (started by ``label``) gone, or ''. A kill or stop naming it ends it; a listing of
    its kind (``tmux ls``, ``screen -ls``, ``docker ps``; ``ps -p PID`` for a pid) ends it when
    its output does not name it, and "no server running" / "No such process" when it answers
    about it."""
    if not command:
        return ""
    line = " ".join(command.split())[:80]
    named = _names(command, key)
    listing = _LIST_RE.search(command)
    if named and listing is None and _KILL_RE.search(command) is not None:
        return f"stopped by `{line}`"
    if named and key.isdigit() and PROBE_RE.search(command) is not None:
        return probe_end(command, text, key)
    if key.isdigit() and listing is not None and not named:
        return unlisted_by_name(command, text, key, label)
    kind = "" if key.isdigit() else _kind(label)
    if listing is None or (kind and kind not in command) or (not kind and not named):
        return ""  # another kind's listing, or a ps of other processes: nothing of this job
    body = text.split("\nOutput:\n", 1)[-1]
    if (gone := _GONE_RE.search(body)) is not None:
        return f"gone: `{line}` said: {gone.group(0)}"
    if _names(body, key) or (kind == "tmux" and re.search(r"\bhas(?:-session)?\b", command)):
        return ""  # listed; or ``tmux has-session`` (says so by its exit code only)
    return f"gone: `{line}` no longer lists {key}"


_POLL_KEYS = ("session_id", "shell_id", "bash_id")


def polled_body(text: str, call: Call | None) -> int:
    """Where the output of a polled exec session starts in a result ``text`` (after a harness
    header's ``Output:``; a poll's whole result), or -1: a ``pid=N`` printed there is a process
    of the session (a server's worker, a task of a run), not a job of its own; the job is the
    session (blind check 54, W2)."""
    if call is not None and any(k in call.args for k in _POLL_KEYS):
        return 0
    if "Process running with session ID" not in text[:600]:
        return -1
    at = text.find("Output:", 0, 600)
    return at if at >= 0 else -1


class _Held(Protocol):
    """What :func:`end_detached` reads and sets of a job."""

    id: str
    label: str
    finished: str
    detached: bool


def end_detached(jobs: Iterable[_Held], call: Call | None, text: str) -> str:
    """End each running detached job (:class:`~compactor.facts.jobs.Job`) a later ``call``
    (its result ``text``) shows gone (:func:`check_end`); return the call's shell command."""
    command = (command_of(call) or "") if call is not None else ""
    for job in jobs if command else ():
        if job.detached and not job.finished:
            job.finished = check_end(command, text, job.id, job.label)
    return command


_LAUNCHER_RE = lazy_pattern(
    r"\b(?:nohup|setsid|tmux\s+new(?:-session)?|screen\s+-[A-Za-z]*[dm]|"
    r"(?:docker|podman)\s+run\b(?=[^;&|\n]*\s(?:-d|--detach)\b))"
)


def launcher_part(command: str) -> str:
    """``command`` from its detaching launcher on (``nohup …``, ``tmux new-session -d …``), or
    '' when it has none: what identifies the job it starts, not the preamble before it (``cd X
    && PREFIX=… &&``), which two launches of different jobs share (blind check 54, W1)."""
    found = _LAUNCHER_RE.search(command)
    return command[found.start() :] if found is not None else ""
