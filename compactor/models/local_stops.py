"""Calls the session left open or the user stopped (blind check 11): calls in flight (an escalated
one waits for the user's approval, and says why it asked) and the words of an aborted call.

An escalated call a later record approves is not waiting (re-judged goldens W1, soul: Codex's
developer message "Approved command prefix saved: - ["bash", ".../export-session.sh"]" came
after the escalated export, yet §7 said it "waits for the user's approval"):
:func:`approved_calls` links such an approval to the in-flight escalated calls before it whose
``prefix_rule`` is the saved prefix, or whose command starts with its words."""

from __future__ import annotations

import json
import re

from compactor._util import lazy_pattern
from compactor.facts import (
    ESCALATED,
    STOPPED,
    Call,
    command_of,
    escalated,
    justification,
    shell_words,
)
from compactor.facts.outcomes import unadvised

from .local_committed import overwrites
from .local_planmode import is_plan_approval
from .local_session import Session
from .local_text import call_line, code, quote
from .local_unasked import unasked_offer

__all__ = [
    "IN_FLIGHT",
    "approved_calls",
    "flight_items",
    "in_flight_items",
    "in_flight_step",
    "sandbox_reasons",
    "stopped_after",
    "stopped_how",
]

IN_FLIGHT = "in flight when the session was saved"


def stopped_after(action: list[str], done: list[str]) -> str:
    """Section 9's "Work stopped after the last action: …" for ``done``, the last action's
    calls that returned; "the last call that returned" when later calls of ``action`` are in
    flight (blind check 32 N5: they, not it, were the last action)."""
    if not done:
        return ""
    last = done[-1]
    later = any(IN_FLIGHT in a for a in action[action.index(last) + 1 :])
    return f" Work stopped after the last {'call that returned' if later else 'action'}: " + (
        f"{unadvised(last)}."
    )


_APPROVED_RE = lazy_pattern(r"^\s*Approved command prefix saved\b")
_PREFIX_LINE_RE = lazy_pattern(r"^\s*-\s*(\[.*\])\s*$", re.MULTILINE)
APPROVED = (
    '; the user approved it (a later record: "Approved command prefix saved"), so it ran or is '
    "still running outside the sandbox: do not ask for approval again; its result is not in the "
    "transcript: look for its side effects"
)


def _prefixes(text: str) -> list[list[str]]:
    """The command prefixes an approval record saves (``- ["bash", "/x/run.sh"]`` lines)."""
    out: list[list[str]] = []
    for m in _PREFIX_LINE_RE.finditer(text):
        try:
            words = json.loads(m.group(1))
        except ValueError:
            continue
        if isinstance(words, list) and words and all(isinstance(w, str) for w in words):
            out.append(words)
    return out


def _words(call: Call) -> list[str]:
    rule = call.args.get("prefix_rule")
    if isinstance(rule, list) and rule and all(isinstance(w, str) for w in rule):
        return rule
    command = command_of(call)
    return shell_words(command) if command else []


def approved_calls(s: Session) -> frozenset[str]:
    """The ids of the escalated in-flight calls a later record approved."""
    waiting = [c for c in s.in_flight if escalated(c)]
    if not waiting:
        return frozenset()
    found: set[str] = set()
    for e in s.entries:
        if e.role in ("system", "developer", "user") and _APPROVED_RE.match(e.text):
            for prefix in _prefixes(e.text):
                found.update(
                    c.id
                    for c in waiting
                    if c.index < e.index and _words(c)[: len(prefix)] == prefix
                )
    return frozenset(found)


_AGAIN = "then run them again if still needed"
_CHECK_AGAIN = (
    "check whether they ran (look for their side effects) and run them again if still needed"
)
_OVER = (
    "but a call among them writes over a file that existed already ({}): read that file first, "
    "and run it again only if still needed and without losing what the file held"
)


def guard_overwrite(step: str) -> str:
    """Section 9's step for calls in flight when one writes over an existing file (blind check
    70 N2): not a plain "run them again if still needed"."""
    return step.replace(
        _CHECK_AGAIN,
        _CHECK_AGAIN.replace(
            " and run them again if still needed", "; " + _OVER.format("section 7")
        ),
    )


