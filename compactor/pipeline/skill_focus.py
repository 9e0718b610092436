"""Which loaded skills the EMBEDDED summary keeps word for word (issue 28 points 4 and 6, blind
check 10: hive-interrupt's summary was 18.5k tokens, ~1,900 lines of it four skill bodies that
no step of the current work used).

PreserveSkills' budgets stay (5 skills, 5,000 tokens each, 25,000 in all). A summary written by
the embedded summarizer (``--model local``) keeps verbatim only the skills loaded for the current
request or in the last rounds of calls; each other skill is one line, its name and where its body
is, so that the agent can load it again. A remote model's summary keeps every skill within the
budgets, as SPEC §5.3 says."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, TypeVar

from compactor._util import lazy_pattern
from compactor.facts import Entry
from compactor.facts.cmdprompt import prompt_head, users_command
from compactor.schema import AgenticMessage, Message, assistant_text

EMBEDDED_HEAD = "<analysis>\nThe conversation has "
"""How the embedded summarizer's reply starts (``compactor.models.local``); a test holds it."""

LAST_ROUNDS = 3
"""Rounds of calls (assistant messages with calls) whose skill loads count as recent."""

NAMED_HEADING = (
    "Skills also loaded earlier in this session, bodies not repeated here (load one again "
    "before relying on it):"
)
_BASE_RE = lazy_pattern(r"Base directory for this skill:\s*(\S+)")
_PATH_RE = lazy_pattern(r"<path>\s*(\S+?)\s*</path>")
_INJECTED_RE = lazy_pattern(r"\s*<skill>\s*<name>\s*([^<\n]{1,200}?)\s*</name>", re.IGNORECASE)


class _Loaded(Protocol):
    name: str
    content: str
    order: int


S = TypeVar("S", bound=_Loaded)


def recent_from(entries: Sequence[Entry]) -> int:
    """The index from which a skill load belongs to the current work: the current request
    (the last user message the user typed) or the first of the last :data:`LAST_ROUNDS`
    rounds, whichever comes first."""
    request = rounds = len(entries)
    seen = 0
    for e in reversed(entries):
        if e.role == "assistant" and e.calls and seen < LAST_ROUNDS:
            seen += 1
            rounds = e.index
        if (
            e.role == "user"
            and e.text.strip()
            and not e.injected
            and not e.internal
            and (not e.text.lstrip().startswith("<") or users_command(e.text) is not None)
        ):
            request = e.index
            break
    return min(request, rounds)


def focus_skills(
    entries: Sequence[Entry],
    skills: list[S],
    summary: Message | AgenticMessage,
    model_input: Sequence[Message | AgenticMessage] | None,
) -> tuple[list[S], str]:
    """(skills kept verbatim, the ``<system-reminder>`` naming the others ('' when none)).
    Every skill is kept unless ``summary`` is the embedded summarizer's. ``entries`` are those
    of ``model_input`` when it is given (its instruction messages are not the user's)."""
    if not skills or not assistant_text(summary).startswith(EMBEDDED_HEAD):
        return skills, ""
    end = len(entries)
    if model_input is not None:
        from compactor.models.local_focus import context_span

        end = context_span(model_input)[1]
    since = recent_from(entries[:end])
    read = {s.name: _read_at(entries, s.name) for s in skills if s.order < 0}  # by a command
    kept = [s for s in skills if (read[s.name][0] if s.order < 0 else s.order) >= since]
    others = [s for s in skills if s not in kept]
    if not others:
        return kept, ""
    lines = []
    for s in others:
        base = _BASE_RE.search(s.content[:2_000])
        where = f"{base.group(1).rstrip('/')}/SKILL.md" if base else "its SKILL.md"
        path = _PATH_RE.search(s.content[:1_000]) if s.content.lstrip()[:7] == "<skill>" else None
        where = path.group(1) if path is not None else where
        where = "the prompt the user's slash command expanded to" if s.name[:1] == "/" else where
        lines.append(f"- {s.name}: {read[s.name][1] if s.name in read else where}")
    return kept, "<system-reminder>\n" + NAMED_HEADING + "\n" + "\n".join(
        lines
    ) + "\n</system-reminder>"


def _read_at(entries: Sequence[Entry], name: str) -> tuple[int, str]:
    """(index, path) of the last call that read skill ``name``'s ``SKILL.md`` with a command
    ((-1, "its SKILL.md") when none names it)."""
    mark = f"/{name}/SKILL.md"
    for e in reversed(entries):
        for call in e.calls:
            if mark in call.arguments:
                found = re.search(r"[^\s'\"]*" + re.escape(mark), call.arguments)
                return e.index, found.group(0) if found else "its SKILL.md"
    return -1, "its SKILL.md"


def injected_skills(entries: Sequence[Entry]) -> list[tuple[str, str, int]]:
    """(name, body, index) of each skill the CLI injected as a user message (Codex writes
    ``<skill><name>NAME</name><path>…</path>BODY</skill>`` right after the request that named
    the skill), the newest per name, in order (blind check 23 G1: the body the current request
    loaded was in no output); and the prompt a user's own slash command expanded into (Claude
    Code: an injected message right after the ``<command-name>`` markup), named ``/NAME``: the
    skill's text, durable context, not the user's words (blind check 57 N2). :func:`focus_skills`
    then keeps those of the current work."""
    found: dict[str, tuple[str, str, int]] = {}
    for e in entries:
        if e.injected and e.role == "user" and e.index and (before := entries[e.index - 1]):
            name = users_command(before.text) if before.role == "user" else None
            if name is not None and before.index == e.index - 1 and prompt_head(e.text):
                found.pop(name, None)
                found[name] = (name, e.text.strip(), e.index)
                continue
        if e.role != "user" or e.internal or not e.text.lstrip()[:7].lower() == "<skill>":
            continue
        named = _INJECTED_RE.match(e.text, 0, 400)
        if named is not None:
            found.pop(named.group(1), None)
            found[named.group(1)] = (named.group(1), e.text.strip(), e.index)
    return list(found.values())
