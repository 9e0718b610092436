"""A "No such file" a later call made untrue (blind check 25, cx-funke W2).

``sed -n '1,200p' backend/…/lottery_service.py`` failed with "No such file or directory" and
section 4 kept it as "A fact it established", while a later ``apply_patch`` created that file and
section 3 listed it as "created, then edited". :func:`made_later` names the path such a failed
read named that a later call of the session changed (created, wrote or edited) and did not then
delete: the "not there" was true only at the time.

A missing program is no missing file (blind check 28, W7: ``rg --files -g 'README.md'`` failed
with "rg: command not found", and section 4 said a later call "created README.md, so it exists
now"; README.md had been there all along): :func:`without_program` judges such a failure by the
program alone. A later call that ran it fixed it (``judge_got_past``); a read or search done
next by another program did the job without it; else it is a fact: the program is not there.
"""

from __future__ import annotations

from compactor.facts import is_reading_call
from compactor.facts.outcomes import command_of, programs

from .local_gotpast import missing_program
from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = ["MADE_LATER", "made_later", "not_found_line", "same_path", "without_program"]

MADE_LATER = "created later: "
"""How :attr:`ErrorFact.why` of a "not found" starts when a later call made the path."""


def same_path(target: str, path: str) -> bool:
    """Whether two spellings name the same file (``./a/b.md``, ``b.md``, ``/w/a/b.md``)."""
    t, p = target.replace("\\", "/").lstrip("./"), path.replace("\\", "/").lstrip("./")
    return t == p or p.endswith("/" + t) or t.endswith("/" + p)


def made_later(s: Session, err: ErrorFact) -> str:
    """:data:`MADE_LATER` and the path the failed read ``err`` named that a later call changed
    and left in place (empty when none did)."""
    targets = [t for t in err.signature[2] if t and not t.startswith(("$ ", "@ ", "pid "))]
    if not targets or not s.files:
        return ""
    for path, state in s.files.items():
        if not state.actions or state.actions[-1] == "deleted":
            continue
        if not any(i > err.index for i in state.changed_at):
            continue
        if any(same_path(t, path) for t in targets):
            return MADE_LATER + path
    return ""


def not_found_line(err: ErrorFact, found: str, looked: str) -> str:
    """Section 4's line for a read that found nothing (``found``: its "No such file" words,
    ``looked``: where else it was looked up): a fact it established, or, when a later call
    created the path (``err.why``, :func:`made_later`), one that was true only at the time."""
    if err.why.startswith(MADE_LATER):
        return (
            f"  Not there at the time (not a failure to fix): {found}; a later call "
            f"created `{err.why.removeprefix(MADE_LATER)}`, so it exists now."
        )
    return f"  A fact it established (not a failure to fix): {found}{looked}; the work went on."


_NEXT_CALLS = 3
"""How soon after a missing program's failure another program must do its job."""


def without_program(s: Session, err: ErrorFact) -> tuple[str, str]:
    """(after, by) for a read or search whose program is missing (see the module doc): ``("",
    "")`` when a later call ran the program (left for ``judge_got_past``), ``("worked around",
    why)`` when one of the next calls did the job with another program, else ``("not found",
    "")``; never a file a later call made."""
    program = missing_program(err).lower()
    later = [c for c in s.calls if c.index > err.index]
    for call in later:
        command = command_of(call)
        if command and call.id not in s.failed_calls and program in programs(command):
            return "", ""
    for call in later[:_NEXT_CALLS]:
        command = command_of(call) or ""
        if call.id not in s.failed_calls and is_reading_call(call) and program not in command:
            line = call_line(call, 160)
            return "worked around", f"{program} is not installed; {line} did the same job"
    return "not found", ""
