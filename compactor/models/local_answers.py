"""The user's answers to an agent's questions (issue 28): a tool result that carries what the
user chose or typed (Claude Code's ``AskUserQuestion``: ``User has answered your questions:
"Q"="A", … You can now continue …``, or ``Your questions have been answered: …``; Codex's
``request_user_input``: ``{"answers": {"<question id>": {"answers": ["…"]}}}``, the question's
text in the call's ``questions``) holds the
user's own words, not a command's output. Each answer joins the user's messages and the
accepted decisions; when the session's first request is a slash command
(``/superpowers:brainstorm``) and the answer that follows it is the actual request typed in,
that answer is the initial request. An answer the transcript reader already gave as a user
message is not doubled."""

from __future__ import annotations

import re
from dataclasses import replace
from operator import attrgetter

from compactor._util import lazy_pattern
from compactor.facts import Result, cut, one_line
from compactor.facts.useranswers import json_answers

from .local_session import Session

__all__ = [
    "ANSWERED_BY_USER",
    "answer_line",
    "answer_pairs",
    "answer_room",
    "judge_answers",
    "user_answers",
]

ANSWERED_BY_USER = "The user answered "

_ANSWERED_RE = lazy_pattern(
    r"^\W{0,3}(?:User has answered your questions?|Your questions? (?:have|has) been answered)\s*:",
    re.IGNORECASE,
)
_PAIR_RE = lazy_pattern(r'"((?:[^"\\]|\\.){1,600})"\s*=\s*"((?:[^"\\]|\\.){1,4000})"')
_REQUEST_WORDS = 8
"""An answer this many words long (or typed as notes) may be a request typed in, not a pick."""


def _json_answers(s: Session, r: Result) -> list[tuple[str, str]]:
    """(question, answer) of a Codex ``request_user_input`` result (:func:`json_answers`), the
    question's text from the call's ``questions`` list (its id when the call is not found)."""
    pairs = json_answers(r.text)
    if not pairs:
        return pairs
    call = next((c for c in s.calls if c.id == r.call_id), None)
    asked: dict[str, str] = {}
    listed = call.args.get("questions") if call is not None else None
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            text = item.get("question") or item.get("header")
            asked[item["id"]] = one_line(text) if isinstance(text, str) else item["id"]
    return [(asked.get(key, key), said) for key, said in pairs]


def _answers(s: Session, after: int = -1) -> list[tuple[int, str, str]]:
    """(entry index, question, answer) of every answer a tool result after entry ``after``
    carries, in order."""
    found: list[tuple[int, str, str]] = []
    for e in filter(attrgetter("results"), s.entries[after + 1 :] if after >= 0 else s.entries):
        for r in e.results:
            if r.name == "AskUserQuestion" or _ANSWERED_RE.match(r.text):
                pairs = _PAIR_RE.findall(r.text[:8_000])
                found += [(e.index, q, one_line(a)) for q, a in pairs]
            elif "answers" in r.text[:40]:
                found += [(e.index, q, a) for q, a in _json_answers(s, r)]
    if not found:  # most sessions: no request text is read (one_line on each is ~20 µs)
        return found
    said = {one_line(req.text) for req in s.requests}
    return [x for x in found if not any(x[2] in text for text in said)]


_QUESTION = 160
"""How much of the question an answer names: the answer, not the question, is the user's."""


def _clip(text: str, limit: int) -> str:
    """:func:`cut` with "…" when it cut."""
    short = cut(text, limit)
    return short if len(short) >= len(one_line(text)) else short + "…"


def answer_line(question: str, answer: str, width: int | None = None) -> str:
    """``(answered "Q") A``: the question cut short, the answer whole (up to ``width``, cut at
    a word with "…"). Blind check 33 N6: the whole line was cut to the width, and a long question
    left "you could add a macro to" of an answer that ended "…to enable/disable it"."""
    said = answer if width is None else _clip(answer, width)
    return f'(answered "{_clip(question, _QUESTION)}") {said}'


def answer_pairs(s: Session, after: int = -1) -> list[tuple[int, str, str]]:
    """(entry index, question, answer) of the user's answers after entry ``after``."""
    return _answers(s, after)


def user_answers(s: Session, after: int = -1) -> list[tuple[int, str]]:
    """(entry index, text) of the user's answers (those after entry ``after``), to list with
    the user's messages."""
    return [(i, answer_line(q, a)) for i, q, a in _answers(s, after)]


def judge_answers(s: Session) -> None:
    """Each answer is an accepted decision; a request typed as the answer to the question that
    followed a slash-command first request is the initial request."""
    answers = _answers(s)
    for i, q, a in answers:
        s.decisions.append((i, 3, f'{ANSWERED_BY_USER}"{cut(q, 200)}": {cut(a, 2_000)}'))
    s.decisions.sort(key=lambda d: d[0])
    shown = {i for i, _, _ in answers}  # the user's words, not what a command printed
    s.outputs = [o for o in s.outputs if o[0] not in shown or "answered" not in o[3]]
    first = s.requests[0] if s.requests else None
    if first is None or not first.text.lstrip().startswith("/"):
        return
    following = s.requests[1].index if len(s.requests) > 1 else None
    typed = next(
        (a for i, _, a in answers if i > first.index and (following is None or i < following)),
        "",
    )
    if len(typed.split()) >= _REQUEST_WORDS or (typed and not typed.isascii()):
        s.requests[0] = replace(first, text=f"{typed} (typed as the answer to {first.text})")


def answer_room(s: Session, most: int) -> int:
    """The room the user's answers among the decisions add to the list (at most ``most``)."""
    return min(most, sum(1 for d in s.decisions if d[2].startswith(ANSWERED_BY_USER)))
