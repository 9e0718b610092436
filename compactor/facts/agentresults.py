"""What a sub-agent's final report says it could not do (blind check 14, issue 28).

A ``<task-notification>`` says ``<status>completed</status>`` when an async sub-agent stops,
whatever it did: five agents "completed" after reporting that Write and Edit were denied and
that nothing was written. :func:`blocked_report` finds the sentence of the notification's
``<result>`` that says so (a permission denied, a tool refused, the usage limit, an API error),
so that the job is not reported as having done its work.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .text import cut, one_line

__all__ = ["NOT_DONE", "blocked_report"]

NOT_DONE = "but its report says it was blocked"
"""What follows a sub-agent's status when :func:`blocked_report` found such a sentence."""

_RESULT_RE = lazy_pattern(r"<result>\s*(.*?)\s*(?:</result>|\Z)", re.DOTALL)
_BLOCKED_RE = lazy_pattern(
    r"\b(?:denied|not permitted|permission|need (?:\w+ ){0,3}access|"
    r"(?:cannot|can['’]t|could not|couldn['’]t|unable to|am not able to) (?:\w+ ){0,2}"
    r"(?:write|edit|create|modify|make|run|execute|complete|proceed|change|apply)\b|"
    r"out of (?:extra )?usage|usage limit|rate limit|session limit|terminated early|API Error)",
    re.IGNORECASE,
)
_SENTENCE_RE = lazy_pattern(r"[^.!?\n]+[.!?]?")
_HEAD = 1_500
"""Only the report's head is read: an agent says first that it was blocked."""


def blocked_report(notification: str, task_id: str) -> str:
    """The sentence of ``task_id``'s ``<result>`` in ``notification`` that says the agent was
    blocked from its work ("Both Write and Edit permissions have been denied."), or ""."""
    at = notification.find(task_id)
    found = _RESULT_RE.search(notification, at) if at >= 0 else None
    if found is None:
        return ""
    head = found.group(1)[:_HEAD]
    for sentence in _SENTENCE_RE.finditer(head):
        text = sentence.group(0).strip(" *#-")
        if _BLOCKED_RE.search(text):
            return cut(one_line(text), 200)
    return ""
