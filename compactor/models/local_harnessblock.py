"""A call the harness refused to run is no failure to fix (blind check 51, W5).

cc-orpheus §7: "Unresolved failure: Bash: sleep 60 && tail -40 /private/tmp/…/b43ol38ob.output":
the harness refused the call (``<tool_use_error>Blocked: sleep 60 followed by: tail … To wait for
a condition, use Monitor …``), the agent did what it said (a ``Monitor``) and read the output once
the job ended. A blocked call never ran: there is nothing to retry and nothing to fix.

By shape (:func:`harness_block`): the failure's result is the harness's refusal (it opens with
"Blocked:", "Blocked by …", "This command is blocked", after an optional ``<tool_use_error>``),
not any output of the command. Its verdict is :data:`~.local_again.BLOCKED`; section 4 says so
with the alternative it named and whether a later call used it; section 7 never lists it.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_again import BLOCKED
from .local_records import ErrorFact
from .local_session import Session

__all__ = ["harness_block", "judge_harness_blocks"]

_BLOCKED_RE = lazy_pattern(
    r"\A\s*(?:<tool_use_error>\s*)?(?:Blocked(?::| by\b)|(?:This|The) (?:command|call|tool use) "
    r"(?:is|was) blocked\b|Command blocked\b|Tool use blocked\b)",
    re.IGNORECASE,
)
_ALTERNATIVE_RE = lazy_pattern(
    r"\b(?:use|try|call)\s+(?:the\s+)?`?([A-Z][\w]{2,40}|run_in_background)\b"
)
"""The tool a refusal names instead ("use Monitor", "use run_in_background")."""


def harness_block(text: str) -> str:
    """The harness's refusal in a failed call's result ``text`` (its first line, one line), or
    '' when the result is no refusal."""
    if _BLOCKED_RE.match(text) is None:
        return ""
    return cut(one_line(re.sub(r"</?tool_use_error>", " ", text)), 200)


def judge_harness_blocks(s: Session) -> None:
    """Give each failure whose result is the harness's refusal the verdict :data:`BLOCKED`,
    with what it named instead and the later call that used it."""
    for err in s.errors:
        said = harness_block(" ".join(err.outcome.lines[:1]))
        if not said:
            continue
        err.after, err.by, err.why = BLOCKED, said, _used(s, err, " ".join(err.outcome.lines))


def _used(s: Session, err: ErrorFact, said: str) -> str:
    """ "the agent used NAME next" when a later call is the tool the refusal named; ''."""
    names = {m.group(1).lower() for m in _ALTERNATIVE_RE.finditer(said)}
    if not names:
        return ""
    for call in s.calls:
        if call.index > err.index and (
            call.name.lower() in names
            or ("run_in_background" in names and call.args.get("run_in_background"))
        ):
            return f"the agent used {call.name} next"
    return ""
