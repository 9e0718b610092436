"""The records of the session model that several views read: background jobs and failed calls.

They live apart from :mod:`compactor.models.local_session` (which builds them and re-exports
them) to keep that module within the size rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from compactor.facts import Outcome

__all__ = ["Background", "ErrorFact"]


@dataclass(slots=True)
class Background:
    """A process started in the background (``run_in_background``, a Codex session)."""

    key: str
    command: str
    index: int
    finished: str = ""
    """How it ended (``completed (exit 0)``, ``killed``); empty while not seen finishing."""
    said: str = ""  # what its start result said (its id, where its output goes), on one line


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
