"""Background servers started without a job id that a later result showed alive (blind check 32,
N2).

cc-ikn7comp: ``cd app && nohup streamlit run … --server.port 8502 … > /tmp/streamlit.log 2>&1 &
sleep 3; tail /tmp/streamlit.log`` started the dashboard (no ``echo $!``, no harness id, and the
command does not end in ``&``, so :mod:`compactor.facts.jobs` saw no job); a later ``ss -tlnp``
showed pid 81031 listening on 0.0.0.0:8502 and nothing killed it. The summary had no running
job. By shape:

* a successful shell call that backgrounds a process (``nohup``, ``setsid``, ``disown``, a
  ``&`` not followed by ``wait``) is a **candidate** job, named by its command, with the ports
  its command names (``--port 8502``, ``--server.port=8502``, ``-p 8502``, ``HOST:8502``,
  ``PORT=8502``, ``http.server 8000``) and its distinctive words (``streamlit``, ``app.py``);
* a later ``ss``/``netstat``/``lsof`` row listening on one of those ports, a ``ps``/``pgrep``
  row naming its words (not the ``grep`` itself), or a ``curl`` that got an answer on its port,
  shows it **alive**: it is a running job, known by the pid and port that result showed;
* an ``&`` inside a word (a URL's query, ``?token=abc&width=640``) backgrounds nothing, a
  one-shot client (``curl``, ``wget``, ``nc``…) has no port of its own (a later answer there is
  the server's), and a curl that got nothing back shows nothing alive (BENCH44 W3: a finished
  ``curl '…:2999/…?a=1&b=2'`` was "still running … answered on port 2999" by a later, empty
  curl; the listener was the user's own server);
* a job :mod:`compactor.facts.jobs` already found (a command ending in ``&``) gets the same
  evidence; a later kill (``pkill``, ``kill PID``) ends either
  (:func:`compactor.models.local_jobs.judge_killed`, run after this).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.facts import Call, Entry, command_of, cut, one_line, programs, strip_output_header

from .local_records import Background
from .local_session import Session

__all__ = ["add_seen_servers"]

_BACKGROUND_RE = lazy_pattern(
    r"\b(?:nohup|setsid|disown)\b|(?<![&|>])&(?![&>])"
    r"(?:[ \t]*(?:$|;|\n|\))|[ \t]+(?!wait\b)\w|(?<=\s&)(?!wait\b)\w)"
)
"""A shell command that backgrounds: ``nohup``, ``setsid``, ``disown``, or an ``&`` operator (at
the end, before ``;``/``)``/a newline or a command; never inside a word, as in a URL's query
``?token=abc&width=640``: BENCH44 W3)."""
_CLIENTS = frozenset({"curl", "wget", "http", "https", "xh", "nc", "ncat", "telnet"})
"""One-shot clients: a later answer on the port they name is the server's, not theirs (W3)."""
_PORT_RE = lazy_pattern(
    r"(?:--[\w.\-]*port[= ]+|(?<!\S)-p[= ]?|\bPORT=|\bhttp\.server\s+|"
    r"(?:localhost|0\.0\.0\.0|127\.0\.0\.1|\]|[\w\-]+\.[\w.\-]+):)(\d{2,5})\b",
    re.IGNORECASE,
)
_LISTING_RE = lazy_pattern(r"(?:^|[\s;&|(])(ss|netstat|lsof|ps|pgrep|curl|wget)\b")
_PID_RE = lazy_pattern(r"\bpid=(\d{2,8})\b")
_ROW_PID_RE = lazy_pattern(r"^\s*(?:\S+\s+)?(\d{2,8})\s")
_REFUSED_RE = lazy_pattern(
    r"Connection refused|Failed to connect|Couldn't connect|curl: \(\d+\)|Could not resolve|"
    r"Empty reply|failed: ",
    re.IGNORECASE,
)
_COMMON = frozenset(
    "nohup setsid disown python python3 node npm npx pnpm yarn bun bash sh exec run uv dev "
    "start serve server main app sleep tail echo head cat true wait --server".split()
)
_EVIDENCE = 200


def _words(command: str) -> set[str]:
    """Distinctive words of a backgrounded command (``streamlit``, ``app.py``): no flag, number,
    redirection or common runner; a path's last part."""
    found = set()
    for raw in command.split():
        w = raw.strip("&;'\"()").rsplit("/", 1)[-1]
        if len(w) >= 5 and not w.startswith(("-", ">", "<", "2>")) and not w.isdigit():
            if w.lower() not in _COMMON and re.fullmatch(r"[\w.\-]+", w) and ".log" not in w:
                found.add(w)
    return found


