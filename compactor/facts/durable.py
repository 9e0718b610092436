"""Durable context of an agent session: what must survive a compaction word for word
(issue 28, point 4).

* :func:`instruction_files` — instruction files the agent CLI injected: Codex's ``# AGENTS.md
  instructions for PATH`` + ``<INSTRUCTIONS>`` blocks and older ``<user_instructions>`` blocks,
  Claude Code's ``Contents of PATH (… instructions …):`` sections of a ``claudeMd``
  ``<system-reminder>``. The newest text per file, in order.
* :func:`skill_reads` — skills an agent loaded by reading their ``SKILL.md`` with a shell
  command (Codex: ``sed -n '1,260p' ~/.codex/skills/NAME/SKILL.md``); Claude Code's ``Skill``
  tool is :func:`compactor.pipeline.finalize.find_skills`'s.
* :func:`latest_plan` — the agent's latest plan or todo list (``TodoWrite``, ``update_plan``),
  every item with its status.

Each returns ``(name, text)`` pairs; the finalizer renders them within PreserveSkills' budgets.
"""

from __future__ import annotations

import re

from .outcomes import command_of, strip_output_header
from .text import Entry

__all__ = ["instruction_files", "latest_plan", "skill_reads"]

_AGENTS_RE = re.compile(
    r"# AGENTS\.md instructions for ([^\n]+)\n+<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>", re.DOTALL
)
_USER_INSTRUCTIONS_RE = re.compile(r"<user_instructions>\n?(.*?)\n?</user_instructions>", re.DOTALL)
_CLAUDE_MD_RE = re.compile(
    r"^Contents of (\S+) \([^)\n]*instructions[^)\n]*\):\n\n(.*?)"
    r"(?=\n\nContents of \S+ \(|\n*</system-reminder>|\n# currentDate\n|"
    r"\n+\s*IMPORTANT: this context|\Z)",
    re.DOTALL | re.MULTILINE,
)
_SKILL_FILE_RE = re.compile(r"(\S*/([\w.\-]+)/SKILL\.md)\b")
_INNER_COMMAND_RE = re.compile(r'"(?:cmd|command)"\s*:\s*"((?:[^"\\]|\\.){1,2000})"')
_READERS = ("cat ", "sed ", "head ", "nl ", "Get-Content ", "type ", "bat ")
_PLAN_KEYS = (("TodoWrite", "todos", "content"), ("todo_write", "todos", "content"),
              ("update_plan", "plan", "step"))  # fmt: skip


def instruction_files(entries: list[Entry]) -> list[tuple[str, str]]:
    """(file, text) of every instruction file injected, the newest text per file, in the
    order of their last injection."""
    found: dict[str, str] = {}
    for e in entries:
        if e.role not in ("user", "system") or e.internal or not e.text:
            continue
        text = e.text
        if "AGENTS.md instructions" in text:
            for path, body in _AGENTS_RE.findall(text):
                found.pop(f"AGENTS.md for {path.strip()}", None)
                found[f"AGENTS.md for {path.strip()}"] = body.strip()
        if "<user_instructions>" in text:
            for body in _USER_INSTRUCTIONS_RE.findall(text):
                found.pop("user instructions", None)
                found["user instructions"] = body.strip()
        if "Contents of " in text and "instructions" in text:
            for path, body in _CLAUDE_MD_RE.findall(text):
                found.pop(path, None)
                found[path] = body.strip()
    return [(name, body) for name, body in found.items() if body]


def skill_reads(entries: list[Entry]) -> list[tuple[str, str]]:
    """(skill, text) of every ``SKILL.md`` a shell command printed whole (a ``cat``/``sed``/
    ``head`` of that one file, no failure), the newest per skill, in order."""
    calls: dict[str, tuple[str, str | None]] = {}
    found: dict[str, str] = {}
    for e in entries:
        for call in e.calls:
            if "SKILL.md" not in call.arguments:
                continue
            command = command_of(call)
            inner = _INNER_COMMAND_RE.search(call.arguments) if command is None else None
            if inner is not None:  # code that runs a command (Codex code-mode ``exec``)
                command = inner.group(1).replace('\\"', '"')
            if command is None or "SKILL.md" not in command:
                continue
            files = _SKILL_FILE_RE.findall(command)
            first, *rest = _SEGMENT_RE.split(command.strip())
            marker = _marker(rest)
            if len({f for f, _ in _SKILL_FILE_RE.findall(first)}) == 1 and (
                first.startswith(_READERS) and marker is not None
            ):
                calls[call.id] = (files[0][1], marker)
        for r in e.results:
            name, marker = calls.pop(r.call_id, ("", None))
            if not name or r.is_error:
                continue
            body = strip_output_header(r.text).strip()
            if body.startswith(("Script completed", "Wall time")):
                body = body.split("Output:", 1)[-1].strip()
            if marker:
                body = body.split(marker, 1)[0].strip() if marker in body else ""
            if body:
                found.pop(name, None)
                found[name] = body
    return list(found.items())


_SEGMENT_RE = re.compile(r"\s*(?:&&|\|\||;|\n)\s*")
"""Where a shell command line chains another command (a pipe stays in its segment)."""
_PRINT_RE = re.compile(r"""^(?:printf|echo)(?: -[en]+)? (['"])(.*?)\1""", re.DOTALL)


def _marker(rest: list[str]) -> str | None:
    """How to cut the SKILL.md part out of a command's output when the read is followed by
    ``rest``: "" (nothing follows: the whole output), the first line a ``printf``/``echo``
    right after the read prints (the output is cut before it), or None (the skill's text cannot
    be told apart from what the other commands printed: not a skill read)."""
    if not rest:
        return ""
    printed = _PRINT_RE.match(rest[0])
    if printed is None:
        return None
    lines = [ln.strip() for ln in re.split(r"\\+n|\n", printed.group(2)) if ln.strip()]
    return lines[0] if lines and len(lines[0]) >= 3 else None


def latest_plan(entries: list[Entry]) -> tuple[str, list[tuple[str, str]]] | None:
    """(tool, [(status, item)]) of the latest plan or todo list the agent wrote, or None."""
    for e in reversed(entries):
        for call in reversed(e.calls):
            for tool, key, field in _PLAN_KEYS:
                if call.name != tool:
                    continue
                items = call.args.get(key)
                if not isinstance(items, list):
                    continue
                plan = [
                    (str(item.get("status") or "pending"), item[field].strip())
                    for item in items
                    if isinstance(item, dict) and isinstance(item.get(field), str)
                ]
                if plan:
                    return tool, plan
    return None
