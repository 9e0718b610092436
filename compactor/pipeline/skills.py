"""The skills a session loaded, for PreserveSkills (SPEC §5.3): each skill-tool call paired with
its result (:func:`find_skills`), and the kept ones rendered within the handler's budgets
(:func:`render_skills`, :func:`budgeted`). The handlers that put them in the summary are
:mod:`compactor.pipeline.finalize`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from compactor.counting.tokens import estimate_text
from compactor.errors import SummarizationError
from compactor.facts.fences import cut_bytes as _truncate_bytes  # closes a cut ``` (blind 14)
from compactor.prompts import SKILL_TRUNCATED_MARKER, SKILLS_PREAMBLE
from compactor.schema import SKILL_BODY_KEY, AgenticMessage, Message, loads_json, user_text

__all__ = ["PreserveSkillsConfig", "Skill", "budgeted", "find_skills", "render_skills"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PreserveSkillsConfig:
    """Keep the texts of skills loaded in the session at the start of the summary."""

    skill_tool_name: str = "skill"
    """Name of the tool whose calls load a skill (the claude-code reader reads Claude Code's
    ``Skill`` tool as ``skill``)."""
    max_skills: int = 5
    """Newest skills kept; 0 turns the handler off."""
    max_tokens_per_skill: int = 5_000
    """A longer skill is cut to this many tokens (with a marker)."""
    skills_token_budget: int = 25_000
    """All kept skills together."""


@dataclass(slots=True)
class Skill:
    """A skill's text as kept: its name, its body, where it was loaded (message index)."""

    name: str
    content: str
    order: int


def _tool_result_text(msg: Message | AgenticMessage, call_id: str) -> str | None:
    if isinstance(msg, Message):
        if msg.role == "tool" and msg.tool_call_id == call_id:
            return user_text(msg)
        return None
    for block in msg.blocks:
        if block.type == "function_tool_result" and block.call_id == call_id:
            return "\n".join(b.text or "" for b in block.content if b.text is not None)
    return None


def _skill_calls(msg: Message | AgenticMessage, tool_name: str) -> list[tuple[str, str]]:
    """(call id, arguments) of the skill-tool calls in one message."""
    if isinstance(msg, Message):
        return [(c.id, c.arguments) for c in msg.tool_calls if c.name == tool_name]
    return [
        (b.call_id or "", b.arguments or "")
        for b in msg.blocks
        if b.type == "function_tool_call" and b.name == tool_name
    ]


def find_skills(messages: Sequence[Message | AgenticMessage], tool_name: str) -> list[Skill]:
    """Skill loads paired with their results, newest result per skill name, chronological.

    A skill's content is its call's result, or the message that names the call as its source
    (:data:`SKILL_BODY_KEY`) when there is one: that is the body the agent followed.
    """
    pending: dict[str, str] = {}
    loaded: dict[str, str] = {}  # call id → skill name, once the result is in
    bodies: dict[str, tuple[str, int]] = {}
    by_name: dict[str, Skill] = {}
    for index, msg in enumerate(messages):
        source = msg.extra.get(SKILL_BODY_KEY)
        if isinstance(source, str) and user_text(msg):
            bodies[source] = (user_text(msg), index)
            name = loaded.get(source)
            if name is not None:
                by_name.pop(name, None)
                by_name[name] = Skill(name, user_text(msg), index)
        for call_id, arguments in _skill_calls(msg, tool_name):
            try:
                args = loads_json(arguments)
                name = args["skill"]
                if not isinstance(name, str):
                    raise TypeError("'skill' is not a string")
            except (ValueError, KeyError, TypeError) as err:
                raise SummarizationError(
                    f"failed to parse skill arguments from tool call ID: {call_id}: {err}"
                ) from err
            pending[call_id] = name
        for call_id in list(pending):
            result = _tool_result_text(msg, call_id)
            if result is not None:
                name = pending.pop(call_id)
                loaded[call_id] = name
                content, order = bodies.get(call_id, (result, index))
                by_name.pop(name, None)
                by_name[name] = Skill(name, content, max(order, index))
    return sorted(by_name.values(), key=lambda s: s.order)


def render_skills(skills: list[Skill], cfg: PreserveSkillsConfig) -> str:
    """The ``<system-reminder>`` block for the kept skills ('' when none is kept)."""
    sections = budgeted(skills, cfg, "Skill", SKILL_TRUNCATED_MARKER)
    return (
        f"<system-reminder>\n{SKILLS_PREAMBLE}\n\n{sections}\n</system-reminder>"
        if sections
        else ""
    )


def budgeted(skills: list[Skill], cfg: PreserveSkillsConfig, heading: str, marker: str) -> str:
    """The newest ``cfg.max_skills`` texts within the per-text and total budgets, as
    ``### HEADING: NAME`` sections in chronological order ('' when none fits)."""
    if cfg.max_skills == 0:
        return ""
    chosen = skills[-cfg.max_skills :]
    kept: list[Skill] = []
    used = 0
    for skill in reversed(chosen):
        content = skill.content
        cost = estimate_text(content)
        if cost > cfg.max_tokens_per_skill:
            cut_mark = marker.format(name=skill.name)
            limit = cfg.max_tokens_per_skill * 4 - len(cut_mark.encode("utf-8"))
            content = _truncate_bytes(content, limit) + cut_mark
            cost = cfg.max_tokens_per_skill
        if used + cost > cfg.skills_token_budget:
            break
        used += cost
        kept.append(Skill(skill.name, content, skill.order))
    if not kept:
        return ""
    kept.reverse()
    return "\n\n---\n\n".join(f"### {heading}: {s.name}\n\n{s.content}" for s in kept)
