"""Background jobs judged by shape, whatever the harness calls its tools.

A job is running when a tool result names a job, task, shell, process, session or agent id
(``running in background with ID: b7x``, ``task_id: 42``, ``Process running with session ID
9``, ``{"shell_id": "s1"}``) and nothing LATER reports that id finished. What counts as a report
is narrow, because build tools print "Finished", "completed" and "done" all the time:

* a later call that names the id (a poll, a wait, a read of its output) whose result reports an
  exit (``Process exited with code 0``, ``exit_code: 1``, ``<status>completed</status>``,
  ``"status": "finished"``, "job 42 finished", "No such process") and does not name the id as
  still alive (``SESSION_ID=89726`` again, ``<status>running``, "still running");
* a kill/stop call naming it, or Ctrl-C written to it;
* a notification the CLI injected as a user message that names the id with a status (a
  ``<task-notification>`` of a watch's event, the watched command's output, never ends it:
  :mod:`.jobnotice`);
* any other later result only when it ties the id to such an exit status (``<task-id>b7x</task-id>
  <status>completed</status>``).

* a later process reports listening on a port the job served on (two processes cannot listen
  on one port: the job's server is gone).

Words such as cargo's "Finished `dev` profile", a harness's "Script completed" header or a
"done" in the starting call's own output never end a job. Harness names (``Monitor``,
``BashOutput``, ``KillShell``…) are not needed: only the id and the words around it are read.

What reports an end is read in :mod:`.jobends`. :func:`background_jobs` walks
:class:`~compactor.facts.text.Entry` views once and returns every
job it saw start, each with whether (and how) it was seen to finish. Linear: each result is
scanned on its first :data:`_HEAD` characters for a start, and on a bounded window for ids it
reports on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from compactor._util import lazy_pattern

from .agentresults import NOT_DONE, blocked_report
from .commands import command_of, is_reading_program, programs
from .detached import end_detached, launched, polled_body
from .jobends import EXITED_RE, exit_report, finished_line, unlisted
from .jobnames import started_programs, stops_by_name
from .jobnotice import notice_end
from .jobports import listening as _listening
from .jobports import serves as _serves
from .jobstate import ID_END, ID_TAG, earlier_run, is_notice, last_process
from .outcomes import strip_output_header
from .teams import teammate_end, teammates
from .text import Call, Entry, cut, lowers_exactly, one_line

__all__ = ["Job", "background_jobs", "job_ended_in", "job_starts", "stopped_jobs"]

_HEAD = 2_000
_ID = r"`?['\"]?([A-Za-z0-9][\w\-.]{1,63})"
_START_RE = lazy_pattern(
    r"(?:running in (?:the )?background with (?:ID|id)|in the background[^\n]{0,40}?\b(?:id|ID)|"
    r"background (?:task|shell|job|process) (?:started|id|ID)|"
    r"\b(?:task|job|shell|bash|process|session|agent|run)[ _-]?(?:id|ID|Id)\b|agentId|\bpid\b|"
    r"Process running with session ID|started (?:job|task|process|shell)|"
    r"\bstarted\s*\(\s*(?:task|job|shell|process)|"
    r"(?:job|task|shell|process) (?:submitted|queued|started|launched|spawned)(?: with id)?)"
    r"['\"]?\s*(?:[:=#]|is)?\s*" + _ID,
    re.IGNORECASE,
)
_AFTER_RE = lazy_pattern(
    r"\b(?:task|job|shell|process)\s+`?['\"]?(?=[\w\-.]*\d)([A-Za-z0-9][\w\-.]{1,63})`?['\"]?"
    r"\s+(?:(?:has |was )?(?:started|launched|spawned)|"
    r"is running(?: in (?:the )?background)?)\b",
    re.IGNORECASE,
)
"""A start that names the id before the words (``Task 7f3a9c2 started``; an id with a digit:
"shell script started" names none): blind check 51, W2."""
_LAST_ID_RE = lazy_pattern(
    r"\b(?:session|process|shell|job|task)[ _-]?id\s*[:=]\s*`?([A-Za-z0-9][\w\-]{1,63})`?\s*$",
    re.IGNORECASE,
)
"""An id a tool prints as its output's last line (``SESSION_ID=89726``): what it left running,
unless the command exited (:func:`_foreground`)."""
_EXIT_HEAD_RE = lazy_pattern(
    r"Process exited with code\s*-?\d+|\bexit(?:ed)?[ _]?code\b[\"'>:=\s]*-?\d+", re.IGNORECASE
)


def _label_of(last: re.Match[str]) -> str:
    """The label before the id of a :data:`_LAST_ID_RE` match (``SESSION_ID``)."""
    return last.group(0)[: last.start(1) - last.start()].rstrip("`:= \t")


def _foreground(text: str, arguments: str, label: str) -> bool:
    """Whether an id line is what a foreground command printed and returned from: the harness
    reports the command's exit (``Process exited with code 0``), or the command itself echoes
    the label (``echo "SESSION_ID: $_SESSION_ID"``: a value it computed, not a process left
    running)."""
    if _EXIT_HEAD_RE.search(text[:600]) is not None:
        return True
    printer = r"(?:echo|printf|print|puts|Write-(?:Output|Host)|console\.log)\b[^\n]{0,40}?"
    if _FIELD_RE.search(arguments) is not None:
        return False  # it prints the id a tool returned (``r.session_id``): a live process
    return re.search(printer + re.escape(label), arguments, re.IGNORECASE) is not None


_FIELD_RE = lazy_pattern(r"\.\s*(?:session|process|shell|job|task)_?id\b", re.IGNORECASE)


_RUNNING_WORDS = re.compile(
    r"\b(?:running|background|started|queued|submitted|spawned|launched|in progress|pending)\b"
    r"(?![\"']\s*:)",  # not a record's key ({"running": true})
    re.IGNORECASE,
)
_KILL_NAME_RE = lazy_pattern(r"kill|stop|cancel|terminate", re.IGNORECASE)
_ID_WORDS = frozenset(
    "the a an and or of to is in on for with not none null true false id ids this that".split()
)


@dataclass(slots=True)
class Job:
    """A job a tool result named: its id, what started it, and how it ended (if seen)."""

    id: str
    label: str
    """The command or call that started it (one line)."""
    index: int
    """Entry index of the result that named it."""
    finished: str = ""
    """The line that reported it finished; empty while running."""
    said: str = ""
    """The line of the result that named it (where its output goes, what it runs)."""
    ports: set[str] = field(default_factory=set)
    """Ports it serves on (``--bind 127.0.0.1:8080``, "listening on :8080")."""
    process: str = ""
    """The CLI process its start result came from (:attr:`Entry.process`)."""
    detached: bool = False  # keyed by what a detaching launcher reported (:mod:`.detached`)
    programs: frozenset[str] = frozenset()
    """The programs its start command runs (:func:`.jobnames.started_programs`): a later stop by
    one of their names ends it."""

    @property
    def running(self) -> bool:
        return not self.finished


def _label(call: Call | None, name: str) -> str:
    if call is None:
        return name
    command = command_of(call)
    if command:
        return cut(" ".join(command.split()), 200)
    for key in ("description", "prompt", "subagent_type", "task"):
        value = call.args.get(key)
        if isinstance(value, str) and value.strip():
            return cut(f"{call.name}: {' '.join(value.split())}", 200)
    return call.name


_RUNNING_HINTS = (
    "running", "background", "started", "queued", "submitted", "spawned", "launched",
    "in progress", "pending",
)  # fmt: skip
"""The words of :data:`_RUNNING_WORDS`: a text whose lower-cased form holds none has no match (if
lower-casing is what the pattern compares, :func:`~compactor.facts.text.lowers_exactly`): cheap."""


def _started(text: str, call: Call | None = None) -> list[str]:
    arguments = call.arguments if call is not None else ""
    head = text[:_HEAD]
    says = _says(call)
    if says is _HARNESS_START_RE:  # file content: only the harness's own words start a job
        where = text[: _HARNESS_HEAD + text.find("\nChunk ID", 0, 8_000)]
        if lowers_exactly(where) and not _says_harness_words(where.lower()):
            return []  # the pattern, tried at every character, finds nothing (most reads)
        harness = _HARNESS_START_RE.search(where)
        return [harness.group(1).strip(".")] if harness is not None else []
    tail = text[-200:].rstrip()
    if not lowers_exactly(tail) or "id" in tail.lower():  # what _LAST_ID_RE needs
        last = _LAST_ID_RE.search(tail)
        if last is not None and not _foreground(text, arguments, _label_of(last)):
            return [last.group(1)]
    if lowers_exactly(head):
        low = head.lower()
        if not any(word in low for word in _RUNNING_HINTS):
            return []
    if _RUNNING_WORDS.search(head) is None:
        return []  # an id in a result that says nothing runs is a record, not a job
    found, body = [], polled_body(text, call)
    for match in [*_START_RE.finditer(head), *_AFTER_RE.finditer(head)]:
        key = match.group(1).strip(".")
        if 0 <= body <= match.start() and match.group(0)[:3].lower() == "pid":
            continue  # a pid a polled session printed (its child), not a job (blind check 54 W2)
        if key.lower() in _ID_WORDS or len(key) < 2:
            continue
        if not any(ch.isdigit() for ch in key) and len(key) < 6:
            continue  # "task: build" is a word, not an id
        near = head[max(0, match.start() - _NEAR) : match.end() + _NEAR]
        if says.search(near) is None:
            continue  # a "run_id" field of a record, far from any word that something runs
        found.append(key)
    return list(dict.fromkeys(found))


def job_starts(text: str) -> list[str]:
    """The ids of the jobs a tool result ``text`` names as started, read as
    :func:`background_jobs` reads a result whose call it does not know (any words that
    something runs near the id): what reduction keeps of a job still running (issue 30)."""
    return _started(text)


def job_ended_in(text: str, key: str) -> bool:
    """Whether ``text`` reports job ``key`` ended (an exit near its id, and not "still
    running"), as :func:`background_jobs` reads a later message naming a job."""
    how = notice_end(text, key)
    return bool(finished_line(text, key, EXITED_RE) if how is None else how)


def _says_harness_words(low: str) -> bool:
    """Whether a lower-cased text holds what every match of :data:`_HARNESS_START_RE` holds."""
    return "background" in low or "process running with session id" in low or "started (" in low


_HARNESS_START_RE = re.compile(
    r"(?:running in (?:the )?background with (?:ID|id)|Process running with session ID|"
    r"background (?:task|shell|job|process) (?:started|id|ID)|"
    r"\bstarted \((?:task|job|shell|process))[:\s]+" + _ID,
    re.IGNORECASE,
)
"""What a harness says of a call it left running (Claude Code's ``run_in_background``, Codex's
unified exec): the only start a call whose output is file content can report."""
_STARTS_RE = re.compile(
    r"\b(?:started|queued|submitted|spawned|launched|running in (?:the )?background)\b|"
    r"Process running with session ID",
    re.IGNORECASE,
)
"""Words by which a foreground command's own output says it left something running ("started
process, pid 7311", "job queued"): never a bare "running", which a server's "A server is already
running (pid: 19784)" also prints while it exits."""
_BACKGROUNDS_RE = lazy_pattern(
    r"(?<![&|>])&[ \t]*(?:$|;|\n|\)|\bdisown\b|\becho\b|\bwait\b|\bsleep\b)|\bnohup\b|"
    r"\bsetsid\b|\bdisown\b|\b(?:docker|podman)\b[^\n;|]*\s(?:-d|--detach)\b|"
    r"\bStart-(?:Process|Job)\b|\bstart\s+/b\b|\bscreen\s+-d|\btmux\s+new[^\n;|]*\s-d\b|"
    r"\bpm2\s+start\b|\bsystemd-run\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A shell command that leaves a process running when it returns (``cmd &``, ``nohup``,
``docker run -d``…). A program's own ``--detach`` flag is not one: the daemon it reports
starting ("started in background (PID: N)") is not the agent's job (blind check 61, W1)."""


def _says(call: Call | None) -> re.Pattern[str]:
    """The words a result must have near an id for the id to be a job its call started: the
    call's own result is the only witness. A call that backgrounds (``run_in_background``, a
    command ending in ``&``, ``nohup``) or a tool that is not a shell command (a job/task tool)
    may say so in any words (:data:`_RUNNING_WORDS`); a foreground shell command only by
    :data:`_STARTS_RE`; a call that reads files (``cat``, ``tail`` of a log, ``Read``) only by the
    harness's own words (:data:`_HARNESS_START_RE`): a log that says "running (pid: 19784)"
    reports some earlier process, not one this call started."""
    if call is None:
        return _RUNNING_WORDS
    command = command_of(call)
    if call.args.get("run_in_background") is True or (
        command is not None and _backgrounds(command)
    ):
        return _RUNNING_WORDS
    if (
        call.name.lower() in _FILE_TOOLS
        or (command is None and _edits_file(call))
        or (command is not None and any(is_reading_program(n) for n in programs(command)))
    ):
        return _HARNESS_START_RE
    return _RUNNING_WORDS if command is None else _STARTS_RE


def _backgrounds(command: str) -> bool:
    """Whether :data:`_BACKGROUNDS_RE` finds a backgrounding in ``command``; a command up to
    :data:`_CACHED_COMMAND` characters is read once (agents repeat their commands, and the
    pattern is tried at each of their characters)."""
    if len(command) > _CACHED_COMMAND:
        return _BACKGROUNDS_RE.search(command) is not None
    return _backgrounds_cached(command)


@functools.lru_cache(maxsize=4096)
def _backgrounds_cached(command: str) -> bool:
    return _BACKGROUNDS_RE.search(command) is not None


_CACHED_COMMAND = 2_000
_HARNESS_HEAD = 400
"""Where a harness writes its own words about a call it left running: the result's start."""
_FILE_TOOLS = frozenset({"read", "read_file", "view", "open", "grep", "glob", "search"})


def _edits_file(call: Call) -> bool:
    """Whether a call without a shell command names a file and the text it writes there (an
    Edit, Write, MultiEdit, NotebookEdit, str_replace): its result echoes the file's text, whose
    "Claude Code (PID 8165)" is no job it started (blind check 68, W5)."""
    return bool(call.written_file)


_NEAR = 200
"""How close to the id a start result must say that something runs (``queued``, ``started``)."""


def _line(text: str) -> str:
    """The start result on one line, without the harness's own header."""
    return cut(one_line(strip_output_header(text[:_HEAD])), 240)


_STOPPED = "stopped by "
"""How a job a kill/stop call or a Ctrl-C named is marked finished; a later result that says
the job still runs ("Process running with session ID N") takes it back (blind check 34 N1: a
Ctrl-C whose write failed, "stdin is closed", then three polls "Process running": the hung
test session was left out of the running jobs)."""
_INTERRUPT = "\\u0003"
"""Ctrl-C written to a process's stdin, as it appears in a call's JSON arguments."""


def _serving(jobs: dict[str, Job]) -> bool:
    """Whether a job not seen finishing serves on a port (a later listener there ends it)."""
    return any(job.ports and not job.finished for job in jobs.values())


def _names(arguments: str, key: str) -> bool:
    at = arguments.find(key)
    while at >= 0:
        before = arguments[at - 1] if at else " "
        after = arguments[at + len(key)] if at + len(key) < len(arguments) else " "
        if not (before.isalnum() or after.isalnum()):
            return True
        at = arguments.find(key, at + 1)
    return False


_TRAILING_AMP_RE = lazy_pattern(r"(?<![&|>])&[ \t]*(?:disown\b[^\n]*)?$|^\s*(?:nohup|setsid)\b")
"""A shell command that ends in ``&`` (or starts with ``nohup``/``setsid``): it leaves its
process running when it returns, whether or not the harness names a job id."""
_START_FAILED_RE = lazy_pattern(
    r"not found|No such file|cannot |can't |Errno|Traceback|\berror\b|already in use|"
    r"Permission denied|Exit code: [1-9]|exit(?:ed)? (?:code|status)[: ]+[1-9]",
    re.IGNORECASE,
)
"""What the output of a backgrounding command says when its process could not start (the
shell's exit code is 0 anyway: ``python: not found`` after ``python -m http.server &``)."""
_STOP_RE = lazy_pattern(r"\b(?:kill|pkill|killall|fuser\s+-k|stop|shutdown)\b", re.IGNORECASE)
_COMMON_WORDS = frozenset("python python3 node npm npx bash sh nohup setsid cd exec".split())


def _detached(call: Call, text: str) -> bool:
    """Whether a shell command without a job id left a process running: the command ends in
    ``&`` (or starts with ``nohup``/``setsid``) and its output does not say it failed to start
    (an earlier failed attempt is not the job)."""
    command = command_of(call)
    if command is None or not _leaves_running(command):
        return False
    return _START_FAILED_RE.search(text[:_HEAD]) is None


_PRINTED_PID_RE = lazy_pattern(r"\bPID\b[^\d\n]{0,12}?(\d{2,8})\b", re.IGNORECASE)
_KILLS_RE = lazy_pattern(r"\bkill\s+(?!-0\b)")
"""A shell ``kill`` in a call that names a job known by its pid: the job is stopped."""
_PID_FIELD_RE = lazy_pattern(r"\bPID\s*[:=#]\s*(\d{2,8})\b")
_BARE_PID_RE = lazy_pattern(r"^\s*(?:\[\d{1,2}\]\s+)?(\d{2,8})\s*$", re.MULTILINE)


def _printed_pid(call: Call, text: str) -> str:
    """The pid a backgrounding command printed (``nohup CMD > LOG 2>&1 & echo "PID: $!"`` →
    ``PID: 2167150``, or the bare number ``echo $!`` prints), '' when none or when its output
    says the process could not start: the job it left running, known by that pid."""
    command = command_of(call)
    if command is None:
        return ""
    echoed = "$!" in command
    if not (echoed or "PID" in text[:_HEAD]) or not _backgrounds(command):
        return ""
    head = text[:_HEAD]
    if _START_FAILED_RE.search(head) is not None:
        return ""
    printed = (_PRINTED_PID_RE if echoed else _PID_FIELD_RE).search(head)
    if printed is None and echoed:
        printed = _BARE_PID_RE.search(head)
    return printed.group(1) if printed is not None else ""


_JOB_REPORT_RE = lazy_pattern(
    r"^\[\d{1,3}\][+-]?\s+(Done|Exit \d{1,3}|Killed|Terminated)\s+(\S[^\n]*)$", re.MULTILINE
)
"""The shell's report of a background job that ended (``[1]+  Done   nohup python x.py …``)."""


def _job_reports(text: str) -> list[tuple[str, str]]:
    """The shell's ``Done``/``Exit N`` reports of background jobs in an output: (the report
    line, the command it names); read once per output, whatever the number of jobs."""
    if "Done" not in text and "Exit " not in text:
        return []
    return [(m.group(0), " ".join(m.group(2).split())) for m in _JOB_REPORT_RE.finditer(text)]


def _job_report(reports: list[tuple[str, str]], job: Job) -> str:
    """The report (:func:`_job_reports`) of ``job`` (a job started with ``&``) in a later
    output: the report's command is the start of the job's command."""
    if job.finished or not job.label:
        return ""
    for line, said in reports:
        if len(said) >= 8 and said.rstrip("&").strip() in job.label:
            return cut(line.strip(), 160)
    return ""


def _leaves_running(command: str) -> bool:
    """Whether :data:`_TRAILING_AMP_RE` finds ``command`` (stripped) ending in ``&`` or starting
    with ``nohup``; read once per command, as :func:`_backgrounds`."""
    if len(command) > _CACHED_COMMAND:
        return _TRAILING_AMP_RE.search(command.strip()) is not None
    return _leaves_running_cached(command)


@functools.lru_cache(maxsize=4096)
def _leaves_running_cached(command: str) -> bool:
    return _TRAILING_AMP_RE.search(command.strip()) is not None


def _stops(call: Call, label: str) -> bool:
    """Whether ``call`` kills or stops the process a command without a job id started: a kill
    word and a distinctive word of that command (``http.server``, its port)."""
    if _STOP_RE.search(call.arguments) is None:
        return False
    words = {w.strip("&;'\"") for w in label.split() if not w.startswith("-")}
    return any(len(w) >= 4 and w not in _COMMON_WORDS and w in call.arguments for w in words)


_BY_NAME_WORDS = ("kill", "stop-process")


def _stop_by_name(jobs: Iterable[Job], call: Call, name: str) -> None:
    """Mark finished each running job whose program ``call`` (which worked) stopped by name
    (``pkill NAME``, ``Get-Process -Name NAME | Stop-Process``: blind check 74 W2)."""
    command = command_of(call)
    if command is None or not any(w in command.lower() for w in _BY_NAME_WORDS):
        return
    for job in jobs:
        if job.running and job.programs and stops_by_name(command, job.label, job.programs):
            job.finished = f"{_STOPPED}{_label(call, name)}"


def background_jobs(entries: list[Entry], seed: tuple[Job, ...] = ()) -> list[Job]:
    """Every job a tool result named (and the ``seed``: jobs started before ``entries``), in
    order, with ``finished`` set when a later message reported it done (the module docstring)."""
    jobs: dict[str, Job] = {job.id: job for job in seed}
    calls: dict[str, Call] = {}
    watching: dict[str, str] = {}
    """call id → the running job its arguments name (its result may report the job's end)."""
    for e in entries:
        if e.internal:
            continue
        for call in e.calls:
            if call.id:
                calls[call.id] = call
            for key, job in jobs.items() if jobs else ():
                if not job.finished and key == job.label and _stops(call, job.label):
                    job.finished = f"{_STOPPED}{_label(call, call.name)}"
                if job.finished or not _names(call.arguments, key):
                    continue
                if (
                    _KILL_NAME_RE.search(call.name)
                    or _INTERRUPT in call.arguments
                    or "\x03" in call.arguments
                    or (key.isdigit() and _KILLS_RE.search(call.arguments) is not None)
                ):
                    job.finished = f"{_STOPPED}{call.name}"
                elif call.id and not job.detached:
                    watching[call.id] = key
        for r in e.results:
            started_by = calls.get(r.call_id)
            new = _started(r.text, started_by)
            watched = jobs.get(watching.pop(r.call_id, ""))
            shell = end_detached(jobs.values(), started_by, r.text)  # (blind check 54, W1)
            if jobs and started_by is not None and not r.is_error:
                _stop_by_name(jobs.values(), started_by, r.name)
            if watched is not None and not watched.finished and watched.id not in new:
                watched.finished = exit_report(r.text, calls[r.call_id].arguments, watched.id)
                watched.finished = watched.finished or unlisted(
                    calls[r.call_id], r.text, watched.id
                )
            if jobs and (reports := _job_reports(r.text)):
                for job in jobs.values():
                    job.finished = job.finished or _job_report(reports, job)
            for key, job in jobs.items():
                if job.finished or key in new or job is watched or key not in r.text:
                    continue
                job.finished = "" if job.detached else finished_line(r.text, key, EXITED_RE)
            # the ports it reports listening on: read only when a job can use them (most
            # results of most sessions: none, and the read looks at the whole text)
            serving = watched is not None or bool(new) or (bool(jobs) and _serving(jobs))
            listening = _listening(r.text) if serving else set()
            if watched is not None:
                watched.ports |= listening
            for job in jobs.values() if listening else ():
                if job.finished or job is watched or job.id in new or not job.ports & listening:
                    continue
                port = min(job.ports & listening)
                job.finished = f"gone: a later process listens on port {port}"
            name = launched(shell, r.text) if shell and not new else ""
            if pid := name or (_printed_pid(started_by, r.text) if started_by and not new else ""):
                new = [pid]  # nohup … & then echo $!: the job is its pid (blind check 27, N1)
            elif not new and started_by is not None and _detached(started_by, r.text):
                new = [_label(started_by, r.name)]  # no id: the job is named after its command
            for key in new:
                if key in jobs and jobs[key].finished.startswith(_STOPPED):
                    jobs[key].finished = ""  # a later result says it runs: the stop did not take
                if key not in jobs and key != r.call_id:
                    job = Job(key, _label(started_by, r.name), e.index, "", _line(r.text))
                    job.process = e.process
                    heard = listening if serving else _listening(r.text)
                    job.ports = _serves(r.text) | _serves(job.label) | heard
                    job.detached = key == pid  # the launcher's exit is not the job's end
                    if started_by is not None and (command := command_of(started_by)):
                        job.programs = started_programs(command)
                    if started_by is not None and started_by.ended and key not in (job.label, pid):
                        job.finished = f"its process ended ({started_by.ended})"
                    jobs[key] = job
        if e.role == "user" and e.text and jobs:
            for key, job in jobs.items():
                if not job.finished and key in e.text:  # an event of a watch never ends it
                    how = notice_end(e.text, key)  # (blind check 51, W2)
                    job.finished = how if how == "" else finished_line(e.text, key) or how or ""
    last = last_process(entries) if jobs else ""
    for job in jobs.values() if last else ():  # a harness's job ends with its CLI process
        if not job.finished and job.id != job.label and not job.detached:
            job.finished = earlier_run(job.process, last)
    mates = teammates(entries) if any(j.running for j in jobs.values()) else []
    for job in jobs.values() if mates else ():  # an agent team's teammate (blind check 47, W1)
        job.finished = job.finished or teammate_end(mates, job.id, job.index)
    return list(jobs.values())


_NOTIFIED_RE = lazy_pattern(
    ID_TAG + r"\s*([\w\-.]+)\s*" + ID_END + r".*?<status>\s*(\w+)\s*</status>"
    r"(?:(?:(?!" + ID_TAG + r").)*?<summary>(.*?)</summary>)?",
    re.DOTALL,
)
"""A notification the CLI injects as a user message when a background task or an async
sub-agent stops (Claude Code's ``<task-notification>``): its id, status and summary."""


def stopped_jobs(entries: list[Entry], since: int) -> list[tuple[str, str, str]]:
    """(label, status, summary) of each background job or async sub-agent started after entry
    ``since`` that a notification (``<task-notification>``) reported stopped."""
    jobs = [j for j in background_jobs(entries) if j.index > since]
    said: dict[str, tuple[str, str]] = {}
    for e in entries if jobs else ():
        if e.index > since and e.role == "user" and "<status>" in e.text:
            for m in _NOTIFIED_RE.finditer(e.text):
                said[m.group(1)] = (m.group(2).lower(), one_line(m.group(3) or ""))
                if (blocked := blocked_report(e.text, m.group(1))) and m.group(2) != "killed":
                    said[m.group(1)] = (f"{m.group(2).lower()}, {NOT_DONE}", blocked)
    found = ((job.label, *said.get(job.id, ("", ""))) for job in jobs)
    return [x for x in found if x[1] and x[1] not in ("running", "pending", "started")]


def unlaunched_reports(entries: list[Entry]) -> list[tuple[str, str, str]]:
    """(id, status, what it said) of each background task a ``<task-notification>`` reports
    stopped whose launch is not in ``entries`` (no earlier tool result names its id: it was
    started in a part an earlier summary covers; blind check 14), the latest report of each.
    What it said is the sentence of its result saying it could not do its work (the status
    then ends with :data:`NOT_DONE`), else its summary."""
    if not any(e.role == "user" and is_notice(e.text) for e in entries):
        return []
    named: list[str] = []
    found: dict[str, tuple[str, str, str]] = {}
    for e in entries:
        if e.internal:
            continue
        named.extend(r.text for r in e.results if r.text)
        if e.role != "user" or not is_notice(e.text):
            continue
        for m in _NOTIFIED_RE.finditer(e.text):
            key, status = m.group(1), m.group(2).lower()
            if status in ("running", "pending", "started") or any(key in t for t in named):
                continue
            blocked = blocked_report(e.text, key) if status != "killed" else ""
            said = blocked or one_line(m.group(3) or "")
            found.pop(key, None)
            found[key] = (key, f"{status}, {NOT_DONE}" if blocked else status, said)
    return list(found.values())
