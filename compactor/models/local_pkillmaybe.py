"""A kill by pattern aimed at a job whose command it does not match: the job may still run
(blind check 77 N2).

gr_bench2 started ``npm run dev`` in the background (id 192c5a; its script runs ``nodemon …
--exec tsx src/server.ts``), then "Now let me stop the dev server" and ``pkill -f "tsx watch" ||
true`` (description "Stop dev server"), which always exits 0. §7 and §9 said the job was still
running ("check it"), §8 that the pkill "left [the service] stopped": two judgements of one job.
The pattern does not match the job's command, so whether it stopped it is unknown.

By shape: a later successful ``pkill``/``killall`` by pattern that matched none of the jobs'
commands (a sure match ends the job: :func:`~compactor.facts.kills.later_kill`), whose
description or the assistant's words right before it share a word with the job's command
("Stop dev server" and ``npm run dev``): the job :data:`~compactor.facts.kills.MAYBE` still
runs, "(a pkill by pattern may not have matched it: …)". Section 8's line of that kill
(:mod:`.local_services`) says the same of the job, from this one judgement.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import command_of, cut, one_line
from compactor.facts.kills import pattern_kills

from .local_session import Background, Session

__all__ = ["PKILL_MAYBE", "aimed_kill", "maybe_jobs"]

PKILL_MAYBE = "a pkill by pattern may not have matched it"
"""The reason a job may still run after a kill by pattern that did not match it."""
_PATTERN_KILL_RE = lazy_pattern(r"(?<![\w-])(?:pkill|killall)\s")
_WORD_RE = lazy_pattern(r"[a-z][a-z0-9]{2,}")
_PLAIN = frozenset(
    "npm npx run pnpm yarn bun node python python3 bash the and for now let stop kill all head "
    "tail true null with this that then process processes running background "
    "command".split()
)
"""Words too common to tie a kill to a job (the runner, the shell, the kill itself)."""
_SCRIPT_ECHO_RE = lazy_pattern(r"^> \S+@\S+ [\w:.\-]+[^\n]*\n> ([^\n]+)$", re.MULTILINE)
"""npm's echo of the script a job runs (``> app@0.0.0 dev`` then ``> vite``)."""
_BEFORE = 4
"""Entries before a kill searched for the assistant's words that led in to it."""


def _words(text: str) -> set[str]:
    return {w for w in _WORD_RE.findall(text.lower()) if w not in _PLAIN}


def _lead_in(s: Session, index: int) -> str:
    """The assistant's words right before the call at entry ``index`` in its turn ('')."""
    requests = {e.index for e in s.requests}
    for e in reversed(s.entries[max(0, index - _BEFORE) : index + 1]):
        if e.index in requests:
            return ""
        if e.role == "assistant" and e.text.strip():
            return e.text[-400:]
    return ""


def _echoed(s: Session, bg: Background) -> bool:
    """Whether the job's start or a poll of it echoed the script its runner runs (``> vite``):
    a kill whose pattern misses that is known to miss the job."""
    polls = {c.id for c in s.calls if c.index >= bg.index and bg.key and bg.key in c.arguments}
    return any(
        _SCRIPT_ECHO_RE.search(r.text[:4_000])
        for e in s.entries[bg.index :]
        for r in e.results
        if r.call_id in polls or e.index == bg.index
    )


def aimed_kill(s: Session, bg: Background, command: str, others: list[str]) -> str:
    """How the job ``bg`` (started by ``command``) may have ended: a later successful kill by
    pattern that matched none of ``others`` (the other jobs' commands) and was aimed at it (the
    module description); ``""`` when none."""
    mine = _words(command)
    if not mine or _echoed(s, bg):
        return ""
    for c in s.calls:
        if c.index <= bg.index or c.id not in s.answered or c.id in s.failed_calls:
            continue
        line = command_of(c) or ""
        if not _PATTERN_KILL_RE.search(line) or any(pattern_kills(line, o) for o in others):
            continue
        said = c.args.get("description")
        aim = (said if isinstance(said, str) else "") + " " + _lead_in(s, c.index)
        if mine & _words(aim):
            return f"{PKILL_MAYBE}: `{cut(one_line(line), 120)}`"
    return ""


def maybe_jobs(s: Session, line: str) -> list[Background]:
    """The jobs the kill ``line`` may not have stopped (:func:`aimed_kill`'s verdict)."""
    said = f"{PKILL_MAYBE}: `{cut(one_line(line), 120)}`"
    return [b for b in s.background.values() if said in b.finished]
