"""What the user did through the agent CLI, not typed (issue 30; blind check 13, vo-inflight):
a ``<user_action>`` message is written by the CLI when the user runs one of its actions
(``/review``: "User initiated a review task. Here's the full review output from reviewer model
…", with ``<action>review</action>`` and the findings in ``<results>``). It is context, never a
request, but the user's next request ("fix the above") refers to it: section 1 lists it among
the context the CLI injected, with the start of its results."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_session import Session

__all__ = ["judge_actions", "user_actions"]

_ACTION_RE = lazy_pattern(
    r"\A\s*<user_action>(?:(?!</user_action>).)*?<action>\s*([^<]{1,80}?)\s*</action>"
    r"(?:(?:(?!</user_action>).)*?<results>\s*(.*?)\s*(?:</results>|\Z))?",
    re.DOTALL,
)
RESULTS_CHARS = 800
"""Characters of an action's results kept (its summary line and the first findings)."""


def user_actions(s: Session) -> list[tuple[int, str, str]]:
    """(entry index, action, results on one line) of each CLI action the user ran, in order."""
    found: list[tuple[int, str, str]] = []
    for e in s.entries:
        if not e.injected or not e.text.lstrip().startswith("<user_action>"):
            continue
        match = _ACTION_RE.match(e.text[:20_000])
        if match is not None:
            found.append((e.index, one_line(match.group(1)), one_line(match.group(2) or "")))
    return found


def judge_actions(s: Session) -> None:
    """Each action the user ran, and the request that followed it, join the injected context."""
    for index, action, results in user_actions(s):
        after = next((r.text for r in s.requests if r.index > index), "")
        line = f"The user ran /{action} through the CLI"
        if after:
            line += f" (the next request, {cut(one_line(after), 80)!r}, may refer to it)"
        s.context.append(f"{line}; its results: {cut(results, RESULTS_CHARS)}" if results else line)
