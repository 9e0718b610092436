"""The session as the local summarizer models it: requests, tasks, errors, files, results.

:func:`build_session` reads the context once, in order, and keeps the state an agent needs to
resume (each piece is what a section of the summary is written from): **requests** — the
user's own messages (injected context, harness notices and CLI-local slash commands such as
``/compact`` are not requests); **context** — what the CLI injected (environment, AGENTS.md,
skill bodies); **tasks** — the agent's own plan (``TodoWrite``, ``TaskCreate``/``TaskUpdate``,
Codex ``update_plan``, task lists in injected reminders); **background** processes started and
not yet seen finishing; **in-flight** calls without a result; **errors** — failed tool results
(:func:`compactor.facts.outcome`) with their command and whether a later step fixed them
(:mod:`compactor.models.local_failures`); **files** — created, edited and deleted files
(:mod:`compactor.models.local_files`), files only read apart; **decisions** — assistant
sentences that state a change, a decision, a cause or a result; **outputs** — what successful
commands printed; **turn** — whether the last turn ended or stopped mid-work (or the user
interrupted it; :mod:`compactor.models.local_turnend`), the final deliverable (the last
substantial answer to the current request) and the question the agent asked, if any.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar, cast

from compactor._util import lazy_pattern
from compactor.facts import (
    INTERRUPT_RE,
    Call,
    Entry,
    Outcome,
    Result,
    command_of,
    cut,
    is_reading_call,
    newest_from,
    one_line,
    outcome,
)
from compactor.facts.attachments import request_entry
from compactor.facts.cmdprompt import with_prompt
from compactor.facts.durable import embedded_rules, is_earlier_summary, rules_name
from compactor.facts.jobstate import gone_reply, is_notice, stopped

from .local_callwrites import with_embedded
from .local_ctrlc import STOPPED_BY_CTRL_C, ctrl_c_stop, sent_ctrl_c
from .local_decisions import scored_once
from .local_established import established, shows_document
from .local_evalnotice import is_evaluation_notice
from .local_failures import Failures
from .local_fileread import note_read
from .local_files import FileState, file_changes
from .local_menu import menu_items, on_menu
from .local_noise import cli_failed, is_empty_message, local_command, plain_request, ran_locally
from .local_notices import notified_end
from .local_places import Places
from .local_plan import PlanTracker
from .local_printed import echoed, printed, read_output
from .local_records import Background, ErrorFact, subagent_note
from .local_relpath import NamedPaths, state_for
from .local_reported import reported_changes, reported_removals
from .local_results import ended_how
from .local_task import Task
from .local_text import call_line, final_round_start, is_harness_error, slash_command
from .local_turnend import end_turn
from .local_usershell import add_local

__all__ = [
    "PLAN_TOOLS",
    "Background",
    "ErrorFact",
    "Session",
    "Task",
    "build_session",
    "call_line",
    "once",
]

T = TypeVar("T")

_BG_START_RE = lazy_pattern(
    r"(?:running in (?:the )?background with ID|background (?:task|shell) (?:started|id)|"
    r"agentId|Process running with session ID)[:\s]+`?([\w\-]+)",
    re.IGNORECASE,
)
_BG_STATUS_RE = lazy_pattern(r"<status>\s*(\w+)\s*</status>")
_NOTIFY_ID_RE = lazy_pattern(r"<(?:task|shell|bash|agent)[-_]id>\s*([\w\-]+)\s*</", re.IGNORECASE)
_LISTED_TASK_RE = lazy_pattern(
    r"^\s*(?:[-*]\s*)?(?:#?(\w{1,12})[.):]?\s+)?"
    r"\[(pending|in[_ ]progress|completed|done)\]\s+(.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_ENV_FIELD_RE = lazy_pattern(r"<(cwd|shell|current_date|timezone)>([^<]{1,200})</\1>")
_AGENTS_RE = lazy_pattern(r"# AGENTS\.md instructions(?: for ([^\n]+))?[ \t]*(?:\n|\Z)")
_SKILL_DIR_RE = lazy_pattern(r"Base directory for this skill:\s*(\S+)")
PLAN_TOOLS = frozenset(
    "TodoWrite todo_write update_plan TaskCreate TaskUpdate TaskList TaskGet".split()
)
_FILE_MARKER_RE = lazy_pattern(r"\[File: (\S+) \(\d+ lines total\)\]|\(Open file: ([^)\n]+)\)")
_CWD_MARKER_RE = lazy_pattern(r"\(Current directory: (/[^)\n]*)\)")  # SWE-agent's prompt
DELIVERABLE_CHARS, _SHORT_REPLY = 500, 40


@dataclass(slots=True)
class Session:
    """What :func:`build_session` extracted (see the module docstring)."""

    entries: list[Entry]
    requests: list[Entry] = field(default_factory=list)
    asides: list[Entry] = field(default_factory=list)  # typed mid-turn: notes to a request
    replies: list[tuple[Entry, str]] = field(default_factory=list)  # (reply, asked): local_replies
    local_commands: list[tuple[int, str]] = field(default_factory=list)  # (index, /command)
    context: list[str] = field(default_factory=list)
    prior: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    plan_at: int = -1  # the entry of the last call that wrote or updated the plan (W6)
    background: dict[str, Background] = field(default_factory=dict)
    errors: list[ErrorFact] = field(default_factory=list)
    files: dict[str, FileState] = field(default_factory=dict)
    reads: dict[str, None] = field(default_factory=dict)
    decisions: list[tuple[int, int, str]] = field(default_factory=list)
    """(entry index, score, sentence): 3 = decision or cause, 2 = change or result, 1 = reason."""
    outputs: list[tuple[int, int, str, str]] = field(default_factory=list)
    """(entry index, score, call line, what it printed), both texts on one line, of successful
    commands; score 2 when the output has a result line (tests, coverage, deployment, commit,
    metric), else 1."""
    rejected: list[str] = field(default_factory=list)
    """Assistant proposals the user's next message turned down (never listed as decisions)."""
    answered: set[str] = field(default_factory=set)
    failed_calls: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(
        default_factory=dict
    )  # rejected call → its line (local_rejected)
    refused_at: dict[int, list[str]] = field(default_factory=dict)  # proposals of rejected calls
    redone: set[str] | None = None  # rejected calls a later call did (local_rejected, once)
    services: list[tuple[Call, str]] | None = None  # stops no call undid (local_services, once)
    plan_changes: dict[str, str] = field(default_factory=dict)  # plan call → the user's changes
    last_text: Entry | None = None
    """The last assistant message with text."""
    reply: Entry | None = None
    """The assistant's answer to the latest request: its last text after that request longer
    than a one-liner (else its last text)."""
    deliverable: Entry | None = None  # the last answer of >= DELIVERABLE_CHARS characters
    revised: Entry | None = None  # an earlier deliverable a later turn's answer revised
    deliverable_note: str = ""
    """Why an earlier quoted answer is not to be trusted: the user disputed it next, or a later
    failure overtook it (``the user disputed it next: '…'``; issue 28)."""
    turn_ended: bool = False
    failed_after: list[tuple[str, str, str]] = field(default_factory=list)  # (blind check 12)
    lost_said: list[str] = field(default_factory=list)  # work said lost, no file (local_lost)
    ended_by_tool: str = ""  # the call of a tool that ends the work (``submit``), if one did
    ended_output: str = ""  # what that tool returned (SWE-agent's ``submit``: the final diff)
    question: str = ""
    """The question the assistant's final message asked the user."""
    handoff: str = ""  # its sentences handing the next step to the user (local_handoff)
    request_started: bool = False
    """The assistant did something (said or called) after the latest request."""
    announced: str = ""
    """The next action the assistant's final message announced (``I'll change it …``)."""
    cut_turn: bool = False  # the final text announced it and no call followed (BENCH44 W2)
    read_from: int = 0  # decisions and identifiers are read from this entry on (newest_from)
    identifiers: list[str] | None = None
    """Identifiers ranked by use (filled by the summarizer on first use)."""
    walk: list[tuple[str, Entry | str | None, list[str]] | Entry] | None = None
    """The chronological steps of ``<analysis>`` (filled by the summarizer on first use)."""
    rules: list[str] | None = None
    """The user's constraints (filled on first use; like the next two, the same for any limits)."""
    named: list[str] | None = None
    """Files the user named that were not changed (filled by the summarizer on first use)."""
    linked: list[str] | None = None  # the last review's linked files (local_linked)
    linked_to: str = ""  # the earlier request they answer ("": the current one)
    users: list[str] | None = None
    """Every user message, earlier summaries' first (filled by the summarizer on first use)."""
    tools: list[tuple[str, int]] | None = None
    """(tool, calls) most used first (filled by the summarizer on first use)."""
    skills: list[str] = field(default_factory=list)
    """The skills the calls loaded, each once (filled with :attr:`tools`)."""
    flying: list[Call] | None = None  # :attr:`in_flight`, kept once the session is built
    harness_errors: list[Entry] = field(default_factory=list)  # ``API Error: 400 …`` texts
    interrupted: Entry | None = None  # the harness's notice that the user interrupted the turn
    aborted: Entry | None = None  # the user's last message, interrupted at once: no request
    unreadable: bool = False  # ``aborted`` is no readable text, not interrupted (76 N1)
    evaluated: Entry | None = None  # the harness's notice that it evaluates the work (check 20)
    trimmed: dict[int, Entry] = field(default_factory=dict)  # requests without embedded rules
    dirs: dict[str, str] = field(default_factory=dict)  # reading call → the directory it ran in
    notes: list[str] = field(default_factory=list)  # the turn's reasoning texts (local_notes)
    resent: list[tuple[list[str], list[tuple[str, int, bool]]]] = field(default_factory=list)
    """:func:`~.local_noise.collapse_resent`'s memo of the runs of sendings (sections 1 and 6)."""
    earlier: dict[str, str] = field(default_factory=dict)
    """What calls before the harness's own compaction did: ``changed`` (paths, one a line) and
    ``said`` (their arguments, cut short); :mod:`.local_earlier`."""
    once: dict[Callable[[Session], object], object] = field(default_factory=dict)
    """:func:`once`'s memo: what a section reads of the judged session, the same for any
    limits (the summary is rendered at two or more limits)."""

    @property
    def in_flight(self) -> list[Call]:
        """Calls without a result, in order (kept once the session is built)."""
        if self.flying is not None:
            return self.flying
        return [c for c in self.calls if c.id and c.id not in self.answered]

    @property
    def open_tasks(self) -> list[Task]:
        return [t for t in self.tasks.values() if not t.done]

    @property
    def running(self) -> list[Background]:
        return [b for b in self.background.values() if not b.finished]

    @property
    def last_request(self) -> Entry | None:
        return self.requests[-1] if self.requests else None


