"""The records of the session model that several views read: background jobs and failed calls.

They live apart from :mod:`compactor.models.local_session` (which builds them and re-exports
them) to keep that module within the size rule.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.facts import Outcome, cut, one_line

__all__ = ["Background", "ErrorFact", "subagent_note"]

_SUBAGENT_RE = lazy_pattern(
    r"<subagent_notification>\s*(.*?)\s*(?:</subagent_notification>|\Z)", re.S
)


def subagent_note(text: str) -> str:
    """A Codex ``<subagent_notification>`` on one line: the agent and its status (``shutdown``,
    ``completed: Plan finished…``); blind check 29: a subagent's shutdown was only there."""
    body = m.group(1) if (m := _SUBAGENT_RE.search(text)) is not None else text
    try:
        data = json.loads(body)
    except ValueError:
        return cut(one_line(body), 240)
    if not isinstance(data, dict):
        return cut(one_line(body), 240)
    status = data.get("status")
    if isinstance(status, dict):
        status = "; ".join(f"{k}: {one_line(str(v))}" for k, v in status.items())
    agent = data.get("agent_id") or data.get("id") or data.get("nickname") or "a subagent"
    return cut(f"agent {agent}: {status}", 240)


@dataclass(slots=True)
class Background:
    """A process started in the background (``run_in_background``, a Codex session)."""

    key: str
    command: str
    index: int
    finished: str = ""
    """How it ended (``completed (exit 0)``, ``killed``); empty while not seen finishing."""
    said: str = ""  # what its start result said (its id, where its output goes), on one line
    seen: str = ""  # how a later result showed it alive (``pid 81031, listening on port 8502``)


@dataclass(slots=True)
class ErrorFact:
    """A failed tool call: what ran, how it failed, and what happened after."""

    call: str
    outcome: Outcome
    index: int
    signature: tuple[str, str, frozenset[str]]
    reading: bool = False
    """The failed call only read or searched (only a reading call can fix it then)."""
    probe: bool = False
    """The failed call only read inside a shell wrapper (``bash -lc 'ls x'``): its failure may be
    a fact it established; it is not a read for any other decision (blind check 18)."""
    after: str = ""
    """``fixed``, ``failed again`` or ``retry pending`` (empty: no later attempt)."""
    by: str = ""
    """The later call that fixed it, failed again or is pending."""
    next_text: str = ""
    """What the assistant said next (often the diagnosis)."""
    job: str = ""
    """The background job the later call started (its final status decides, issue 28)."""
    why: str = ""
    """Why the later call did not fix it (the error its piped output holds, the job's end)."""
    via: str = ""
    """A configuration change made before the fix (``.local_configfix``, blind check 66 N4)."""
