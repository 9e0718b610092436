"""The session as the local summarizer models it: requests, tasks, errors, files, results.

:func:`build_session` reads the context once, in order, and keeps the state an agent needs to
resume (each piece is what a section of the summary is written from): **requests** — the
user's own messages (injected context, harness notices and CLI-local slash commands such as
``/compact`` are not requests); **context** — what the CLI injected (environment, AGENTS.md,
skill bodies); **tasks** — the agent's own plan (``TodoWrite``, ``TaskCreate``/``TaskUpdate``,
Codex ``update_plan``, task lists in injected reminders); **background** processes started and
not yet seen finishing; **in-flight** calls without a result; **errors** — failed tool results
(:func:`compactor.facts.outcome`) with their command and whether a later step fixed them;
**files** — created, edited and deleted files (:mod:`compactor.models.local_files`), files
only read apart; **decisions** — assistant sentences that state a change, a decision, a cause
or a result; **outputs** — what successful commands printed; **turn** — whether the last turn
ended or stopped mid-work (or the user interrupted it), the final deliverable (the last
substantial answer to the current request) and the question the agent asked, if any.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from compactor._util import lazy_pattern
from compactor.facts import (
    INTERRUPT_RE,
    STOPPED,
    Call,
    Entry,
    Outcome,
    Result,
    clean,
    command_of,
    cut,
    is_reading_call,
    newest_from,
    one_line,
    outcome,
    sentences,
    strip_output_header,
)
from compactor.facts.attachments import request_entry
from compactor.facts.cmdprompt import with_prompt
from compactor.facts.durable import embedded_rules, is_earlier_summary, rules_name
from compactor.facts.filteredrun import hides_errors
from compactor.facts.jobstate import gone_reply, is_notice, stopped
from compactor.facts.masked import reran
from compactor.facts.wrappedread import is_wrapped_read

from .local_aborted import aborted_request
from .local_again import FailedAgain
from .local_callwrites import with_embedded
from .local_closeask import final_question
from .local_ctrlc import STOPPED_BY_CTRL_C, ctrl_c_stop, sent_ctrl_c, writes_ctrl_c
from .local_cutturn import cut_announcement
from .local_established import established, shows_document
from .local_evalnotice import is_evaluation_notice
from .local_fileread import note_read
from .local_files import FileState, file_changes
from .local_menu import menu_items, on_menu
from .local_noise import cli_failed, local_command, plain_request, ran_locally
from .local_notices import failed_after, notified_end
from .local_places import Places
from .local_plan import PlanTracker
from .local_printed import echoed, printed, read_output
from .local_records import Background, ErrorFact, subagent_note
from .local_relpath import NamedPaths, state_for
from .local_reported import reported_changes, reported_removals
from .local_results import ended_how
from .local_retries import job_started, piped_error, restated, retries, signature, waited_out
from .local_stages import Stages
from .local_standin import only_help, retry_tied, vacuous
from .local_task import Task
from .local_text import (
    announces_step,
    call_line,
    final_round_start,
    is_harness_error,
    is_prompt_line,
    scored_once,
    slash_command,
)
from .local_usershell import add_local

__all__ = ["PLAN_TOOLS", "Background", "ErrorFact", "Session", "Task", "build_session", "call_line"]

_TERMINAL_TOOLS = lazy_pattern(r"^(?:submit|finish|done|complete|attempt_completion|task_complete|"
                             r"end_conversation|transfer_to_human\w*)$", re.IGNORECASE)  # fmt: skip
"""Tools whose result ends the agent's work (SWE-agent ``submit``, tau-bench's hand-over)."""
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
DELIVERABLE_CHARS, _SHORT_REPLY, _RETRY_WINDOW = 500, 40, 64  # retry: last this-many errors


_REFUSED = "The user rejected this call"  # how compactor.facts.outcome says so


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
    evaluated: Entry | None = None  # the harness's notice that it evaluates the work (check 20)
    trimmed: dict[int, Entry] = field(default_factory=dict)  # requests without embedded rules
    dirs: dict[str, str] = field(default_factory=dict)  # reading call → the directory it ran in
    notes: list[str] = field(default_factory=list)  # the turn's reasoning texts (local_notes)
    resent: list[tuple[list[str], list[tuple[str, int, bool]]]] = field(default_factory=list)
    """:func:`~.local_noise.collapse_resent`'s memo of the runs of sendings (sections 1 and 6)."""
    earlier: dict[str, str] = field(default_factory=dict)
    """What calls before the harness's own compaction did: ``changed`` (paths, one a line) and
    ``said`` (their arguments, cut short); :mod:`.local_earlier`."""

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
        self.places, self.stages = Places(), Stages()  # (moves; restores and build stages)
        self.unfixed: list[ErrorFact] = []
        self.again = FailedAgain()  # a failure's later failing retries (BENCH45 W4)
        self.memo: dict[str, list[tuple[int, str]]] = {}  # scored_once's
        self.early: dict[str, Result] = {}  # results written before their call (49 W3)

    # -- messages ------------------------------------------------------------------------------

    def user(self, e: Entry) -> None:
        for r in e.results:
            self.result(r, e.index)
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
        oc = self.stages.seen(outcome(r, call), call, r.text, index)  # a blocked restore (W4)
        if oc.failed and sent_ctrl_c(call, r.text):
            oc = Outcome(failed=False)  # the agent's own interrupt stopped it (blind check 34 W3)
        if call.name in PLAN_TOOLS:
            if self.tracker.result(call, r.text, oc.failed):  # a failed update changes nothing
                s.plan_at = max(s.plan_at, call.index)  # read back, changed by others (47 W2)
        self.places.listed(call, r.text, s.files, index, (self.by_name, s.reads))  # set 29, 58 W1
        if oc.failed:
            self.failure(call, oc, index, is_reading_call(call))
            found = reported_changes(call, r.text, self.places, [])  # before its error
            found += reported_removals(call, r.text, self.places, [], s.files, s.reads)
            for change in found:
                self.file_state(change.path).apply(change, call.name, index)
            return
        reading = is_reading_call(call)
        if reading and (where := self.places.start(call)):
            self.s.dirs[call.id] = where  # its relative paths are there (blind check 34 W1)
        self.success(call, r, index, reading)
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

    def failure(self, call: Call, oc: Outcome, index: int, reading: bool) -> None:
        sig, by = signature(call), ""  # by: the call's line, made once (not once an error)
        stopped = oc.lines[0] if oc.lines and oc.lines[0].startswith(STOPPED) else ""
        refused = oc.lines[0] if oc.lines and oc.lines[0].startswith(_REFUSED) else ""
        after, why = (
            ("interrupted", stopped or refused) if stopped or refused else ("failed again", "")
        )
        tries = [] if writes_ctrl_c(call) else self.unfixed[-_RETRY_WINDOW:]  # a stop (43 W2)
        err = ErrorFact(call_line(call, 300), oc, index, sig, reading, is_wrapped_read(call))
        for old in reran(tries, call):  # not a re-read (set 21)
            if (
                old.signature[0] == sig[0] and old.index < index
                and retries(old.signature, sig) and retry_tied(old, sig, index)  # (BENCH46 W1)
            ):  # fmt: skip
                old.after, old.by, old.why = after, (by := by or call_line(call, 160)), why
                self.again.link(old, err)
        self.s.failed_calls.add(call.id)
        if stopped:  # the user stopped it: neither a success nor a failure to fix
            err.after, err.why = "interrupted", stopped
        self.s.errors.append(err)
        self.unfixed.append(err)

    def success(self, call: Call, r: Result, index: int, reading: bool) -> None:
        sig, fixed, by, job, piped = signature(call), False, "", None, None
        looked: bool | None = None  # a read, ``bash -lc 'sed -n …'`` too, fixes no build
        hidden: bool | None = None  # these two: of the call alone, judged once (not per error)
        empty: bool | None = None
        self.stages.note(sig, index)  # a restore (a build blocked before it may pass now)
        tries = [] if writes_ctrl_c(call) else self.unfixed[-_RETRY_WINDOW:]  # a stop (43 W2)
        for err in (e for e in tries if e.signature[0] == sig[0]):
            if err.index < index and (
                (retries(err.signature, sig) and retry_tied(err, sig, index))  # (41 W8)
                or self.stages.fixes(err, sig, r.text)
            ):  # the same job: `dotnet test` builds (local_stages)
                looked = (reading or is_wrapped_read(call)) if looked is None else looked
                if (looked and not (err.reading or err.probe)) or waited_out(r.text):
                    continue  # a wait that timed out ended nothing (blind check 29 W4)
                hidden = hides_errors(command_of(call) or "") if hidden is None else hidden
                if hidden:  # `| grep NAME || echo ok` (blind check 35)
                    continue
                if only_help(err, call, r.text):  # `x.ps1 -Help` fixes nothing (41 W3)
                    continue
                empty = vacuous(call, r.text) if empty is None else empty
                if empty:  # a test run that ran no test (BENCH49 W2)
                    continue
                by = by or call_line(call, 160)
                job = job_started(r.text) if job is None else job  # its job's end decides
                piped = piped_error(command_of(call) or "", r.text) if piped is None else piped
                said = piped or restated(err.outcome, r.text)  # or it printed the error
                if job or (said and not reading):  # a pipe hid the exit status
                    err.after, err.by, err.job = "retry pending" if job else "failed again", by, job
                    err.why = f"its output says: {said}" if not job else err.why
                    continue
                err.after, err.by, err.why = "fixed", by, ""  # not an earlier verdict's why
                self.again.fixed(err, by)  # and the failures it retried (BENCH45 W4)
                fixed = True
        if fixed:
            self.unfixed = [e for e in self.unfixed if e.after != "fixed"]

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

    def orphan(self, e: Entry) -> bool:
        """Results only, each for a call the history does not hold (its call lay before an own
        compaction's boundary) or made before an answer the assistant wrote after it: a late
        record, not where the turn stands (blind check 10)."""
        if e.text.strip() or e.calls or not e.results:
            return False
        for r in e.results:
            call = self.by_id.get(r.call_id) if r.call_id else None
            if r.call_id and call is None:
                continue
            if call is None or not any(
                x.role == "assistant" and not x.calls and not x.internal and x.text.strip()
                for x in self.s.entries[call.index + 1 : e.index]
            ):
                return False
        return True

    def finish_session(self) -> Session:
        s = self.s
        start = final_round_start(s.entries)  # an older call without a result was abandoned
        s.flying = [c for c in s.in_flight if c.index > start]  # from here on it stays as it is
        self.tracker.finish()  # plan-tool calls never answered: as written
        for err in s.errors:
            if err.after:
                continue
            for call in s.in_flight:
                if call.index > err.index and retries(err.signature, signature(call)):
                    err.after, err.by = "retry pending", call_line(call, 160)
                    break
        following, texts = "", dict[int, str]()
        wanted = {err.index for err in s.errors}  # not one item per message: a million of them
        for e in reversed(s.entries) if wanted else ():
            if e.index in wanted:
                texts[e.index] = following
            if e.role == "assistant" and e.text.strip():
                following = e.text
        for err in s.errors:
            err.next_text = texts.get(err.index, "")
        local = {i for i, _ in s.local_commands} | {e.index for e in s.harness_errors}
        cut_by = s.interrupted  # sent and interrupted at once: withdrawn (blind check 38 W1)
        if (withdrawn := aborted_request(s.entries, s.requests, cut_by)) is not None:
            s.requests.pop()
            s.aborted, s.interrupted = withdrawn, None
            local.add(withdrawn.index)
        if (ev := s.evaluated) is not None and s.requests[-1].index > ev.index:
            s.evaluated = None  # a request came after the evaluation: it is past
        upto = len(s.entries) if s.evaluated is None else s.evaluated.index
        last = next(
            (
                e
                for e in reversed(s.entries[:upto])
                if not e.internal and not e.injected and e.role != "system"
                and e.index not in local and (e.text.strip() or e.calls or e.results)
                and not self.orphan(e)
            ),
            None,
        )  # fmt: skip
        if last is not None and last.role == "assistant" and not last.calls:
            s.turn_ended = True
            notice = s.interrupted  # the user cut the turn after this text: it is no answer
            if notice is not None and notice.index >= last.index and s.last_text is not None:
                s.turn_ended = False  # (blind check 11: "now updating X…", then interrupted)
                said = sentences(s.last_text.text)
                s.announced = said[-1] if said and announces_step(said[-1]) else ""
            s.failed_after = failed_after(s.entries, last.index)  # (blind check 12)
        elif last is not None and last.results and not s.in_flight:
            final = self.by_id.get(last.results[-1].call_id)
            if final is not None and _TERMINAL_TOOLS.match(final.name):
                s.turn_ended, s.ended_by_tool = True, call_line(final, 80)
                output = strip_output_header(clean(last.results[-1].text)).splitlines()
                kept = [ln for ln in output if not is_prompt_line(ln)]
                s.ended_output = "\n".join(kept).strip()
        if s.aborted is not None and not s.turn_ended:  # it cut the work on the request too
            s.interrupted = cut_by
        last_request = s.last_request
        if last_request is not None:
            s.request_started = any(
                e.role == "assistant" and e.index not in local
                for e in s.entries[last_request.index + 1 :]
            )
        if s.reply is not None and (last_request is None or s.reply.index < last_request.index):
            s.reply = None
        if s.turn_ended and not s.ended_by_tool and s.last_text is not None:
            s.question, announced = final_question(s.last_text.text)  # (BENCH41 W5, 42 W1)
            s.announced = announced or s.announced
            if not s.question and (step := cut_announcement(s.last_text.text, announced)):
                s.announced, s.turn_ended, s.cut_turn = step, False, True  # (BENCH44 W2)
        return s


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
