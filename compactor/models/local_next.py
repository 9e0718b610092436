"""What came after a failure that no later call retried (issue 28, blind check 12).

"Not retried afterwards" was said of every failure that no later call retried by shape
(:func:`compactor.models.local_retries.retries`), also when the next calls repaired it with
another command: ``arp`` (not installed) → ``ip neigh``; a ``cat`` of a background job's output
that showed the job's ``cd`` failing → ``npm run dev`` without the ``cd``; ``sudo`` that needed a
terminal → the user ran the commands themselves with ``!``. :func:`judge_next` says instead:

* ``user ran``: the user ran a part of the failed command themselves (``!`` shell mode);
* ``worked around by``: a later call with the same goal succeeded — the same tool on a shared
  file or target, a command that runs a program the failed one (or the background job whose
  output it read) ran, or one that the assistant's words between them present as the other way
  ("instead", "let me try", "use X"). A later call that failed too is never a workaround;
* otherwise the next call, neutrally, with how it ended (``after`` stays empty: the failure is
  still unresolved, ``by`` names that call).

A failure the assistant's words set aside as done another way ("worked around", judged by
:func:`compactor.models.local_state.judge_skipped`) is judged the same way: the call that did
it when one has the same goal; else the words are kept, unless calls made next failed and none
succeeded: then the next call is said.

"Not retried afterwards" is left only where nothing was called (and the user ran nothing) before
the next request.
"""

from __future__ import annotations

import bisect
import re
from itertools import islice
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import (
    Call,
    Result,
    command_of,
    is_reading_call,
    paths,
    programs,
)
from compactor.facts.commands import exit_one_meaning, is_reading_program
from compactor.facts.filteredrun import hides_errors
from compactor.facts.outcomes import exit_code
from compactor.facts.retrysig import similar_words
from compactor.facts.shellwrap import inner_command
from compactor.rejections import is_rejection

from .local_laterrun import judge_later_runs
from .local_looks import only_looks as _only_looks
from .local_looks import same_script
from .local_noise import is_file_edit
from .local_partof import only_a_part
from .local_patchfix import touches_patched
from .local_reinstall import judge_reinstalls
from .local_retries import contains_command, editor_target, job_started, program_of
from .local_sameoutput import writes_same_output
from .local_session import ErrorFact, Session
from .local_standin import banner_only, stands_in, vacuous
from .local_text import call_line

__all__ = ["judge_next"]

_HAS_RESULTS = attrgetter("results")
"""An entry's results (an entry without any is skipped by ``filter``, at C speed)."""
_WINDOW = 6
"""Calls after a failure (housekeeping aside) that may have been its workaround."""
_OTHER_WAY_RE = lazy_pattern(
    r"\b(?:instead(?! of)|let me try|try(?:ing)? (?:a |an )?(?:different|another|other)|"
    r"alternative(?:ly)?|work ?around|fall(?:ing)? back|fallback|use \S+ (?:instead|rather))\b",
    re.IGNORECASE,
)
"""The assistant presenting the next call as the other way to do what failed."""
_IDLE = frozenset(
    "cd sleep echo printf true date pwd clear export set source env sudo time timeout "
    "bash sh zsh fish dash pwsh powershell cmd nix".split()
)
"""Programs that do no work of their own (or only run the real one: ``bash -lc x``): sharing
them says nothing about the goal."""
_DESCRIPTION_WORD_RE = lazy_pattern(r"[a-z]{3,}")
_USER_RAN_RE = lazy_pattern(r"^the user ran `(.+)` themselves(?:; it |$)", re.S)


def judge_next(s: Session) -> None:
    """Give each failure nothing judged yet (``after`` empty) what came next (module docstring):
    ``user ran``, ``worked around by`` or (``after`` left empty) the next call, with the call in
    ``by`` and how it ended in ``why``. Each failure looks only at the calls up to the next
    request (found by bisection: a long session's thousands of failures stay linear)."""
    pending = [e for e in s.errors if not e.after or e.after == "worked around"]
    if not pending:
        judge_reinstalls(s)
        return
    results = {
        r.call_id: r for e in filter(_HAS_RESULTS, s.entries) for r in e.results if r.call_id
    }
    failed: dict[str, list[Call]] = {}  # each failed call's line, made once
    for c in s.calls:
        if c.id in s.failed_calls:
            failed.setdefault(call_line(c, 300), []).append(c)
    at = _Index(s)
    for err in pending:  # its index is its result's; its call was made at or before it
        call = next((c for c in reversed(failed.get(err.call, ())) if c.index <= err.index), None)
        if call is not None:
            _judge(s, at, err, call, results)
    judge_later_runs(s)  # a read found at another path later, in any language (check 37 W6)
    judge_reinstalls(s)  # an installed CLI reinstalled, then working (blind check 43 W4)