def _alive(command: str, text: str, ports: set[str], words: set[str]) -> str:
    """How the result ``text`` of a later ``command`` shows the job alive ('' when it does not):
    a row listening on one of ``ports`` (with its pid), a process row naming ``words``, or an
    answer on one of ``ports``."""
    tools = {m.group(1) for m in _LISTING_RE.finditer(command)}
    rows = text[:6_000].splitlines()
    if tools & {"ss", "netstat", "lsof"} and ports:
        for row in rows:
            port = next((p for p in sorted(ports) if re.search(rf":{p}(?!\d)", row)), None)
            if port is not None and ("LISTEN" in row or "pid=" in row):
                pid = _PID_RE.search(row) or _ROW_PID_RE.match(row)
                said = f"pid {pid.group(1)}, " if pid is not None else ""
                return f"{said}listening on port {port}: `{cut(one_line(row), _EVIDENCE)}`"
    if tools & {"ps", "pgrep"} and words:
        for row in rows:
            if "grep" in row or not any(w in row for w in words):
                continue
            pid = _ROW_PID_RE.match(row)
            said = f"pid {pid.group(1)}, " if pid is not None else ""
            return f"{said}listed by `{cut(one_line(command), 80)}`: `{cut(one_line(row), 160)}`"
    body = strip_output_header(text[:2_000]).strip()  # an empty answer is none (BENCH44 W3)
    if tools & {"curl", "wget"} and body and _REFUSED_RE.search(body) is None:
        port = next((p for p in sorted(ports) if re.search(rf":{p}(?!\d)", command)), None)
        if port is not None:
            return f"answered on port {port}: `{cut(one_line(command), 120)}`"
    return ""


def _starts(s: Session, e: Entry, calls: dict[str, Call]) -> list[tuple[str, Call]]:
    """(label, call) of each successful backgrounding shell call whose result ``e`` holds."""
    found = []
    for r in e.results:
        call = calls.get(r.call_id)
        command = command_of(call) if call is not None else None
        if call is None or command is None or r.is_error or call.id in s.failed_calls:
            continue
        if "$!" in command or _BACKGROUND_RE.search(command) is None:
            continue  # `echo $!`: the pid it printed names the job (compactor.facts.jobs)
        found.append((cut(" ".join(command.split()), 200), call))
    return found


@dataclass(slots=True)
class _Candidate:
    start: int
    ports: set[str]
    words: set[str]
    seen: str = ""  # how a later result showed it alive
    pid: str = ""  # the pid that result showed
    killed: str = ""  # the later kill that named that pid


_KILL_RE = lazy_pattern(r"\bkill\b(?!\s+-0\b)")


def _kills(s: Session, e: Entry, found: dict[str, _Candidate]) -> None:
    """Mark the candidates whose shown pid a call of ``e`` kills (``kill 81031``)."""
    for call in e.calls:
        command = command_of(call) or ""
        if "kill" not in command or _KILL_RE.search(command) is None:
            continue
        for job in found.values():
            if job.pid and not job.killed and re.search(rf"(?<!\d){job.pid}(?!\d)", command):
                job.killed = (
                    f"killed: a later command named its pid {job.pid}: `{cut(command, 120)}`"
                )


def add_seen_servers(s: Session, judged: set[str]) -> None:
    """Add each backgrounded server a later result showed alive as a running job, and give the
    jobs already known the same evidence (see the module). ``judged``: the labels of the jobs
    :mod:`compactor.facts.jobs` found, running or not (one it saw end is not revived)."""
    if not any("&" in c.arguments or "nohup" in c.arguments for c in s.calls):
        return  # most sessions: no call backgrounds anything
    calls = {c.id: c for c in s.calls if c.id}
    found: dict[str, _Candidate] = {}
    for e in s.entries:
        if e.internal:
            continue
        if found:
            _kills(s, e, found)
        for r in e.results if found else ():
            later = calls.get(r.call_id)
            command = command_of(later) if later is not None else None
            if command is None or r.is_error or _LISTING_RE.search(command) is None:
                continue
            for job in found.values():
                if e.index > job.start and (seen := _alive(command, r.text, job.ports, job.words)):
                    job.seen, job.killed = seen, ""
                    job.pid = m.group(1) if (m := re.match(r"pid (\d+)", seen)) else ""
        for label, call in _starts(s, e, calls):
            client = next(iter(programs(label)), "") in _CLIENTS  # its port is a server's (W3)
            ports = set() if client else {m.group(1) for m in _PORT_RE.finditer(label)}
            found.pop(label, None)  # started again: the new run is the job
            found[label] = _Candidate(e.index, ports, _words(call.command or ""))
    for label, job in found.items():
        if not job.seen:
            continue
        known = next((b for b in s.background.values() if b.command == label), None)
        if known is None and label in judged:
            continue  # seen ending (a kill, its exit): a later sign of life is another's
        if known is None:
            known = s.background[label] = Background(label, label, job.start)
        if not known.finished:
            known.seen, known.finished = job.seen, job.killed
