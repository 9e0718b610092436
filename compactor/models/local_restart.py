"""A server whose restart failed is down (blind check 34, cc-paivoice, the leftover of N2).

The last call was ``pkill -f voice-server; sleep 2; cd …/voice && nohup bun run voice-server.ts
> logs/voice.log 2>&1 &``: the kill ended the background job, and the restart in the same call
failed ("no such file or directory: logs/voice.log", exit 1). Section 7 said only "Nothing is
running": nothing said the server the work needs was down. :func:`down_items` finds each
background job a later call killed (:func:`compactor.facts.kills.later_kill` named that call)
when that call failed and, after its kill, started something again (``nohup``, a trailing
``&``), and no later call that succeeded started it again; section 7 says the server is
probably down and must be started again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line

from .local_text import code, quote

if TYPE_CHECKING:
    from compactor.facts import Call

    from .local_session import Session

__all__ = ["down_items"]

_KILL_RE = lazy_pattern(r"\b(?:pkill|killall|kill)\b")
_RESTART_RE = lazy_pattern(r"\bnohup\b|(?<![&|>])&\s*(?:$|;|\n)|\bsetsid\b|\bdisown\b")
"""A command that starts a process to run on (``nohup X &``, ``X &``)."""
_KILLED = "killed"


def _restarts(command: str) -> bool:
    """Whether ``command`` starts a process again after its kill."""
    kill = _KILL_RE.search(command)
    return kill is not None and _RESTART_RE.search(command, kill.end()) is not None


def _killer(s: Session, index: int, how: str) -> Call | None:
    """The later call :func:`later_kill` named in ``how`` (its command, cut, in backticks)."""
    for call in s.calls:
        if call.index > index and call.command and _KILL_RE.search(call.command):
            if f"`{cut(one_line(call.command), 120)}`" in how:
                return call
    return None


def down_items(s: Session, width: int) -> list[str]:
    """Section 7's lines for the background jobs killed by a call whose restart failed."""
    out: list[str] = []
    for bg in list(s.background.values()):
        if not bg.finished.startswith(_KILLED) or not s.failed_calls:
            continue
        killer = _killer(s, bg.index, bg.finished)
        if killer is None or killer.id not in s.failed_calls or not _restarts(killer.command or ""):
            continue
        if any(
            c.index > killer.index and c.id not in s.failed_calls
            and (_RESTART_RE.search(c.command or "") or c.args.get("run_in_background"))
            for c in s.calls
        ):  # fmt: skip
            continue  # started again later (the summary's job list says what runs)
        head = one_line(killer.command or "")[:40]
        err = next((e for e in s.errors if e.index >= killer.index and head in e.call), None)
        said = f" ({quote(err.outcome.lines[0], width // 2)})" if err and err.outcome.lines else ""
        out.append(
            f"Probably down: {code(cut(bg.command, width // 2))} was stopped by "
            f"{code(cut(one_line(killer.command or ''), width // 2))}, whose restart failed"
            f"{said}; start it again before relying on it."
        )
    return out