class _Index:
    """Where the calls, requests and ``!`` commands after an entry start (sorted indexes)."""

    def __init__(self, s: Session) -> None:
        self.calls = [c.index for c in s.calls]
        self.requests = [r.index for r in s.requests]
        self.commands = [i for i, _ in s.local_commands]
        self.size = len(s.entries)

    def stop(self, index: int) -> int:
        """The entry of the first request after ``index`` (the end when none)."""
        n = bisect.bisect_right(self.requests, index)
        return self.requests[n] if n < len(self.requests) else self.size


def _judge(
    s: Session, at: _Index, err: ErrorFact, failed: Call, results: dict[str, Result]
) -> None:
    stop = at.stop(err.index)
    first = bisect.bisect_right(at.commands, err.index)
    ran = [
        m.group(1)
        for i, said in s.local_commands[first:]
        if i < stop and (m := _USER_RAN_RE.match(said)) is not None
    ]
    command = command_of(failed) or ""
    mine = [x for x in ran if command and contains_command(_cmd(x), _cmd(command))]
    if mine:
        more = f" (and {len(mine) - 1} more of its commands)" if len(mine) > 1 else ""
        err.after, err.by, err.why = "user ran", mine[0], more
        return
    later: list[Call] = []
    for c in islice(s.calls, bisect.bisect_right(at.calls, err.index), None):
        if c.index >= stop or len(later) == _WINDOW:
            break
        if c.id != failed.id and not _idle(c):
            later.append(c)
    if not later:
        return
    said_around = err.after == "worked around"  # the assistant said it does it another way
    goal, since = _goal_programs(s, failed), err.index
    looks = err.reading or (not goal and _only_looks(failed))  # a look only a look can redo
    doubted = False  # the words' "other way" was only a look: they do not stand alone either
    void: set[str] = set()  # a look, help text or cleanup: did nothing of what failed (42 W2)
    for c in later:  # the words right before a call present it (not ones before an earlier call)
        how, between, since = _how(s, c, results), _said(s, since, c.index), c.index
        if how == "succeeded" or (how.startswith("started") and not _ended_badly(how)):
            if not looks and _only_looks(c):  # a read, ps or listing does not do what failed
                doubted = doubted or _OTHER_WAY_RE.search(between) is not None  # (blind 15)
                void.add(c.id)
                continue
            text = r.text if (r := results.get(c.id)) else ""
            if not stands_in(failed, c, text) or vacuous(c, text):  # ran no test (49 W2)
                void.add(c.id)
                continue
            if only_a_part(failed, c):  # ``git add -A`` of ``git add -A && git push``
                continue
            if hides_errors(command_of(c) or ""):  # `tsc | grep NAME || echo ok` (check 35 W4)
                continue
            if _same_goal(between, failed, c, goal, reading=err.reading, s=s):
                err.after, err.by, err.why = "worked around by", call_line(c, 160), how
                _credit_edit(s, err, (failed, c), later[: later.index(c)], results)
                return
    ended = [_how(s, c, results) for c in later]
    void.update(c.id for c, how in zip(later, ended, strict=True) if how.startswith("rejected"))
    done = [how for c, how in zip(later, ended, strict=True) if c.id not in void]
    if said_around and not doubted and ("succeeded" in done or not ("failed" in done or void)):
        return  # its words stand unless the calls made next failed, or only looked or cleaned
    err.after, err.by, err.why = "", call_line(later[0], 160), ended[0]


def _credit_edit(
    s: Session,
    err: ErrorFact,
    pair: tuple[Call, Call],
    before: list[Call],
    results: dict[str, Result],
) -> None:
    """A file edit that succeeded between the failure and the success of the same program and
    step is the fix ("fixed by editing FILE"), not the call that then succeeded (blind check
    18); not when a missing program failed (a changed command got past it) unless the error
    names the edited file."""
    edits = [
        c for c in before if is_file_edit(c) and c.id in results and c.id not in s.failed_calls
    ]
    if not edits:
        return
    args = edits[-1].args
    path = next((v for k in _PATH_KEYS if isinstance(v := args.get(k), str)), "")
    said = " ".join(err.outcome.lines)
    named = bool(path) and path.rsplit("/", 1)[-1] in said + err.call
    command, later = (command_of(c) or c.name for c in pair)
    rerun = program_of(command) == program_of(later) and _MISSING_RE.search(said) is None
    if named or rerun:
        err.after, err.why = "fixed by editing", path or call_line(edits[-1], 120)


