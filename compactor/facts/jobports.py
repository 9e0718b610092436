"""Ports a background job serves on, and later listeners that end it (two processes cannot
listen on one port: when a later process reports listening on a job's port, the job's server is
gone). Read by :func:`compactor.facts.jobs.background_jobs`."""

from __future__ import annotations

import re

from compactor._util import lazy_pattern

__all__ = ["listening", "serves"]


_LISTEN_RE = lazy_pattern(
    r"\b(?:listening|listens|serving|running on|bound to|started server)\b[^\n]{0,60}?"
    r"(?::(\d{2,5})\b|\bport (\d{2,5})\b)",
    re.IGNORECASE,
)
_PORT_FLAG_RE = lazy_pattern(
    r"--(?:bind|port|listen|addr(?:ess)?|host)[= ]+['\"]?(?:[\w.\-\[\]]*:)?(\d{2,5})\b"
)


def listening(text: str) -> set[str]:
    """Ports a result reports a process listening on (two processes cannot share one)."""
    if "isten" not in text and "unning on" not in text and "erving" not in text:
        return set()
    found = _LISTEN_RE.finditer(text[:2_000] + "\n" + text[-2_000:])
    return {m.group(1) or m.group(2) for m in found}


def serves(text: str) -> set[str]:
    """Ports a command or its start output names as where it serves (``--bind A:8080``)."""
    head = text[:2_000]
    return {m.group(1) for m in _PORT_FLAG_RE.finditer(head)} | listening(head)
