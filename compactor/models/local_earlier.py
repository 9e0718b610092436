"""What the calls before the harness's own compaction did (issue 28, blind check 15).

A Codex rollout resumes from its last ``compacted`` record: the calls before it are no messages,
so the summary saw none of them and said the files the user named were named "never by a call
(they may not exist)", although ``apply_patch`` calls had changed them before the compaction.
The reader notes those calls cheaply (:mod:`compactor.formats._codex_earlier`:
:data:`~compactor.schema.EARLIER_CALLS_KEY` on the first message); :func:`note_earlier` puts it
on the session, :func:`earlier_said` counts it as calls' words, and :func:`earlier_line` names
the files changed then (section 3: "changed before the earlier compaction"); when that
compaction's summary is encrypted, :func:`encrypted_line` says once that it is not in this one.
"""

from __future__ import annotations

from collections.abc import Sequence

from compactor.facts.jobs import Job
from compactor.facts.kills import MAYBE, kill_ends
from compactor.schema import (
    EARLIER_CALLS_KEY,
    INTERRUPTED_BEFORE_KEY,
    PERMISSION_MODE_KEY,
    SIDECHAIN_FILE_KEY,
    AgenticMessage,
    Message,
)

from .local_noise import normal_path, path_in
from .local_session import Session

__all__ = [
    "BEFORE",
    "ENCRYPTED",
    "INTERRUPTED",
    "JOBS",
    "MODE",
    "SUBAGENT",
    "earlier_line",
    "earlier_said",
    "earlier_seed",
    "encrypted_line",
    "note_earlier",
]

ENCRYPTED = "encrypted"
"""Key of :attr:`Session.earlier`: the history holds an earlier Codex compaction's encrypted
summary (``compaction_summary``), which the writer keeps for the model (blind check 24)."""

MODE = "permission mode"
"""Key of :attr:`Session.earlier`: the permission mode the session was last in (Claude Code's
``plan``, ``default``, ...; :data:`~compactor.schema.PERMISSION_MODE_KEY`, blind check 33)."""
INTERRUPTED = "interrupted before"
"""Key of :attr:`Session.earlier`: the user interrupted the last turn before the harness's own
compaction (:data:`~compactor.schema.INTERRUPTED_BEFORE_KEY`, blind check 33 W5)."""

SUBAGENT = "sub-agent file"
"""Key of :attr:`Session.earlier`: the file is a sub-agent's own transcript
(:data:`~compactor.schema.SIDECHAIN_FILE_KEY`, blind check 77 N1)."""

_LOOK = 64
"""The note is on the history's first message: only the first messages are looked at."""


