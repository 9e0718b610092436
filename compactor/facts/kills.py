"""Whether a later command killed a background job, judged by shape.

A job (a Codex unified-exec session, a shell ``&`` job, a ``run_in_background`` call) ends when
a later shell command kills its process: ``kill 23003 23005`` naming a pid its start or poll
output printed (``Started reloader process [23005]``, ``pid: 7311``) or that a later ``lsof``/
``ps`` listed on a line naming its port or its program; ``pkill -f uvicorn`` naming a
distinctive word of its command, or ``pkill -f PATTERN`` / ``pkill NAME`` / ``killall NAME``
whose pattern matches the command that started it (``pkill -f "_test.py"`` after ``python -u
work/_test.py &``) or the script its runner's output echoed (``> vite`` of ``npm run dev``).
Those are sure. A kill that names only the port the job
listens on (``lsof -ti tcp:8000 | xargs kill``, ``fuser -k 8000/tcp``) is not: the job may have
moved or may hold the port through another process, so it is reported as "may still be
running".

A job that installs packages (``pip install nbformat nbconvert``) has also ended when a later
command that succeeded used what it installed (``python -c "import nbformat …"``):
:func:`later_use`; and when a later call that read its output (a file its command redirects
to, or the output file its start result named) printed that it ended (``EXIT=0``, ``exit code
1``): :func:`later_report`."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .commands import command_of, shell_words
from .outcomes import outcome
from .text import Call, Entry, cut, one_line

__all__ = ["MAYBE", "kill_ends", "later_kill", "later_report", "later_use", "pattern_kills"]

MAYBE = "may still be running"
"""How a job a later kill named only by its port is described."""

_KILL_RE = lazy_pattern(r"\b(?:kill|pkill|killall)\b|\bfuser\b[^\n|;]*\s-k\b", re.IGNORECASE)
_PID_RE = lazy_pattern(
    r"\bpid\b[\"'\s:=#]*(\d{2,7})\b|\bprocess\s*\[(\d{2,7})\]|\bPID\s+(\d{2,7})\b", re.IGNORECASE
)
_PORT_RE = lazy_pattern(r"(?:--port[= ]+|:)(\d{2,5})\b|\bport\s+(\d{2,5})\b")
_ROW_PID_RE = lazy_pattern(r"^\s*\S+\s+(\d{2,7})\s", re.MULTILINE)
"""The pid column of an ``lsof``/``ps`` row (``Python 23003 user …``)."""
_COMMON = frozenset(
    "python python3 node npm npx pnpm yarn bun bash sh nohup setsid exec run uv dev start serve "
    "server test main app".split()
)


def _ports(text: str) -> set[str]:
    return {a or b for a, b in _PORT_RE.findall(text[:4_000])}


def _pids(text: str) -> set[str]:
    return {next(g for g in m.groups() if g) for m in _PID_RE.finditer(text[:6_000])}


def _words(command: str) -> set[str]:
    """Distinctive words of a command (``uvicorn``, ``http.server``): no flag, number, path."""
    found = set()
    for raw in command.split():
        w = raw.strip("&;'\"()")
        if len(w) >= 5 and not w.startswith("-") and "/" not in w and not w.isdigit():
            if w.lower() not in _COMMON and re.fullmatch(r"[\w.\-:]+", w):
                found.add(w)
    return found


def _names(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(word)}(?![\w])", text) is not None


def later_kill(entries: list[Entry], key: str, command: str, index: int) -> tuple[bool, str]:
    """(sure, how) for the job ``key`` started by ``command`` at entry ``index``: the later
    command that killed it and what of the job it named; ``(False, '')`` when none did."""
    ports, words = _ports(command), _words(command)
    started = _HEREDOC_BODY_RE.sub("", command) if "<<" in command else command
    pids: set[str] = set()
    ran: list[str] = []  # what its runner's output said it runs (``npm run dev`` → ``vite``)
    listed: set[str] = set()  # pids a later lsof/ps row listed on its port: maybe another's
    watching: set[str] = set()
    for e in entries:
        if e.index < index or e.internal:
            continue
        for call in e.calls:
            if e.index == index or _names(call.arguments, key):
                watching.add(call.id)
            line = command_of(call) or ""
            if e.index == index or not _KILL_RE.search(line):
                continue
            said = f"`{cut(one_line(line), 120)}`"
            if _kill_refused(entries, e.index, call.id):
                continue  # "Operation not permitted": it killed nothing (`|| true` hid it)
            hit = next((p for p in sorted(pids) if _names(line, p)), None)
            if hit is not None:
                return True, f"killed: a later command named its pid {hit}: {said}"
            if _pattern_kills(line, started) or (ran and _pattern_kills(line, " ".join(ran))):
                return True, f"killed: a later command's pattern matched its command: {said}"
            word = next((w for w in sorted(words) if _names(line, w)), None)
            if word is not None and re.search(r"\b(?:pkill|killall)\b", line):
                return True, f"killed: a later command named `{word}`: {said}"
            port = next((p for p in sorted(ports) if re.search(rf"[:\s]{p}\b", line)), None)
            what = f"its port {port}" if port else ""
            listed_pid = next((p for p in sorted(listed) if _names(line, p)), None)
            what = what or (f"pid {listed_pid}, listed on its port" if listed_pid else "")
            if what:
                return False, f"{MAYBE} (a later kill named {what}: {said})"
        for r in e.results:
            if e.index == index or r.call_id in watching:
                pids |= _pids(r.text)
                ports |= _ports(r.text)
                ran += [m.group(1) for m in _SCRIPT_ECHO_RE.finditer(r.text[:4_000])]
            elif ports or words:
                for row in r.text[:6_000].splitlines():
                    if (m := _ROW_PID_RE.match(row)) is None:
                        continue
                    if any(_names(row, w) for w in words):
                        pids.add(m.group(1))
                    elif any(f":{p}" in row for p in ports):
                        listed.add(m.group(1))
    return False, ""


def kill_ends(line: str, key: str, command: str) -> str:
    """How the kill command ``line`` ends the job ``key`` started by ``command`` when only the
    commands are known (no results: a job started before the history, whose later kills are
    noted by the reader): named by its id, a pattern or distinctive word matching its command
    (sure), or its port (:data:`MAYBE`); ``""`` when it names none of them."""
    said = f"`{cut(one_line(line), 120)}`"
    if _names(line, key) or _pattern_kills(line, command):
        return f"killed: a later command named it: {said}"
    word = next((w for w in sorted(_words(command)) if _names(line, w)), None)
    if word is not None and re.search(r"\b(?:pkill|killall)\b", line):
        return f"killed: a later command named `{word}`: {said}"
    port = next((p for p in sorted(_ports(command)) if re.search(rf"[:\s]{p}\b", line)), None)
    return f"{MAYBE} (a later kill named its port {port}: {said})" if port else ""


_REFUSED_RE = lazy_pattern(
    r"operation not permitted|permission denied|not permitted|access is denied", re.IGNORECASE
)
"""What a kill prints when the system refused it (a sandbox, another user's process)."""
_REFUSED_LOOK = 40
"""Entries after a kill call searched for its result (a result follows its call closely)."""


def _kill_refused(entries: list[Entry], index: int, call_id: str) -> bool:
    """Whether the result of the kill call ``call_id`` (made at entry ``index``) says the system
    refused it: ``killall node || true`` printing "could not sysctl(KERN_PROC): Operation not
    permitted" exits 0 and kills nothing (blind check 34 N1: a hung test session was taken for
    killed by it, and left out of the running jobs)."""
    for e in entries[index : index + _REFUSED_LOOK]:
        for r in e.results:
            if r.call_id == call_id:
                return _REFUSED_RE.search(r.text[:2_000]) is not None
    return False


_SCRIPT_ECHO_RE = lazy_pattern(r"^> \S+@\S+ [\w:.\-]+[^\n]*\n> ([^\n]+)$", re.MULTILINE)
"""npm's and pnpm's echo of the script a job runs (``> app@0.0.0 dev`` then ``> vite``): a
``pkill -f vite`` matches the process of ``npm run dev`` (blind check 18 brief)."""
_HEREDOC_BODY_RE = lazy_pattern(r"<<-?\s*['\"]?(\w+)['\"]?([^\n]*)\n.*?\n\s*\1\s*$", re.M | re.S)
_PATTERN_KILL_RE = lazy_pattern(r"\b(?:pkill|killall)\b[^\n;&|]*")
_VALUE_FLAGS = frozenset(
    "-u -U -g -G -P -s -t -n --signal -signal --user --group --session".split()
)


def pattern_kills(line: str, command: str) -> bool:
    """Whether a ``pkill``/``killall`` in ``line`` matches a process of ``command``."""
    return _pattern_kills(line, command)


def _pattern_kills(line: str, command: str) -> bool:
    """Whether a ``pkill``/``killall`` in ``line`` matches a process of ``command``: with
    ``-f`` its pattern is searched in the whole command line, else (a process name) in the
    name of a program the command runs (the last part of each word's path)."""
    for match in _PATTERN_KILL_RE.finditer(line):
        words = shell_words(match.group())[1:]
        full, patterns, skip = False, [], False
        for w in words:
            if skip:
                skip = False
            elif w in _VALUE_FLAGS:
                skip = True
            elif w.startswith("-"):
                full = full or (w.startswith("-") and not w.startswith("--") and "f" in w)
                full = full or w == "--full"
            elif not w[:1].isdigit():
                patterns.append(w)
        for pattern in patterns[:3]:
            if len(pattern.strip(".*^$")) < 3:
                continue
            texts = [command] if full else [x.rsplit("/", 1)[-1] for x in command.split()]
            try:
                found = re.compile(pattern)
            except re.error:
                if any(pattern in t for t in texts):
                    return True
                continue
            if any(found.search(t) for t in texts):
                return True
    return False


_INSTALL_RE = lazy_pattern(
    r"\b(?:pip3?|uv pip|conda|mamba|apt(?:-get)?|brew|gem|npm|pnpm|yarn|bun|cargo)\s+"
    r"(?:install|add|i)\b([^\n;&|>]*)"
)
_SPEC_RE = lazy_pattern(r"[=<>!~@\[;].*$")


def _installed(command: str) -> set[str]:
    """The package names a command installs (no flags, versions or extras)."""
    found: set[str] = set()
    for match in _INSTALL_RE.finditer(command):
        for w in match.group(1).split():
            name = _SPEC_RE.sub("", w.strip("'\""))
            if len(name) >= 3 and not w.startswith("-") and "/" not in name and "." not in name:
                found.add(name)
    return found


def later_use(entries: list[Entry], key: str, command: str, index: int) -> str:
    """How a job that installs packages was seen finished: a later call that succeeded and
    used one of them (``import nbformat``, ``jupyter nbconvert``) without installing it or
    naming the job; "" when none did (or the job installs nothing)."""
    names = _installed(command)
    if not names:
        return ""
    using: dict[str, tuple[Call, str]] = {}
    for e in entries:
        if e.index <= index or e.internal:
            continue
        for r in e.results:
            found = using.pop(r.call_id, None)
            if found is not None and not outcome(r, found[0]).failed:
                said = f"`{cut(one_line(command_of(found[0]) or ''), 120)}`"
                return f"finished: a later command used what it installed ({found[1]}): {said}"
        for call in e.calls:
            line = command_of(call) or ""
            if not line or _names(line, key) or _INSTALL_RE.search(line):
                continue
            name = next((n for n in sorted(names) if _names(line, n)), None)
            if name is not None and call.id:
                using[call.id] = (call, name)
    return ""


_OUTPUT_RE = lazy_pattern(r"(?<![0-9<>])(?:&>|>>?)\s*([^\s<>|;&()'\"]+)")
_WRITTEN_TO_RE = lazy_pattern(r"[Oo]utput is being written to:?\s*(\S+?)\.?(?:\s|$)")
_ENDED_RE = lazy_pattern(
    r"\bEXIT(?:_?CODE)?\s*[=:]\s*-?\d+|\bexit(?:ed)? (?:with )?(?:code|status)[ :=]+-?\d+|"
    r"\bProcess exited\b",
    re.IGNORECASE | re.MULTILINE,
)


def _outputs(command: str, said: str) -> set[str]:
    """Where a job writes: its command's redirect targets and the file its start result named
    (each by its last two path parts, so that ``logs/x.log`` and ``$DIR/logs/x.log`` meet)."""
    found = {m.group(1) for m in _OUTPUT_RE.finditer(command)}
    found |= {m.group(1) for m in _WRITTEN_TO_RE.finditer(said)}
    tails = {"/".join(p.replace("\\", "/").split("/")[-2:]) for p in found if p != "/dev/null"}
    return {t for t in tails if len(t) >= 6 and "." in t}


def later_report(entries: list[Entry], command: str, said: str, index: int) -> str:
    """How a job was seen ended by a later call that read its output and printed an end
    (``EXIT=0``, ``exit code 1``; not a traceback: a server logs one and goes on); "" when
    none did."""
    outputs = _outputs(command, said)
    if not outputs:
        return ""
    reading: dict[str, Call] = {}
    for e in entries:
        if e.index <= index or e.internal:
            continue
        for r in e.results:
            call = reading.pop(r.call_id, None)
            if call is not None and (m := _ENDED_RE.search(r.text[-4_000:])) is not None:
                said_line = f"`{cut(one_line(command_of(call) or ''), 100)}`"
                return f"ended: a later read of its output printed `{m.group()}`: {said_line}"
        for call in e.calls:
            line = command_of(call) or call.arguments
            if call.id and any(o in line for o in outputs) and not _OUTPUT_RE.search(line):
                reading[call.id] = call
    return ""
