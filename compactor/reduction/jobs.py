"""Tool results that started a background job still running: reduction keeps them whole.

A result such as ``Workflow launched in background. Task ID: wr9zgpgwe`` or ``Command running in
background with ID: b7x`` is, after a reduction, the only place that names a job the agent must
check on rather than start again (issue 30, blind check 23: the id was cleared to a file and was
nowhere in the output). Reduction therefore never truncates nor clears a result that the
summarizer's job detector (:func:`compactor.facts.jobs.job_starts`, read without its call) reads
as a job start, unless a LATER message reports that job ended
(:func:`compactor.facts.jobs.job_ended_in`). Such a result is a short notice: only results of at
most :data:`MAX_START_CHARS` characters are read, so keeping one costs at most that much.

Both reduction paths make the same decision: the general path reads every later message's texts;
the streaming pass (:mod:`.stream`) keeps a job start whose id no later byte of the file names,
and leaves a file where a later message names it to the general path. The writer process's
look-ahead (:mod:`.writer`) names no file for a job start. The cheap test :func:`may_start`
comes first (two substring tests on at most 2,000 characters); the detector (and the import of
``compactor.facts``) only for the few results that pass it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from compactor.schema import AgenticMessage, Message

from .results import ResultRef, result_text

__all__ = [
    "MAX_END_CHARS", "MAX_START_CHARS", "may_start", "reports_end", "running_starts",
    "started_ids",
]  # fmt: skip

MAX_START_CHARS = 2_000
"""A result longer than this is not read as a job's start notice (the detector reads the first
2,000 characters of a result for a start)."""

_HINTS = (
    "running", "background", "started", "queued", "submitted", "spawned", "launched",
    "in progress", "pending",
)  # fmt: skip
"""Words one of which every start the detector finds has (its own pre-test)."""


MAX_END_CHARS = 1_500
"""A result longer than this is not kept as a job's end report: a poll's or a kill's answer
is a few lines (the ones blind check 68 found: 214 and 432 characters); a longer one is mostly
the job's output, which clearing may send to a file like any output."""

_END_RE = re.compile(
    r"<status>\s*(?:completed|failed|killed|exited|cancell?ed|error|timed[ _]?out|terminated)"
    r"\s*</status>|<exit_code>\s*-?\d+\s*</exit_code>|"
    r"\b(?:shell|process|job|task|session|server)\b[^\n]{0,60}?\b(?:was |has been |is )?"
    r"(?:killed|terminated)\b|\bkilled\s+(?:shell|process|job|task|session)\b",
    re.IGNORECASE,
)
"""A harness's report that a background job ended: a poll's ``<status>completed</status>`` or
``<exit_code>1</exit_code>`` (the shapes :mod:`compactor.facts.jobends` reads), a kill's
``Successfully killed shell: bash_1``, ``Shell bash_3 was killed``. Never a bare "Exit code 1"
(every failed command's result) nor "done"."""
_RUNNING_RE = re.compile(r"<status>\s*running|still running", re.IGNORECASE)


def reports_end(text: str) -> bool:
    """Whether the short result ``text`` reports that a background job ended (blind check 68
    N6: cleared, such a result left a resuming agent thinking the job still ran): clearing
    keeps it whole, as it keeps a running job's start. A cheap substring test comes first."""
    if len(text) > MAX_END_CHARS:
        return False
    if "<status>" not in text and "<exit_code>" not in text and "illed" not in text:
        if "erminated" not in text:
            return False
    return _END_RE.search(text) is not None and _RUNNING_RE.search(text) is None


def may_start(text: str) -> bool:
    """Whether ``text`` may be a job's start notice: short, naming an id, saying something
    runs (an id word, or a task/job/shell named before its id: "Monitor started (task
    bh3e3m8we, …)"). False for nearly every result, at the cost of a lower-casing of at most 2,000
    characters."""
    if len(text) > MAX_START_CHARS:
        return False
    low = text.lower()
    if "id" not in low and "task " not in low and "job " not in low and "shell " not in low:
        return False  # no id named (check 51, W2)
    return any(map(low.__contains__, _HINTS))  # (a generator: half of this test's time)


def started_ids(text: str) -> list[str]:
    """The ids of the jobs the result ``text`` starts (empty for nearly every result)."""
    if not may_start(text):
        return []
    from compactor.facts.jobs import job_starts  # only for the few results that may start one

    return job_starts(text)


def running_starts(
    messages: Sequence[Message | AgenticMessage], results: Sequence[ResultRef]
) -> set[int]:
    """Positions in ``results`` of the results that started a job no later message reports
    ended: never truncated nor cleared. The ids of one result (a task id and its run id) are
    one job: a report that one ended ends it."""
    keep: set[int] = set()
    for i, ref in enumerate(results):
        text, media = result_text(messages[ref.index], ref)
        if media:
            continue
        ids = started_ids(text)
        if ids and not any(_ended_later(messages, ref.index, key) for key in ids):
            keep.add(i)
    return keep


def _ended_later(messages: Sequence[Message | AgenticMessage], index: int, key: str) -> bool:
    from compactor.facts.jobs import job_ended_in

    return any(
        key in text and job_ended_in(text, key)
        for msg in messages[index + 1 :]
        for text in _texts(msg)
    )


def _texts(msg: Message | AgenticMessage) -> Iterator[str]:
    """Every string of a message a later report may be in (texts, reasoning, arguments,
    results)."""
    if isinstance(msg, Message):
        yield msg.content
        yield from (p.text for p in msg.parts if p.text)
        if msg.reasoning_content:
            yield msg.reasoning_content
        yield from (c.arguments for c in msg.tool_calls if c.arguments)
        return
    for b in msg.blocks:
        yield from (t for t in (b.text, b.arguments) if t)
        for inner in b.content if isinstance(b.content, list) else ():
            if inner.text:
                yield inner.text