_DISRUPTIVE_RE = lazy_pattern(
    r"(?:^|[;&|(]\s*|\bsudo\s+)(?:systemctl\s+(?:reboot|poweroff|halt|kexec|soft-reboot)\b"
    r"|(?:reboot|poweroff|halt)\b(?!\S)|shutdown\b(?!\S)(?![^;&|\n]*\s-c\b)|init\s+[06]\b"
    r"|Restart-Computer\b|Stop-Computer\b)",
    re.MULTILINE,
)
"""A command that reboots or shuts the machine down (``systemctl reboot``, ``sudo shutdown -r
now``, ``init 6``): in flight, it is not to be run again unasked (blind check 68 N5)."""
_UNASKED = "run a reboot or shutdown among them again only if the user asks for it"
_AGENTS = r"(?:claude|codex|node|gemini|aider|opencode|cursor-agent|qwen)"
_KILLS_AGENT_RE = lazy_pattern(
    r"(?:^|[;&|(]\s*|\bsudo\s+)(?:(?:pkill|killall)(?:\s+-\S+)*\s+([\"']?)"
    + _AGENTS
    + r"\1(?=\s*(?:$|[;&|)]|\d?>))|kill(?:\s+-\S+)+\s+-1(?=\s*(?:$|[;&|)]|\d?>)))",
    re.MULTILINE,
)
"""A command that kills the agent's own harness or every process of a name one runs as
(``pkill -f "claude"``, ``killall node``, ``pkill codex``, ``kill -9 -1``): in flight, it is not
to be run again unasked either (blind check 69 N1: §9 said to run ``pkill -f "claude" && sleep 2
&& claude mcp list`` again if still needed). A pattern naming more (``pkill -f "node server.js"``)
is not the harness."""
_UNASKED_KILL = (
    "run a call among them that kills the agent's own processes again only if the user asks for it"
)
_REBOOTS = "reboots or shuts down the machine"
_KILLS = "kills the agent's own processes (every process of a name the agent runs as)"
_DELEGATES = (
    "hands the work to another agent, which may still be running and may have left part of its "
    "work done (check the files it was to change and its own transcript)"
)
_UNASKED_AGENT = (
    "a call among them that hands work to another agent may still be running: check what it "
    "changed, and start it again only if the user asks for it"
)
_DELEGATE_TOOLS = frozenset(
    {"task", "agent", "clink", "delegate", "subagent", "spawn_agent", "run_agent", "dispatch_agent"}
)
_AGENT_KEYS = ("cli_name", "subagent_type", "agent", "agent_name", "agent_type")


def delegates(call: Call) -> bool:
    """Whether ``call`` hands a prompt to another agent (a sub-agent or another agent CLI):
    Claude Code's ``Task``/``Agent``, an MCP tool such as PAL's ``clink`` (``mcp__pal__clink``:
    its own name after the server's), or any call whose arguments hold a ``prompt`` and name
    the agent to run it (``cli_name``, ``subagent_type``, ``agent``). In flight, it may still be
    running and leave part of its work done (blind check 73 N6: two ``clink`` calls delegating
    Phases 7 and 8 ran on for half an hour after the session was saved)."""
    own = call.name.lower().rsplit("__", 1)[-1]
    prompt = call.args.get("prompt")
    if own in _DELEGATE_TOOLS:
        return own in ("task", "agent") or isinstance(prompt, str)
    return isinstance(prompt, str) and any(
        isinstance(call.args.get(k), str) and call.args.get(k) for k in _AGENT_KEYS
    )


def disruption(call: Call) -> str:
    """What ``call`` disrupts beyond its own work: :data:`_REBOOTS` (:data:`_DISRUPTIVE_RE`),
    :data:`_KILLS` (:data:`_KILLS_AGENT_RE`), :data:`_DELEGATES` (:func:`delegates`) or
    ``""``."""
    command = call.command
    if command is None:
        return _DELEGATES if delegates(call) else ""
    if _DISRUPTIVE_RE.search(command.strip()) is not None:
        return _REBOOTS
    return _KILLS if _KILLS_AGENT_RE.search(command.strip()) is not None else ""


def disruptive(call: Call) -> bool:
    """Whether ``call`` reboots or shuts down the machine, or kills the agent's own processes
    (:func:`disruption`)."""
    return bool(disruption(call))


def in_flight_items(
    flying: list[Call],
    width: int,
    most: int,
    plan: str = "",
    approved: frozenset[str] = frozenset(),
) -> list[str]:
    """Section 7's lines for calls without a result (none when there are none). ``plan``
    (:func:`~compactor.models.local_planmode.awaiting_plan`): a plan-approval call among them
    waits for the user's answer, it is not to be checked and run again (blind check 28, W3); an
    escalated call in ``approved`` is said approved, not waiting."""
    if not flying:
        return []
    if plan and all(is_plan_approval(c.name) for c in flying):
        return [
            f"Tool calls {IN_FLIGHT} ({len(flying)}): the plan-approval call "
            f"{code(call_line(flying[-1], width))}: {plan}; wait for the user's answer (approve "
            "or change it), do not call it again unasked"
        ]
    kinds = {disruption(c) for c in flying}
    again = _AGAIN + "".join(
        f"; {said}"
        for kind, said in (
            (_REBOOTS, _UNASKED),
            (_KILLS, _UNASKED_KILL),
            (_DELEGATES, _UNASKED_AGENT),
        )
        if kind in kinds
    )
    head = (
        f"Tool calls {IN_FLIGHT} ({len(flying)}; their results are not in the transcript: "
        f"check whether they ran, {again}):"
    )
    return [
        head,
        *(
            f"  {call_line(c, width, keep_end=True)}"
            + (APPROVED if c.id in approved else _approval(c, width, plan))
            + (f" (it {kind}: not to be run again unasked)" if (kind := disruption(c)) else "")
            for c in flying[:most]
        ),
    ]