def note_earlier(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    """Copy the reader's note of the calls before the compaction onto ``s.earlier``, and its
    marks of the session's last permission mode and of an interrupt before the compaction."""
    _note_marks(s, items)
    for msg in items[:_LOOK]:
        found = msg.extra.get(EARLIER_CALLS_KEY) if msg.extra else None
        if isinstance(found, dict):
            changed = found.get("changed")
            paths = [p for p in changed if isinstance(p, str)] if isinstance(changed, list) else []
            said = found.get("said")
            s.earlier = {"changed": "\n".join(paths), "said": said if isinstance(said, str) else ""}
            if found.get("encrypted"):
                s.earlier[ENCRYPTED] = "yes"
            if isinstance(jobs := found.get("jobs"), list):
                s.earlier[JOBS] = "\n".join(_job_line(j) for j in jobs if isinstance(j, dict))
            if isinstance(facts := found.get("facts"), list):  # (blind check 58 N4)
                s.earlier["facts"] = "\n".join(" ".join(str(f).split()) for f in facts)
            if found.get("answered") is True:
                s.earlier["answered before"] = "yes"
            _note_marks(s, items)
            return


JOBS = "jobs"
"""Key of :attr:`Session.earlier`: the background jobs a Claude Code session started before its
own compaction and never saw end there (``id``, command and what the start said, one per line,
tab-separated; :mod:`compactor.formats._claude_earlier`)."""
BEFORE = -1
"""The entry index of a job started before the history (:func:`earlier_seed`)."""


def _job_line(job: dict[str, object]) -> str:
    kills = job.get("kills")
    said = [" ".join(str(job.get(k) or "").split()) for k in ("id", "command", "said")]
    shown = [" ".join(str(k).split()) for k in kills] if isinstance(kills, list) else []
    return "\t".join([*said, *shown])


def _ended(row: list[str]) -> str:
    """How a later kill before the compaction ended the job of ``row`` (id, command, said,
    kills…): the surest of them (:func:`~compactor.facts.kills.kill_ends`), ``""`` when none."""
    hows = [how for line in row[3:] if (how := kill_ends(line, row[0], row[1]))]
    return next((h for h in hows if not h.startswith(MAYBE)), hows[0] if hows else "")


def earlier_seed(s: Session) -> tuple[Job, ...]:
    """The jobs started before the history (:data:`JOBS`), for
    :func:`~compactor.facts.jobs.background_jobs` to end when a later notice or poll names them."""
    found = s.earlier.get(JOBS, "") if s.earlier else ""
    rows = [line.split("\t") for line in found.split("\n") if line]
    return tuple(Job(r[0], r[1], BEFORE, _ended(r), r[2]) for r in rows if len(r) >= 3 and r[1])


def _note_marks(s: Session, items: Sequence[Message | AgenticMessage]) -> None:
    mode = items[-1].extra.get(PERMISSION_MODE_KEY) if items and items[-1].extra else None
    if isinstance(mode, str) and mode:
        s.earlier[MODE] = mode
    if any(m.extra.get(INTERRUPTED_BEFORE_KEY) for m in items[:_LOOK] if m.extra):
        s.earlier[INTERRUPTED] = "yes"
    if items and items[0].extra and items[0].extra.get(SIDECHAIN_FILE_KEY):
        s.earlier[SUBAGENT] = "yes"


def earlier_said(s: Session) -> str:
    """The earlier calls' arguments and changed paths (:func:`normal_path`), "" when none."""
    if not (s.earlier.get("said") or s.earlier.get("changed")):  # (``kept``: local_tail's)
        return ""
    return normal_path(s.earlier.get("said", "") + "\n" + s.earlier.get("changed", ""))


def earlier_changed(s: Session, named: Sequence[str]) -> list[str]:
    """Of ``named``, the files an earlier call changed."""
    changed = normal_path(s.earlier.get("changed", "")) if s.earlier else ""
    return [p for p in named if path_in(p, changed)] if changed else []


def earlier_line(s: Session, named: Sequence[str], shown: int) -> tuple[str, list[str]]:
    """Section 3's line of the files changed before the earlier compaction (those the user named
    first), at most ``shown`` of them, and the ``named`` files it names; ("", []) when none."""
    paths = s.earlier.get("changed", "").split("\n") if s.earlier else []
    paths = [p for p in paths if p and p not in s.files]  # (a later change is listed as such)
    if not paths:
        return "", []
    mine = earlier_changed(s, named)
    first = list(dict.fromkeys([*mine, *paths]))
    more = f" ({len(first)} in all)" if len(first) > shown else ""
    line = (
        "Changed before the earlier compaction (by calls no longer in this history; check "
        "their state before relying on them): " + ", ".join(first[:shown]) + more
    )
    return line, mine


def encrypted_line(s: Session) -> str:
    """Section 1's line when the history holds an encrypted Codex compaction summary: a resuming
    agent must not take this summary for all there is ("" otherwise)."""
    if not s.earlier.get(ENCRYPTED):
        return ""
    return (
        "   Note: an earlier Codex compaction summary is encrypted; its content is not in this "
        "summary (it is kept for the model)."
    )