class _Builder:
    def __init__(self, entries: list[Entry]) -> None:
        self.s = Session(entries=entries, read_from=newest_from(entries))
        self.by_id: dict[str, Call] = {}
        self.open_file: str | None = None
        self.tracker = PlanTracker(self.s.tasks)
        self.by_name: dict[str, list[str]] = {}
        self.named = NamedPaths()  # the latest absolute path named for a base name
        self.places = Places()  # moves
        self.failures = Failures(self.s.errors, self.s.failed_calls, self.s.requests)  # and fixes
        self.memo: dict[str, list[tuple[int, str]]] = {}  # scored_once's
        self.early: dict[str, Result] = {}  # results written before their call (49 W3)

    # -- messages ------------------------------------------------------------------------------

    def user(self, e: Entry) -> None:
        for r in e.results:
            self.result(r, e.index)
        if is_empty_message(e.text):  # "(no content)": no request, answers nothing (81 W1)
            return
        if not e.injected and plain_request(e.text):  # (most texts, each judged once)
            return self.s.requests.append(e)
        if not e.text.strip():
            return
        local = local_command(e.text)
        if local and local.startswith("/"):  # "Error: Compaction canceled." (check 35 F3)
            local += cli_failed(self.s.entries, e.index)
        if local is None and "<command-name>" in e.text:  # a /plugin the CLI ran (check 19)
            local = ran_locally(self.s.entries, e.index)
        if local is not None:  # /model opus; a `!` shell command
            add_local(self.s.local_commands, e, local)  # an echo: what the command printed
            return
        if e.injected or is_earlier_summary(e.text):
            if not with_prompt(self.s.requests, self.s.entries, e, self.s.context):  # 34, 57 N2
                self.injected(e)
            return
        if self.s.requests and is_evaluation_notice(e.text):  # no request (blind check 20)
            self.s.evaluated = e
            return
        command = slash_command(e.text)
        split = embedded_rules(e.text) if command is None else None
        if split is not None:  # the request quotes only its own words; the rules are durable
            rules, request = split
            self.s.context.append(
                f'The user\'s message also embedded rules ("{rules_name(rules)}", {len(rules):,} '
                "characters; in the System reminder): rules for the agent, not the request"
            )
            self.s.requests.append(trimmed := replace(e, text=request))
            self.s.trimmed[e.index] = trimmed
            return
        if command:
            e = replace(e, text=command)
        elif "\n" in e.text:  # (a one-line request attaches no file: no call)
            e = request_entry(e)
        self.s.requests.append(e)

    def injected(self, e: Entry) -> None:
        text = e.text
        s = self.s
        if is_earlier_summary(text):  # its facts are kept; its state is stale, never current
            s.prior.append(text)
            return
        if INTERRUPT_RE.search(text):
            s.interrupted = e
        if "<environment_context>" in text:
            fields = dict(_ENV_FIELD_RE.findall(text))
            if fields:
                s.context.append(
                    "Environment (injected by the CLI): "
                    + ", ".join(f"{k.replace('_', ' ')} {v.strip()}" for k, v in fields.items())
                )
        if (agents := _AGENTS_RE.search(text)) is not None:
            where = f" for {agents.group(1).strip()}" if agents.group(1) else ""  # (Desktop: none)
            s.context.append(
                f"AGENTS.md instructions{where} were injected (rules for the agent, not requests)"
            )
        if (skill := _SKILL_DIR_RE.search(text)) is not None:
            name = skill.group(1).rstrip("/").rsplit("/", 1)[-1]
            s.context.append(f"Skill `{name}` instructions were loaded (context, not requests)")
        if "<subagent_notification>" in text:  # a subagent's end or shutdown (blind check 29)
            s.context.append(f"Subagent notification (from the harness): {subagent_note(text)}")
        if is_notice(text) or "background" in text.lower():
            self.notification(text)
        lowered = text.lower()
        if ("task" in lowered or "todo" in lowered) and "[" in text:
            listed = _LISTED_TASK_RE.findall(text)
            for key, status, subject in listed:
                k = key or subject.strip()
                s.tasks[k] = Task(k, cut(subject, 200), status.lower(), "reminder")

    def notification(self, text: str) -> None:
        status = _BG_STATUS_RE.search(text)
        for match in _NOTIFY_ID_RE.finditer(text):
            bg = self.s.background.get(match.group(1))
            if bg is not None and status is not None:
                self.finish(bg, status.group(1), text)
        for bg in self.s.running if is_notice(text) else ():
            if bg.key and (said := notified_end(bg.key, text)) is not None:
                self.finish(bg, *said)  # its plain form: "… ID completed (exit code 0)"

    def finish(self, bg: Background, status: str, text: str) -> None:
        status = status.lower()
        if status in ("running", "pending", "started"):
            return
        bg.finished = ended_how(status, text)  # "exited with code 0" names the code too

    def assistant(self, e: Entry) -> None:
        s = self.s
        if not e.calls and (e.cli_error or is_harness_error(e.text)):
            s.harness_errors.append(e)  # not an answer: the request it follows is unanswered
            return
        harness = s.evaluated is not None and s.requests[-1].index < s.evaluated.index
        if e.text.strip() and not harness:  # not the harness's own evaluation (blind check 20)
            s.last_text = e
            if len(e.text.strip()) >= DELIVERABLE_CHARS:
                s.deliverable = e
            if s.requests and e.index > s.requests[-1].index:
                if s.reply is None or s.reply.index < s.requests[-1].index:
                    s.reply = e
                elif (
                    len(e.text.strip()) > _SHORT_REPLY or len(s.reply.text.strip()) <= _SHORT_REPLY
                ):
                    s.reply = e
            scored = scored_once(e.text, self.memo) if e.index >= s.read_from else []
            menu = menu_items(e.text) if scored else frozenset()  # offered, not decided (28 W5)
            for score, sentence in scored:
                if not menu or not on_menu(sentence, menu):
                    s.decisions.append((e.index, score, sentence))
        for call in e.calls:
            s.calls.append(call)
            if call.id:
                self.by_id[call.id] = call
            self.plan(call)
        if not self.early or not e.calls:
            return  # (most entries: no dict built, a million times in a chat of tiny replies)
        for call in {c.id: c for c in e.calls if c.id in self.early}.values():
            self.result(self.early.pop(call.id), e.index)

    # -- the agent's plan ----------------------------------------------------------------------

    def plan(self, call: Call) -> None:
        name = call.name
        args = call.args
        if name in PLAN_TOOLS and name not in ("TaskList", "TaskGet"):
            self.s.plan_at = call.index
        if name in PLAN_TOOLS:
            self.tracker.call(call)  # (local_plan: an item's change waits for its result)
        elif args.get("run_in_background") is True:
            label = command_of(call) or str(args.get("description") or args.get("prompt") or "")
            self.s.background[call.id] = Background(call.id, cut(label, 200), call.index)
        elif name in ("KillShell", "KillBash", "TaskStop", "KillTask"):
            key = str(args.get("shell_id") or args.get("bash_id") or args.get("task_id") or "")
            if key in self.s.background and not self.s.background[key].finished:
                self.s.background[key].finished = "killed"  # (a job seen ending keeps its end)

    # -- results -------------------------------------------------------------------------------

    def result(self, r: Result, index: int) -> None:
        s = self.s
        s.answered.add(r.call_id)
        call = self.by_id.get(r.call_id)
        head = r.text[:2000]
        if ("[File:" in head or "(Open file:" in head) and (
            marker := _FILE_MARKER_RE.search(head)
        ) is not None:
            self.open_file = marker.group(1) or marker.group(2)
        if call is None:
            if r.call_id and r.call_id not in self.early:
                self.early[r.call_id] = r  # its call may come later in the file (49 W3)
            return
        self.background_result(call, r)
        self.named.note(call, r.text)
        oc = outcome(r, call)
        oc = self.failures.stages.seen(oc, call, r.text, index)  # a blocked restore (W4)
        if oc.failed and sent_ctrl_c(call, r.text):
            oc = Outcome(failed=False)  # the agent's own interrupt stopped it (blind check 34 W3)
        if call.name in PLAN_TOOLS:
            if self.tracker.result(call, r.text, oc.failed):  # a failed update changes nothing
                s.plan_at = max(s.plan_at, call.index)  # read back, changed by others (47 W2)
        self.places.listed(call, r.text, s.files, index, (self.by_name, s.reads))  # set 29, 58 W1
        if oc.failed:
            self.failures.failure(call, oc, index, is_reading_call(call))
            found = reported_changes(call, r.text, self.places, [])  # before its error
            found += reported_removals(call, r.text, self.places, [], s.files, s.reads)
            for change in found:
                self.file_state(change.path).apply(change, call.name, index)
            return
        reading = is_reading_call(call)
        if reading and (where := self.places.start(call)):
            self.s.dirs[call.id] = where  # its relative paths are there (blind check 34 W1)
        self.failures.success(call, r, index, reading)
        changes = with_embedded(call, r.text, file_changes(call, self.open_file), s)
        changes = changes + reported_changes(call, r.text, self.places, changes)  # "Wrote F"
        changes += reported_removals(call, r.text, self.places, changes, s.files, s.reads)  # 68 W2
        changes = self.places.follow(call, changes, s.files, self.by_name, index, s.reads)
        for change in changes:
            self.file_state(change.path).apply(change, call.name, index)
        if not call.cwd and (mark := _CWD_MARKER_RE.search(r.text[-400:])) is not None:
            self.places.shell = mark.group(1).rstrip("/") or "/"  # where the next calls run
        if reading:
            self.read(call, r.text)
            read_output(self.s.outputs, index, call, r.text)  # a log's errors, untracked files
        elif call.name not in PLAN_TOOLS and (not changes or command_of(call) is not None):
            self.output(call, r, index)

    def background_result(self, call: Call, r: Result) -> None:
        s = self.s
        if call.id in s.background:
            started = _BG_START_RE.search(r.text[:2000])
            if started is None and stopped(r.text):
                del s.background[call.id]  # the user rejected or stopped it: nothing started
            elif started is not None:
                bg = s.background.pop(call.id)
                bg.key = started.group(1)
                s.background[bg.key] = bg
        elif (
            ("session ID" in r.text[:600] or "in background with ID" in r.text[:200])
            and not call.ended  # its process's end was recorded (Codex's exec_command_end)
            and (started := _BG_START_RE.search(r.text[:600])) is not None
            and "session_id" not in call.args  # a poll: the job is named after its start
        ):
            label = command_of(call) or call.name
            s.background[started.group(1)] = Background(
                started.group(1), cut(label, 200), call.index
            )
        args = call.args
        key = str(
            args.get("bash_id") or args.get("shell_id") or args.get("task_id")
            or args.get("session_id") or ""
        )  # fmt: skip
        watched = s.background.get(key)
        if watched is not None and watched.index != call.index:
            call.job = watched.command  # its exit code is the job command's
            status = _BG_STATUS_RE.search(r.text)
            if status is not None:
                self.finish(watched, status.group(1), r.text)
            elif re.search(r"Process exited with code (-?\d+)", r.text[:600]):
                self.finish(watched, "exited", r.text[:600])
            elif gone := gone_reply(r.text):  # "No task found with ID: …": the harness lost it
                watched.finished = gone
            if sent_ctrl_c(call, r.text):
                watched.finished = STOPPED_BY_CTRL_C

    def file_state(self, path: str) -> FileState:
        return state_for(self.s.files, self.by_name, self.named, path, self.places.under_gone)

    def read(self, call: Call, text: str) -> None:
        note_read(self.s, self.places, call, text)  # (blind check 61 W5)

    def output(self, call: Call, r: Result, index: int) -> None:
        """What a successful command printed (:func:`.local_established.established`: an install,
        a test run's every section, a ``pkill`` that matched nothing; else
        :func:`.local_printed.printed`)."""
        found = ctrl_c_stop(call, r.text) or established(call, r.text) or printed(r.text)
        if found is not None and not echoed(call, found[1]):  # a plan's echo (blind check 49 N1)
            self._output(index, found[0], call, found[1])

    def _output(self, index: int, score: int, call: Call, printed: str) -> None:
        score = 0 if shows_document(command_of(call)) else score  # a README's lines: room last
        self.s.outputs.append((index, score, one_line(call_line(call, 160)), one_line(printed)))

    # -- the end -------------------------------------------------------------------------------

    def finish_session(self) -> Session:
        s = self.s
        start = final_round_start(s.entries)  # an older call without a result was abandoned
        s.flying = [c for c in s.in_flight if c.index > start]  # from here on it stays as it is
        self.tracker.finish()  # plan-tool calls never answered: as written
        self.failures.settle(s.in_flight)  # what the failures without a verdict wait for
        following, texts = "", dict[int, str]()
        wanted = {err.index for err in s.errors}  # not one item per message: a million of them
        for e in reversed(s.entries) if wanted else ():
            if e.index in wanted:
                texts[e.index] = following
            if e.role == "assistant" and e.text.strip():
                following = e.text
        for err in s.errors:
            err.next_text = texts.get(err.index, "")
        end_turn(s, self.by_id)
        return s


def once(s: Session, make: Callable[[Session], T]) -> T:
    """``make(s)``, made once per session: for what the sections read of the session once it is
    judged, whatever the limits (not for a judge: a later judge may change what it reads)."""
    if make not in s.once:
        s.once[make] = make(s)
    return cast(T, s.once[make])


def build_session(entries: list[Entry]) -> Session:
    """Walk ``entries`` once, in order, and return the :class:`Session` state."""
    b = _Builder(entries)
    for e in entries:
        if e.internal:
            b.s.prior.append(e.text)
        elif e.role == "assistant":
            b.assistant(e)
        elif e.role == "user":
            b.user(e)
        if e.role != "user" and not e.internal:  # a call's message may carry its end (Codex)
            for r in e.results:
                b.result(r, e.index)
        if e.aborted:  # Codex's turn_aborted event: as its `<turn_aborted>` notice (check 19)
            b.s.interrupted = e
    return b.finish_session()