def _approval(call: Call, width: int, plan: str = "") -> str:
    """For an escalated call in flight: that it waits for the user's approval, and why it asked;
    for a plan-approval call, that the plan waits for the user's approval."""
    if plan and is_plan_approval(call.name):
        return f"; {plan} (the user answers it)"
    if not escalated(call):
        return ""
    why = justification(call)
    said = f"; why: {quote(why, width)}" if why else ""
    return f"; it waits for the user's approval to run outside the sandbox{said}"


def in_flight_step(
    flying: list[Call], width: int, most: int, plan: str = "", unasked: str = ""
) -> str:
    """The next step for calls without a result: after compaction their results never arrive,
    so they are to be checked (did they run?) and run again if still needed; all are named. A
    plan-approval call alone in flight (``plan``) is the user's to answer: wait for it. A step
    the assistant only offered (``unasked``: its question the user never answered,
    :func:`~.local_unasked.unasked_offer`) awaits that answer (blind check 58 N2)."""
    names = "; ".join(code(call_line(c, width, keep_end=True)) for c in flying[:most])
    if unasked:
        return (
            f"These calls were {IN_FLIGHT} ({names}); they start a step the assistant only "
            f"offered ({quote(unasked, width * 2)}), a question the user never answered: check "
            "whether they ran (look for their side effects), tell the user, and do not run them "
            "again or finish that step until the user answers"
        )
    if plan and all(is_plan_approval(c.name) for c in flying):
        return (
            f"Wait for the user's answer: {plan} ({names} was {IN_FLIGHT}; do not call it again "
            "unasked); once approved, carry the plan out"
        )
    if len(flying) > most:
        names += f"; {len(flying) - most} more listed in section 7"
    stops = [c for c in flying if disruptive(c)]
    if stops:  # a reboot or a kill of the agent is the user's to order again (68 N5, 69 N1)
        named = "; ".join(
            f"{code(call_line(c, width, keep_end=True))} {disruption(c)}" for c in stops[:2]
        )
        others = ", run the others again if still needed" if len(stops) < len(flying) else ""
        return (
            f"These calls were {IN_FLIGHT} and their results are not in the transcript ({names}): "
            f"check whether they ran (look for their side effects){others}; {named}: do not run "
            "it again unless the user asks for it"
        )
    return (
        f"These calls were {IN_FLIGHT} and their results are not in the transcript ({names}): "
        + _CHECK_AGAIN
    )


def stopped_how(line: str) -> str:
    """The result's own words after :data:`STOPPED` (``aborted by user after 22.9s``)."""
    return line.removeprefix(STOPPED).lstrip(": ") or "no words"


_SANDBOX_RE = lazy_pattern(
    r".{0,80}(?:eperm|operation not permitted|permission denied|sandbox|read-only file system)"
    r".{0,40}",
    re.IGNORECASE,
)


def sandbox_reasons(s: Session, width: int) -> list[str]:
    """For each escalated call in flight, the error of the same command's last sandboxed run
    (why it asks to run outside the sandbox: ``:eperm``, "Operation not permitted")."""
    lines: list[str] = []
    for call in (c for c in s.in_flight if escalated(c)):
        plain = call_line(call, 300).removesuffix(ESCALATED)
        err = next((e for e in reversed(s.errors) if e.call == plain and e.outcome.lines), None)
        if err is not None:
            text = " ".join(err.outcome.lines)
            entry = s.entries[err.index] if 0 <= err.index < len(s.entries) else None
            full = " ".join(r.text[:4_000] for r in entry.results) if entry is not None else ""
            found = _SANDBOX_RE.search(full) or _SANDBOX_RE.search(text)  # the restriction
            said = quote(f"…{found.group(0)}…" if found else text, width)
            lines.append(f"  Escalated because its run in the sandbox failed: {said}")
    return lines


def flight_items(s: Session, width: int, most: int, plan: str = "") -> list[str]:
    """Section 7's lines for the calls in flight (approved ones said so; ``plan``: see
    :func:`in_flight_items`), then why the escalated ones asked."""
    flying = in_flight_items(s.in_flight, width, most, plan, approved_calls(s))
    if flying and (offer := unasked_offer(s)):  # an offered step started unasked (58 N2)
        flying[0] = flying[0].replace(_AGAIN, "but do not run them again before the user answers")
        flying.append(
            f"  They start a step the assistant only offered ({quote(offer, width)}): the user "
            "never answered; that step awaits the user's answer"
        )
    over = overwrites(s, width)
    if flying and over:  # (blind check 70 N2)
        flying[0] = flying[0].replace(_AGAIN, _OVER.format("below"))
    return [*flying, *over, *sandbox_reasons(s, 200)]
