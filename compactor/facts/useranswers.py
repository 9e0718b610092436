"""The user's answers a tool result carries as JSON (Codex's ``request_user_input``:
``{"answers": {"<question id>": {"answers": ["…"]}}}``; blind check 34 N1: the user's typed
answer, the decision behind the whole run, was lost). One reader for the embedded summarizer
(:mod:`compactor.models.local_answers`, which adds each question's text from the call) and
``compact eval`` (which looks for the answers in the compacted text)."""

from __future__ import annotations

import re

import orjson

from compactor._util import lazy_pattern

from .text import one_line

__all__ = ["json_answers"]

_JSON_ANSWERS_RE = lazy_pattern(r'^\s*\{\s*"answers"\s*:', re.ASCII)


def json_answers(text: str) -> list[tuple[str, str]]:
    """(question id, the answers joined by "; ") of a ``{"answers": {...}}`` result, in order;
    [] for any other text (a quick look at its first characters first)."""
    if "answers" not in text[:40] or not _JSON_ANSWERS_RE.match(text):
        return []
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict):
        return []
    pairs: list[tuple[str, str]] = []
    for key, value in answers.items():
        picked = value.get("answers") if isinstance(value, dict) else value
        said = [picked] if isinstance(picked, str) else picked if isinstance(picked, list) else []
        joined = "; ".join(one_line(x) for x in said if isinstance(x, str) and x.strip())
        if joined:
            pairs.append((str(key), joined))
    return pairs
