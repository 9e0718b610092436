"""Claude Code agent teams: when a teammate's job ended, judged by shape (blind check 47, W1).

An agent-team lead (Claude Code 2.1.x, ``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS``) spawns each
teammate with a ``Task``/``Agent`` call that names it and its team (``name``, ``team_name``,
usually ``run_in_background``); the result says ``agent_id: NAME@TEAM`` and that the agent is
running. No ``<task-notification>`` ever reports a teammate's end. Two shapes do:

* a mailbox delivery (a user record of ``<teammate-message teammate_id="…">`` blocks) whose JSON
  is ``{"type":"shutdown_approved","from":NAME,…}`` or ``{"type":"teammate_terminated",
  "message":"NAME has shut down."}`` ends the teammate it names;
* a successful ``TeamDelete`` (its result: ``Cleaned up directories and worktrees for team
  "TEAM"``) ends every teammate of that team (of every team, when the result names none)
  spawned before it; a refusal (``Cannot cleanup team with 2 active member(s)``) ends none;
  another call's result that says a named team was removed (``Team "TEAM" deleted``) ends the
  teammates of that team.

:func:`teammates` reads both; :func:`close_team_jobs` ends the shape-judged jobs
(:func:`compactor.facts.jobs.background_jobs`) that are such teammates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.formats.notices import TEAMMATE_TAG

from .text import Entry

__all__ = ["TEAMMATE_TAG", "Teammate", "teammate_blocks", "teammate_end", "teammates"]

_BLOCK_RE = lazy_pattern(r"<teammate-message\b([^>]*)>(.*?)(?:</teammate-message>|\Z)", re.DOTALL)
_ID_ATTR_RE = lazy_pattern(r"\bteammate_id\s*=\s*[\"']([^\"']+)[\"']")
_ENDED_RE = lazy_pattern(r"[\"']type[\"']\s*:\s*[\"'](teammate_terminated|shutdown_approved)[\"']")
_FROM_RE = lazy_pattern(r"[\"']from[\"']\s*:\s*[\"']([^\"']+)[\"']")
_SHUT_DOWN_RE = lazy_pattern(
    r"([\w.\-]+)(?:@[\w.\-]+)? (?:has )?(?:shut down|terminated|exited)\b", re.IGNORECASE
)
_TEAM_NAMED_RE = lazy_pattern(
    r"\bteam[_ ]name[\"']?\s*[:=]\s*[\"']([^\"'\n]+)[\"']|\bteam\s+[\"']([^\"'\n]+)[\"']",
    re.IGNORECASE,
)
_DELETED_RE = lazy_pattern(r"\b(?:cleaned up|clean(?:ed)?-up|removed|deleted)\b", re.IGNORECASE)
_REFUSED_RE = lazy_pattern(
    r"\b(?:cannot|can't|could not|couldn't|failed|error|refused|active member)", re.IGNORECASE
)
_TEAM_GONE_RE = lazy_pattern(
    r"\b(?:cleaned up|removed|deleted)\b[^\n]{0,60}?\bteam\s+[\"']([^\"'\n]+)[\"']|"
    r"\bteam\s+[\"']([^\"'\n]+)[\"']\s+(?:was |has been )?(?:deleted|removed|cleaned up)\b",
    re.IGNORECASE,
)
"""A result that says a named team was removed, whatever call it answers."""
_DELETE_TOOLS = frozenset({"teamdelete", "team_delete", "deleteteam"})


@dataclass(slots=True)
class Teammate:
    """A teammate a call spawned, and how it ended (empty while not seen ending)."""

    name: str
    team: str
    call_id: str
    index: int
    """Entry index of the spawning call."""
    ended: str = ""

    def names(self, key: str) -> bool:
        """Whether a job id ``key`` is this teammate (its call, name or ``NAME@TEAM``)."""
        return key in (self.call_id, self.name, f"{self.name}@{self.team}")


def teammate_blocks(text: str) -> Iterable[tuple[str, str]]:
    """(teammate id, body) of each ``<teammate-message>`` block of a user text."""
    if TEAMMATE_TAG not in text:
        return ()
    found = []
    for m in _BLOCK_RE.finditer(text):
        attr = _ID_ATTR_RE.search(m.group(1))
        found.append((attr.group(1) if attr is not None else "", m.group(2).strip()))
    return found


def _ended_names(text: str) -> set[str]:
    """The teammates a mailbox delivery reports ended (shutdown approved, terminated)."""
    names: set[str] = set()
    for sender, body in teammate_blocks(text):
        if _ENDED_RE.search(body) is None:
            continue
        names.add(sender)
        names.update(m.group(1) for m in _FROM_RE.finditer(body))
        names.update(m.group(1) for m in _SHUT_DOWN_RE.finditer(body))
    return names


def _spawned(args: dict[str, object]) -> tuple[str, str] | None:
    """(name, team) of a call that spawns a teammate: it names both and gives it a prompt."""
    if not isinstance(args.get("prompt"), str):
        return None
    name, team = args.get("name"), args.get("team_name")
    if isinstance(name, str) and name.strip() and isinstance(team, str) and team.strip():
        return name.strip(), team.strip()
    return None


def _deletes(name: str, args: dict[str, object]) -> bool:
    low = name.lower()
    return low in _DELETE_TOOLS or ("team" in low and args.get("operation") == "cleanup")


def _deleted_team(text: str, is_error: bool) -> str | None:
    """The team a delete call's result says it removed ('' when it names none), or None when
    the result is an error or a refusal."""
    head = text[:1_000]
    if is_error or _REFUSED_RE.search(head) is not None or _DELETED_RE.search(head) is None:
        return None
    named = _TEAM_NAMED_RE.search(head)
    return (named.group(1) or named.group(2)).strip() if named is not None else ""


def teammates(entries: Sequence[Entry]) -> list[Teammate]:
    """Every teammate spawned in ``entries``, in order, with ``ended`` set when a later
    delivery reported it shut down or a later successful ``TeamDelete`` removed its team."""
    found: list[Teammate] = []
    live: dict[str, Teammate] = {}  # name -> its latest spawn, not seen ending
    deletes: dict[str, int] = {}  # call id of a delete call -> its entry
    for e in entries:
        if e.internal:
            continue
        for call in e.calls:
            if (spawn := _spawned(call.args)) is not None and call.id:
                mate = Teammate(spawn[0], spawn[1], call.id, e.index)
                found.append(mate)
                live[mate.name] = mate
            elif call.id and _deletes(call.name, call.args):
                deletes[call.id] = e.index
        for r in e.results if live else ():
            if r.call_id in deletes:
                team = _deleted_team(r.text, r.is_error)
            elif r.is_error or (said := _TEAM_GONE_RE.search(r.text[:1_000])) is None:
                continue
            else:  # another call's result says a team was removed: only a team it names
                team = said.group(1) or said.group(2)
            if team is None:
                continue
            members = [m for m in live.values() if m.team == team] if team else []
            if not members and r.call_id not in deletes:
                continue
            for mate in members or list(live.values()):
                mate.ended = f"its team {mate.team} was deleted (TeamDelete)"
                live.pop(mate.name, None)
        if e.role == "user" and live and TEAMMATE_TAG in e.text:
            for key in _ended_names(e.text):
                gone = live.pop(key, None)
                if gone is not None:
                    gone.ended = "shut down (a mailbox notice: shutdown approved or terminated)"
    return found


def teammate_end(mates: Sequence[Teammate], key: str, index: int) -> str:
    """How the teammate that job ``key`` (started at entry ``index`` or later) is ended, or ''
    (not a teammate, or not seen ending)."""
    match = [m for m in mates if m.index <= index and m.names(key)]
    return match[-1].ended if match else ""
