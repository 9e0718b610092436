"""Commands that only read although their program is no reader by name (blind check 18): a
read-only sub-command of ``docker compose`` (``logs``, ``ps``, ``config``) and a ``curl`` that
fetches a URL (no data, upload, output file or other method). Their output is data, often a
crashing program's log full of "Error" lines: without an error flag or a non-zero exit code,
the call did not fail. So is a file read on another host or in a container (debt51): ``ssh
HOST 'tail -n 50 /var/log/app.log'``, ``docker exec C cat /app/err.log``, ``docker compose exec
SVC tail log``, ``kubectl exec POD -- cat log``, whose remote command only reads and filters."""

from __future__ import annotations

import shlex

from compactor._util import lazy_pattern

from .text import Call

__all__ = ["is_subagent", "only_reads"]

_SEGMENT_RE = lazy_pattern(r"\s*(?:&&|\|\||[;|\n])\s*")
_LEAD = frozenset("sudo env time nohup exec command".split())
_COMPOSE_READS = frozenset("logs ps config top images ls port version events".split())
_VALUED = frozenset("-f --file -p --project-name --profile --env-file --project-directory".split())
_FILTERS = frozenset(
    "cd cat head tail grep egrep rg jq sed awk sort uniq wc cut tr echo printf true sleep".split()
)
"""The programs a compose read or a fetch may be piped to or chained with."""
_CURL_WRITES_RE = lazy_pattern(
    r"\s(?:-[a-zA-Z]*[dFTXoO]\b|--(?:data|form|upload|request|output|remote-name|json)\b)"
)


def _compose_reads(words: list[str]) -> bool:
    """Whether the words after ``docker compose`` name a read-only sub-command."""
    skip = False
    for word in words:
        if skip or word.startswith("-"):
            skip = not skip and word in _VALUED
            continue
        return word in _COMPOSE_READS
    return False


def _segment_reads(segment: str) -> bool | None:
    """True when the segment is a compose read or a fetch, None when a filter, else False."""
    words = [w for w in segment.split() if not w.startswith(("2>", ">&", "1>"))]
    while words and ("=" in words[0] or words[0] in _LEAD):
        words = words[1:]
    if not words:
        return None
    name = words[0].rsplit("/", 1)[-1].lower()
    if name == "docker-compose" or (name == "docker" and words[1:2] == ["compose"]):
        return _compose_reads(words[1 if name == "docker-compose" else 2 :])
    if name == "curl":
        return _CURL_WRITES_RE.search(f" {segment}") is None
    return None if name in _FILTERS else False


def only_reads(call: Call | None) -> bool:
    """Whether the command of ``call`` is a compose read or a ``curl`` fetch, alone or with
    filters (``| tail -20``, ``cd DIR &&``), or a read on another host or in a container."""
    command = call.command if call is not None else None
    if command and _REMOTE_HEAD_RE.match(command) and _remote_reads(command):
        return True
    if not command or ("compose" not in command and "curl" not in command):
        return False
    found = False
    for segment in _SEGMENT_RE.split(command.strip()):
        said = _segment_reads(segment)
        if said is False:
            return False
        found = found or said is True
    return found


_REMOTE_HEAD_RE = lazy_pattern(r"\s*(?:ssh|docker|kubectl)\s")
_REMOTE_READERS = frozenset("cat head tail tac less more zcat zgrep journalctl".split())
"""What a remote command reads a file or a log with (with :data:`_FILTERS` around it)."""
_SSH_VALUED = frozenset("-p -i -l -o -F -J -L -R -D -E -b -c -e -m -S -W -w -O -Q".split())
_EXEC_VALUED = frozenset(
    "-u --user -w --workdir -e --env --env-file -c --container -n --namespace".split()
)


def _remote_script(words: list[str]) -> str:
    """The command ``ssh HOST CMD``, ``docker [compose] exec C CMD`` or ``kubectl exec POD --
    CMD`` runs there ('' for any other command)."""
    name = words[0].rsplit("/", 1)[-1]
    if name == "ssh":
        at, valued = 1, _SSH_VALUED
    elif name == "docker" and words[1:2] == ["exec"]:
        at, valued = 2, _EXEC_VALUED
    elif name == "docker" and words[1:3] == ["compose", "exec"]:
        at, valued = 3, _EXEC_VALUED
    elif name == "kubectl" and words[1:2] == ["exec"] and "--" in words:
        return " ".join(words[words.index("--") + 1 :])
    else:
        return ""
    while at < len(words) and words[at].startswith("-"):
        at += 2 if words[at] in valued else 1
    rest = words[at + 1 :]  # after the host or container
    if len(rest) >= 3 and rest[0].rsplit("/", 1)[-1] in ("sh", "bash") and rest[1] == "-c":
        rest = rest[2:3]  # ``sh -c 'tail log'``: the script
    return " ".join(rest)


def _remote_reads(command: str) -> bool:
    """Whether ``command`` runs, on another host or in a container, only file reads and
    filters (at least one read)."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        return False
    script = _remote_script(words) if len(words) > 2 else ""
    found = False
    for segment in _SEGMENT_RE.split(script.strip()) if script else ():
        heads = [w for w in segment.split() if "=" not in w and w not in _LEAD]
        name = heads[0].rsplit("/", 1)[-1] if heads else ""
        if name in _REMOTE_READERS:
            found = True
        elif name not in _FILTERS:
            return False
    return found


_SUBAGENT_TOOLS = frozenset({"task", "agent"})


def is_subagent(call: Call | None) -> bool:
    """Whether ``call`` ran a sub-agent (Claude Code's ``Task``/``Agent``): its output is the
    agent's prose report ("Failure scenario: …" among a review's findings), failed only by
    ``is_error``, an error status or the harness's error marker (blind check 31 W3)."""
    return call is not None and call.name.lower() in _SUBAGENT_TOOLS


_HELP_WORDS = frozenset({"--help", "-h", "-help", "-?", "/?"})
_RETRIEVED = "<retrieval_status>success</retrieval_status>"


def answers_itself(call: Call | None, text: str) -> bool:
    """Whether ``call``'s output is an answer whose words are no error lines: a help text asked
    for (``npm run test -- --help``: jest's "Run tests that failed …", blind check 45 W8), or a
    finished background task's retrieved report (``TaskOutput`` with a success retrieval and a
    completed status: a sub-agent's prose, "Failed map[…]" code in it, 45 W2). Either still
    fails by ``is_error``, an exit code or the harness's marker."""
    if call is None:
        return False
    if _RETRIEVED in text[:4096] and "<status>completed</status>" in text[:4096]:
        return True
    command = call.command
    return command is not None and not _HELP_WORDS.isdisjoint(command.split())
