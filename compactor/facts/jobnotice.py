"""Whether a CLI notification about a background job says the job ENDED (blind check 51, W2).

A harness that watches a command for the agent (Claude Code's ``Monitor``: "Monitor started
(task bh3e3m8we, timeout 1800000ms). You will be notified on each event.") injects a
``<task-notification>`` naming the task's id for EVERY line the command prints, and one more
when it stops. An event's text is the watched command's output ("rust-test pass", "18 passed; 0
failed", "done"): none of its words ends the job. What ends it is narrow:

* a ``<status>`` tag of the notification block naming the id (``completed``, ``failed``,
  ``killed``, ``stopped``…; ``running``/``pending`` do not);
* without a status, the harness's own end words in that block: "stream ended", "[Monitor timed
  out …]", "[Monitor stopped …]", an exit code.

:func:`notice_end` is read by :func:`compactor.facts.jobs.background_jobs` (the summary's and
``compact eval``'s running jobs) and :func:`compactor.facts.jobs.job_ended_in` (what reduction
keeps): one owner for "a notification ended this job".
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

from .jobstate import ID_END, ID_TAG, NOTICE_TAGS
from .text import cut, one_line

__all__ = ["notice_end"]

_STATUS_RE = lazy_pattern(r"<status>\s*([\w\- ]+?)\s*</status>", re.IGNORECASE)
_OPEN = ("running", "pending", "started", "in_progress", "in progress", "queued")
"""Statuses that say the job still runs."""
_END_RE = lazy_pattern(
    r"\bstream ended\b|\[?\b\w*\s*timed out\b|\[\w*\s*stopped\b|"
    r"\bexit(?:ed)?[ _]?(?:code|status)\b[\"'>:=\s]*-?\d+",
    re.IGNORECASE,
)
"""The harness's own words that a watched command stopped, in a notification without a status."""


def _block(text: str, key: str) -> str:
    """The notification block of ``text`` whose id tag names ``key`` (the newest), or ''."""
    found = ""
    for m in re.finditer(ID_TAG + r"\s*" + re.escape(key) + r"\s*" + ID_END, text):
        start = max((text.rfind(tag, 0, m.start()) for tag in NOTICE_TAGS), default=-1)
        start = start if start >= 0 else m.start()
        nxt = [i for i in (text.find(tag, m.end()) for tag in NOTICE_TAGS) if i >= 0]
        found = text[start : min(nxt) if nxt else len(text)]
    return found


def notice_end(text: str, key: str) -> str | None:
    """How a notification in ``text`` reports job ``key`` ended, on one line; '' when its
    notification names ``key`` without saying it ended (an event: the command's output);
    ``None`` when ``text`` holds no notification naming ``key`` (other texts are judged by the
    caller)."""
    if key not in text or not any(tag in text for tag in NOTICE_TAGS):
        return None
    block = _block(text, key)
    if not block:
        return None
    status = _STATUS_RE.search(block)
    if status is not None:
        word = status.group(1).lower()
        return "" if word in _OPEN else cut(one_line(f"<status>{word}</status>"), 160)
    end = _END_RE.search(block)
    if end is None:
        return ""
    start = block.rfind("\n", 0, end.start()) + 1
    stop = block.find("\n", end.end())
    line = re.sub(r"</?[\w\-]+>", " ", block[start : stop if stop >= 0 else len(block)])
    return cut(one_line(line), 160)
