"""A "No such file" a later call made untrue (blind check 25, cx-funke W2).

``sed -n '1,200p' backend/…/lottery_service.py`` failed with "No such file or directory" and
section 4 kept it as "A fact it established", while a later ``apply_patch`` created that file and
section 3 listed it as "created, then edited". :func:`made_later` names the path such a failed
read named that a later call of the session created (and maybe changed since) and did not then
delete: the "not there" was true only at the time. A path a later call only updated (blind check
40 W6: the user added ``.github/copilot-instructions.md``, ``ls copilot-instructions.md`` in the
root failed, and an ``*** Update File:`` patch changed it) was there already: no "created".

A missing program is no missing file (blind check 28, W7: ``rg --files -g 'README.md'`` failed
with "rg: command not found", and section 4 said a later call "created README.md, so it exists
now"; README.md had been there all along): :func:`without_program` judges such a failure by the
program alone. A later call that ran it fixed it (``judge_got_past``); a read or search done
next by another program did the job without it; else it is a fact: the program is not there.

A delete of a path that was not there (blind check 33 W2, PowerShell: ``Remove-Item Dockerfile.dev``
→ "Cannot find path '…' because it does not exist") is a fact too (:func:`deletes_missing`), not
a failure a later delete of another file fixed; and a listing that printed nothing (``ls specs
2>/dev/null``, exit 1, W1) says which path is not there (:func:`absent_words`).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import is_reading_call, shell_words
from compactor.facts.commands import command_of, programs
from compactor.facts.samecommand import core_command

from .local_foundlater import FOUND_LATER
from .local_gotpast import missing_program
from .local_records import ErrorFact
from .local_session import Session
from .local_text import call_line

__all__ = [
    "MADE_LATER",
    "absent_words",
    "deletes_missing",
    "made_later",
    "not_found_line",
    "same_path",
    "without_program",
]

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
        if not state.actions or state.actions[-1] == "deleted" or "created" not in state.actions:
            continue  # an update (``*** Update File``, an edit) found it there (blind check 40 W6)
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
    if err.why.startswith(FOUND_LATER):  # not from the working folder (BENCH42 W5)
        return (
            f"  Not found from the working folder at the time (no fact about the file): {found}; "
            f"a later call found it at `{err.why.removeprefix(FOUND_LATER)}`."
        )
    if found == "not there":  # no error line: name the path (``ls specs 2>/dev/null``, W1)
        found = absent_words(err) or found
    elif deletes_missing(err):
        found += " (nothing to delete: it was not there)"
    return f"  A fact it established (not a failure to fix): {found}{looked}; the work went on."


_DELETES = frozenset("rm rmdir unlink del erase rd remove-item ri".split())
_GONE_RE = lazy_pattern(
    r"no such file|does not exist|cannot find path|could not find|cannot remove|"
    r"did not match any files",
    re.IGNORECASE,
)
_LISTS = frozenset("ls stat test file get-item get-childitem dir gci".split())


def _words(err: ErrorFact) -> list[str]:
    """The words of the failed command without its directory change, runner, options and
    redirections (``cd DIR && ls specs 2>/dev/null`` → ``ls specs``)."""
    command = next((t[2:] for t in err.signature[2] if t.startswith("$ ")), "")
    core = core_command(command) if command else ""
    if not core or any(j in core for j in ("&&", "||", ";", "|")):
        return []
    words = shell_words(core)
    return [w for w in words if w[:1] != "-" and not _REDIRECT_RE.match(w)]


_REDIRECT_RE = lazy_pattern(r"\A\d?[<>]")


def deletes_missing(err: ErrorFact) -> bool:
    """Whether the failure is a delete of a path its own error line says is not there
    (``rm: cannot remove 'x': No such file or directory``, PowerShell's "Cannot find path …
    because it does not exist"): the delete had nothing to do, a fact, not a failure to fix.
    Another program's line (``stat: x: No such file``) is no word of the delete's."""
    words = _words(err)
    program = words[0].lower() if len(words) >= 2 else ""
    if program not in _DELETES:
        return False
    said = re.compile(rf"(?<![\w-]){re.escape(program)}\b|cannot find path", re.IGNORECASE)
    return any(_GONE_RE.search(x) and said.search(x) for x in err.outcome.lines)  # its own words


def absent_words(err: ErrorFact) -> str:
    """For a listing of one path that failed without a word (``ls specs 2>/dev/null``):
    "`specs` is not there (… printed nothing)"; "" for any other failure."""
    words = _words(err)
    if len(words) != 2 or words[0].lower() not in _LISTS or err.outcome.lines:
        return ""
    return f"`{words[1]}` is not there (`{' '.join(words)}` failed and printed nothing)"


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
