"""A background job the agent stopped or ran again is no longer "still running" (blind check 43 W1).

cx-ship (Codex 0.114): a bounded loop of Playwright runs started in exec session N printed a
failure; the agent said it stopped the loop and wrote Ctrl-C to N, which failed only because
stdin was closed ("write_stdin failed: stdin is closed for this session"); it then ran the same
specs again in six new sessions, each seen exiting, the last one passing. N was never seen
exiting, so the summary said "still running … check it, do not start it again", which
contradicts what the agent rightly did six times, and a resuming agent would poll a session that
no longer exists.

:func:`abandoned` says how such a job ended when, after it started, the agent wrote Ctrl-C to it
(whatever the write returned) or the same command (the same script and test files) ran again in
a later call or job that was seen exiting: "stopped/abandoned by the agent (its end was not
seen)", and which later session ran the same command. A job with neither stays running.
:func:`judge_stop_writes` takes a failed Ctrl-C write to a job that ended (or was abandoned) out
of the failures left to fix: the stop could not be sent, and nothing is left to stop.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import command_of
from compactor.facts.detached import launcher_part
from compactor.facts.kills import MAYBE
from compactor.facts.samecommand import core_command

if TYPE_CHECKING:
    from .local_session import Background, Session

__all__ = ["ABANDONED", "abandoned", "judge_stop_writes", "same_command"]

ABANDONED = "stopped/abandoned by the agent (its end was not seen)"
"""How a job the agent stopped or superseded is described (a prefix of its ``finished``)."""
_KEYS = ("chars", "input", "text", "data", "keys")
_ID_KEYS = ("session_id", "shell_id", "bash_id", "id")
_FILE_RE = lazy_pattern(r"[\w.\-/]*[\w\-]\.[A-Za-z]{1,6}\b")
_EXITED_RE = lazy_pattern(r"Process exited with code -?\d+|exit(?:ed)? (?:with )?code -?\d+")
_STARTED_RE = lazy_pattern(r"Process running with session ID (\d+)")


_CODE_RE = lazy_pattern(r"\.(?:[cm]?[jt]sx?|py|sh|rb|go|rs|php|java|kt|swift|ps1)$")


def _files(command: str) -> frozenset[str]:
    """The names of the files a command names (scripts, test files: ``e2e/a.spec.ts`` →
    ``a.spec.ts``, so ``apps/web/e2e/a.spec.ts`` run from the root is the same file)."""
    return frozenset(
        m.group(0).rsplit("/", 1)[-1]
        for m in _FILE_RE.finditer(command)
        if "/" in m.group(0) or _CODE_RE.search(m.group(0))
    )


def _scripts(command: str) -> frozenset[str]:
    """The names of the scripts (code files) a command names: :func:`_files` of code."""
    return frozenset(f for f in _files(command) if _CODE_RE.search(f))


def _program(command: str) -> str:
    """The words of a command before its first file (``pnpm exec playwright test``)."""
    words = [w for w in core_command(command).split() if "=" not in w]
    head = []
    for w in words:
        if _FILE_RE.search(w):
            break
        head.append(w)
    return " ".join(head[-2:])


def same_command(job: str, later: str) -> bool:
    """Whether ``later`` runs what ``job`` ran: the same program on every file the job named
    (a loop around the run may be gone), or, when the job named no file, the same command. A
    job a detaching launcher started is compared from its launcher on: another launcher, or
    the same preamble (``cd X && PREFIX=… &&``) before another job, is not the same command."""
    own, other = launcher_part(job), launcher_part(later)
    if own.split(None, 1)[:1] != other.split(None, 1)[:1]:
        return False  # ``nohup …`` is not ``tmux new-session -d …`` (blind check 54, W1)
    job, later = (own, other) if own else (job, later)
    files = _files(job)
    if not files:
        return " ".join(core_command(job).split()) == " ".join(core_command(later).split())
    if not files <= _files(later):
        return False
    inner = next((p for p in job.split(";") if files & _files(p)), job)
    return _program(inner) == _program(later)


def _ctrl_c(args: dict[str, object], key: str) -> bool:
    """Whether a call with ``args`` wrote only Ctrl-C to the job ``key``."""
    if not any(str(args.get(k, "")) == key for k in _ID_KEYS):
        return False
    sent = next((v for k in _KEYS if isinstance(v := args.get(k), str) and v), "")
    return sent.strip() == "\x03"


def _rerun(s: Session, bg: Background, command: str) -> str | None:
    """Where the same command ran again after ``bg`` and was seen exiting: ``"session M"``, ``""``
    for a call that exited at once, None when it did not."""
    results = {r.call_id: r.text for e in s.entries[bg.index + 1 :] for r in e.results}
    for e in s.entries[bg.index + 1 :]:
        for call in e.calls:
            later = command_of(call)
            if not later or not same_command(command, later) or _detaches(later):
                continue  # a detaching launcher exits at once: no end of the job (check 54 W1)
            head = results.get(call.id, "")[:600]
            started = _STARTED_RE.search(head)
            if started is None:
                if _EXITED_RE.search(head):
                    return ""
                continue
            other = s.background.get(started.group(1))
            if other is not None and other.finished and not other.finished.startswith(MAYBE):
                return f"session {other.key}"
    return None


def _detaches(command: str) -> bool:
    """Whether ``command`` starts a job that outlives it (``tmux new -d``, ``nohup … &``)."""
    return bool(launcher_part(command))


def _relaunched(s: Session, bg: Background, command: str) -> str:
    """The later detaching launch (``tmux new -d …`` after ``nohup …``) of the same script that
    ``bg``'s detaching launcher ran, cut to a line; '' when none. The agent relaunched it: the
    earlier launch is not a second job still running (seen set 54, cx_gfn_bg: a nohup run the
    agent found gone and started again under tmux)."""
    own = _scripts(launcher_part(command))
    for e in s.entries[bg.index + 1 :] if own else ():
        for call in e.calls:
            later = launcher_part(command_of(call) or "")
            if later and own & _scripts(later):
                return " ".join(later.split())[:100]
    return ""


def abandoned(s: Session, bg: Background, command: str) -> str:
    """How ``bg`` ended when the agent wrote Ctrl-C to it or ran its command again in a call or
    job seen exiting (:data:`ABANDONED`); ``""`` when nothing after it says so."""
    stopped = bool(bg.key) and any(
        _ctrl_c(call.args, bg.key) for e in s.entries[bg.index + 1 :] for call in e.calls
    )
    if again := _relaunched(s, bg, command):
        return f"{ABANDONED}; it was launched again later ({again}), which replaced it"
    where = _rerun(s, bg, command)
    if where is not None:
        ran = f" in {where}" if where else ""
        return f"{ABANDONED}; the same command ran again later{ran}, which exited"
    if stopped:
        return f"{ABANDONED}: it wrote Ctrl-C to it (the write's result: {_said(s, bg)})"
    return ""


def _said(s: Session, bg: Background) -> str:
    """What the last Ctrl-C write to ``bg`` returned, first line (``stdin is closed …``)."""
    ids = {c.id for e in s.entries[bg.index + 1 :] for c in e.calls if _ctrl_c(c.args, bg.key)}
    texts = [r.text for e in s.entries[bg.index + 1 :] for r in e.results if r.call_id in ids]
    line = next((x.strip() for x in (texts[-1] if texts else "").splitlines() if x.strip()), "")
    return re.sub(r"\s+", " ", line)[:160] or "nothing"


def judge_stop_writes(s: Session) -> None:
    """A failed Ctrl-C write to a job that ended, or that the agent abandoned, is no failure
    left to fix ("write_stdin failed: stdin is closed …": the stop could not be sent; blind
    check 43 W2): it is ``worked around`` by how that job ended."""
    from .local_ctrlc import writes_ctrl_c
    from .local_text import call_line

    for call in s.calls:
        if call.id not in s.failed_calls or not writes_ctrl_c(call):
            continue
        key = next((str(v) for k in _ID_KEYS if (v := call.args.get(k))), "")
        bg = s.background.get(key)
        ended = bg.finished if bg is not None else _start_ended(s, key, call.index)
        if not key or not ended or ended.startswith(MAYBE):
            continue
        line = call_line(call, 300)
        for err in s.errors:
            if err.call == line and err.index >= call.index and err.after in ("", "failed again"):
                err.after, err.by = "worked around", f"the job it was sent to ({key}): {ended}"


def _start_ended(s: Session, key: str, before: int) -> str:
    """How the process of session ``key`` ended by the harness's record of its end (Codex's
    ``exec_command_end`` of the call that started it: ``ended: exit code 1``); ''."""
    started = {
        r.call_id
        for e in s.entries[: before + 1]
        for r in e.results
        if (m := _STARTED_RE.search(r.text[:600])) is not None and m.group(1) == key
    }
    return next((f"ended: {c.ended}" for c in s.calls if c.id in started and c.ended), "")