def _cmd(command: str) -> frozenset[str]:
    return frozenset({"$ " + " ".join(command.split())})


def _idle(call: Call) -> bool:
    command = command_of(call)
    if command is None:
        return call.name in ("TodoWrite", "todo_write", "update_plan")
    names = programs(inner_command(call) or command)  # `bash -lc 'pip …'` runs pip (42 W2)
    return bool(names) and all(n in _IDLE for n in names)


_PATH_KEYS = ("file_path", "path", "notebook_path")
_MISSING_RE = lazy_pattern(
    r"command not found|: not found|failed to spawn|is not recognized|executable file not found|"
    r"no such file or directory \(os error|not installed",
    re.IGNORECASE,
)
"""A failure of a missing program: a changed command, not an edit, gets past it."""


def _how(s: Session, call: Call, results: dict[str, Result]) -> str:
    result = results.get(call.id)
    if result is None:
        return "no result yet"
    if call.id in s.failed_calls:  # a rejection is no failure: it never ran (blind 64 W1)
        return "rejected by the user, never ran" if is_rejection(result.text) else "failed"
    if (meaning := exit_one_meaning(call)) and exit_code(result.text) == 1:
        return f"{meaning}, exit 1"  # rg found nothing: an answer (blind check 23)
    if banner_only(call, result.text):  # `cmd /c "x.exe"` printed cmd's banner (70 W5)
        return "printed only the shell's banner: its program never ran"
    job = job_started(result.text)
    if not job:
        return "succeeded"
    bg = s.background.get(job)
    ended = f"; it later ended: {bg.finished}" if bg is not None and bg.finished else ""
    return f"started background job {job}{ended}"


def _goal_programs(s: Session, failed: Call) -> set[str]:
    """The program (a runner with its step) of the failed command and of the background jobs
    whose id or output file it names (reading their output was the way to see them run)."""
    command = command_of(failed)
    if command is None:
        return set()
    commands = [command] + [
        bg.command for key, bg in s.background.items() if len(key) >= 4 and key in command
    ]
    return {
        p for p in map(program_of, commands) if p and p not in _IDLE and not is_reading_program(p)
    }  # fmt: skip


def _ended_badly(how: str) -> bool:
    """A started job that later failed, was killed or stopped: no workaround (blind check 15)."""
    ended = how.partition("; it later ended: ")[2]
    return bool(ended) and not ended.startswith(("completed", "exited with code 0"))


def _goal_commands(s: Session, command: str) -> list[str]:
    """The failed command and those of the background jobs whose id or output file it names."""
    return [command] + [
        bg.command for key, bg in s.background.items() if len(key) >= 4 and key in command
    ]


def _said(s: Session, start: int, end: int) -> str:
    """What the assistant said after entry ``start`` up to the call made in entry ``end``."""
    return " ".join(e.text for e in s.entries[start + 1 : end + 1] if e.role == "assistant")


def _same_goal(
    between: str, failed: Call, later: Call, goal: set[str], *, reading: bool, s: Session
) -> bool:
    patched = touches_patched(failed, later)  # a patch's goal is its files (blind check 37 W5)
    if patched is not None:
        return patched
    mine, theirs = command_of(failed), command_of(later)
    edited = [editor_target(c, m) if m else "" for c, m in ((failed, mine), (later, theirs))]
    if any(edited):  # an editor's `create` of F: its goal is F, whatever the words (74 W5)
        return failed.name == later.name and edited[0] == edited[1]
    if _OTHER_WAY_RE.search(between) is not None:
        return True
    if mine is not None and theirs is not None:
        if writes_same_output(mine, theirs):  # another interpreter, the same file (45 W5)
            return True
        if program_of(theirs) in goal:  # the same program with other arguments; an
            return same_script(theirs, _goal_commands(s, mine))  # interpreter: the same script
        one, two = (_words(c.args.get("description")) for c in (failed, later))
        return bool(one and two) and similar_words(one, two)  # Claude Code's own description
    if is_reading_call(later) and not reading:
        return False  # a read does not do what an edit or a command failed to do
    shared = {p for _, p in paths(failed.arguments)} & {p for _, p in paths(later.arguments)}
    return bool(shared) and (failed.name == later.name or (mine is None and theirs is None))


def _words(value: object) -> frozenset[str]:
    if not isinstance(value, str):
        return frozenset()
    return frozenset(_DESCRIPTION_WORD_RE.findall(value.lower()))
