"""A service a call stopped or disabled, and nothing started again: its last known state
(blind check 68 W1).

cc_my_grep: the agent restarted the app with ``pm2 restart``, answered "The application is now
running … live at http://…", and after the user's next message ran ``pm2 stop APP`` (status
``stopped``) and never started it again; the last calls were reads. The summary quoted the
"is running" answer and cut the ``pm2 stop`` call from its lists: a resuming agent believed the
site was up while it was down because of the agent.

By shape: a step of a shell command that changes a service's state — ``pm2 stop|delete|kill``,
``systemctl stop|disable|kill|mask``, ``service X stop``, ``supervisorctl stop``, ``brew services
stop``, ``docker stop|kill|rm -f``, ``docker compose down|stop``, ``pkill``/``killall`` — in a
call that succeeded, with no later step that starts (or enables) the same service, or one of
that manager's services unnamed (``pm2 start ecosystem.config.js``, ``docker compose up``). For
``pkill``/``killall`` any later call that leaves a process running (``&``, ``nohup``,
``run_in_background``) or names the pattern counts as a start. Such a call is the service's last
known state: section 8 says so ("`pm2 stop app` (succeeded): the service was left stopped;
nothing started it again") and section 5's list of calls keeps it when the list is cut. A bare
``kill PID`` names no service (the background jobs' own rules cover it).

A call whose result was flagged (an error flag or a non-zero exit) while ``pkill`` ended it is
not failed (exit 1: "no process matched"), but it stopped nothing either: no state change
(blind check 69 W6: ``kill %1 2>/dev/null || pkill -f "python3 -m http.server"`` returned a
bare "Error" and was said to have "(succeeded): the service was left stopped").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, exit_code, shell_words
from compactor.facts.commands import exit_one_program
from compactor.facts.shellwrap import inner_command

from .local_pkillmaybe import PKILL_MAYBE, maybe_jobs
from .local_session import Session
from .local_text import code

__all__ = ["call_rows", "left_stopped", "service_items"]

_SEGMENT_RE = lazy_pattern(r"\|\||&&|[|;\n]")
_WORDS = lazy_pattern(r"pm2|systemctl|service|supervisorctl|brew|docker|pkill|killall")
_ANY = "*"
_STOPS = {
    "pm2": {"stop": "stopped", "delete": "stopped", "del": "stopped", "kill": "stopped"},
    "systemctl": {"stop": "stopped", "kill": "stopped", "disable": "disabled", "mask": "disabled"},
    "supervisorctl": {"stop": "stopped"},
    "brew": {"stop": "stopped"},
    "service": {"stop": "stopped"},
    "docker": {"stop": "stopped", "kill": "stopped"},
    "compose": {"down": "stopped", "stop": "stopped", "kill": "stopped"},
}
_STARTS = {
    "pm2": {"start", "restart", "reload", "resurrect", "startorrestart", "startorreload"},
    "systemctl": {"start", "restart", "reload-or-restart", "try-restart", "enable", "unmask"},
    "supervisorctl": {"start", "restart"},
    "brew": {"start", "restart", "run"},
    "service": {"start", "restart"},
    "docker": {"start", "restart", "run"},
    "compose": {"up", "start", "restart", "run"},
}
_UNDO = {"stopped": "started", "disabled": "enabled"}
_LAUNCH_RE = lazy_pattern(r"(?<![&|>])&[ \t]*(?:$|;|\n|\))|\bnohup\b|\bsetsid\b|\bdisown\b")


@dataclass(frozen=True, slots=True)
class _Step:
    manager: str
    names: tuple[str, ...]  # ("*",): every service of the manager
    state: str  # "stopped" / "disabled" for a stop; "" for a start


def _steps(command: str) -> list[_Step]:
    """The service state changes of ``command``'s steps, in order."""
    if not _WORDS.search(command):  # (most commands)
        return []
    out: list[_Step] = []
    for segment in _SEGMENT_RE.split(command):
        words = shell_words(segment)
        while words and (words[0] in ("sudo", "env", "nohup") or re.match(r"\w+=", words[0])):
            words = words[1:]
        out.extend(_step(words) if words else ())
    return out


def _step(words: list[str]) -> list[_Step]:
    """The state changes of one step (``systemctl disable --now x``: two)."""
    program = words[0].rsplit("/", 1)[-1]
    rest = words[1:]
    if program == "docker-compose":
        program = "compose"
    elif program == "docker" and rest[:1] == ["compose"]:
        program, rest = "compose", rest[1:]
    elif program == "brew":
        if rest[:1] != ["services"]:
            return []
        rest = rest[1:]
    if program in ("pkill", "killall"):
        names = [w for w in rest if not w.startswith("-")]
        return [_Step("process", (names[-1],), "stopped")] if names else []
    if program == "service":  # service NAME stop
        if len(rest) < 2:
            return []
        rest = [rest[1], rest[0]]
    verbs = [w for w in rest if not w.startswith("-")]
    if program == "docker" and verbs[:1] == ["container"]:
        verbs = verbs[1:]
    if program not in _STOPS or not verbs:
        return []
    verb, names = verbs[0].lower(), verbs[1:]
    if program == "docker" and verb == "rm" and any(w in ("-f", "--force") for w in rest):
        verb = "stop"
    if program == "docker" and verb == "run":  # only its --name names the container
        named = next((rest[i + 1] for i, w in enumerate(rest[:-1]) if w == "--name"), _ANY)
        return [_Step("docker", (named,), "")]
    if program in ("compose", "pm2") and (not names or program == "compose"):
        names = [_ANY]
    names = [_ANY if n == "all" or "/" in n or n.endswith((".js", ".json")) else n for n in names]
    if program == "pm2":  # an id (`pm2 stop 0`) may be any app's
        names = [_ANY if n.isdigit() else n for n in names]
    names = [n.removesuffix(".service") for n in names]
    held = tuple(names or [_ANY])
    now = "--now" in rest
    if program == "systemctl" and verb in ("enable", "disable", "mask", "unmask"):
        boot = _Step("systemctl-boot", held, "disabled" if verb in ("disable", "mask") else "")
        if not now:
            return [boot]
        return [boot, _Step("systemctl", held, "stopped" if boot.state else "")]
    if verb in _STARTS[program]:
        return [_Step(program, held, "")]
    if verb in _STOPS[program]:
        return [_Step(program, held, _STOPS[program][verb])]
    return []


def _command(call: Call) -> str:
    return inner_command(call) or call.command or ""


def _matched_none(flagged: dict[str, bool], c: Call) -> bool:
    """Whether stop call ``c`` returned a flagged result that its last program, ``pkill``,
    makes "no process matched" (not failed, yet it stopped nothing; module doc)."""
    return bool(flagged.get(c.id)) and exit_one_program(c) == "pkill"


def _flags(s: Session) -> dict[str, bool]:
    """Whether each answered call's result was flagged (error flag or a non-zero exit)."""
    return {
        r.call_id: r.is_error or (exit_code(r.text) or 0) != 0
        for e in s.entries
        for r in e.results
        if r.call_id
    }


def left_stopped(s: Session) -> list[tuple[Call, str]]:
    """(call, state) of each successful call whose stop or disable of a service no later call
    undid, in order; computed once (sections 5 and 8 both ask)."""
    if s.services is not None:
        return s.services
    last: dict[tuple[str, str], tuple[Call, str]] = {}  # (manager, name) -> its latest stop
    flagged: dict[str, bool] | None = None  # built at the first stop seen
    for c in s.calls:
        if c.id in s.refused:
            continue
        command = _command(c)
        launches = c.args.get("run_in_background") is True or bool(_LAUNCH_RE.search(command))
        if launches or command:
            for key in [k for k in last if k[0] == "process"]:
                if launches or key[1] in command:
                    del last[key]
        for step in _steps(command) if command else ():
            for name in step.names:
                if step.state:
                    if step.manager == "process" and launches:
                        continue  # `pkill x; nohup x &`: started again at once
                    if c.id in s.answered and c.id not in s.failed_calls:
                        flagged = _flags(s) if flagged is None else flagged
                        if not _matched_none(flagged, c):  # (blind check 69 W6)
                            last[(step.manager, name)] = (c, step.state)
                    continue
                for key in [k for k in last if k[0] == step.manager]:
                    if name in (_ANY, key[1]) or key[1] == _ANY:
                        del last[key]
    found: dict[str, tuple[Call, set[str]]] = {}
    for c, state in last.values():
        found.setdefault(c.id, (c, set()))[1].add(state)
    states = [(c, " and ".join(sorted(held, reverse=True))) for c, held in found.values()]
    s.services = sorted(states, key=lambda cs: s.calls.index(cs[0]))
    return s.services


def service_items(s: Session, width: int) -> list[str]:
    """Section 8's lines of the services the calls left stopped or disabled ([] if none)."""
    lines: list[str] = []
    for c, state in left_stopped(s):
        many = len({n for st in _steps(_command(c)) if st.state for n in st.names}) > 1
        what = "the services were" if many else "the service was"
        undo = " or ".join(_UNDO[x] for x in state.split(" and "))
        maybe = maybe_jobs(s, _command(c))  # its pattern matched no job aimed at (77 N2)
        if maybe:
            jobs = ", ".join(f"{code(cut(b.command, 60))}" + (f" (id {b.key})" if b.key and
                             b.key != b.command else "") for b in maybe)  # fmt: skip
            lines.append(
                f"{code(cut(_command(c), width))} (succeeded): what it matched, if anything, was "
                f"left stopped; background job {jobs} is possibly still running "
                f"({PKILL_MAYBE}): check it"
            )
            continue
        lines.append(
            f"{code(cut(_command(c), width))} (succeeded): {what} left {state}; nothing {undo} "
            f"{'them' if many else 'it'} again"
        )
    if not lines:
        return []
    return ["Services' last known state, set by the calls (later than any start):"] + [
        f"  {x}" for x in lines
    ]


def call_rows(s: Session, head: int, tail: int) -> list[Call | int]:
    """Section 5's list of calls: the first ``head`` and last ``tail``, and between them the
    calls that left a service stopped (:func:`left_stopped`); an int stands for that many calls
    left out."""
    if len(s.calls) <= head + tail:
        return list(s.calls)
    kept = {c.id for c, _ in left_stopped(s)}
    rows: list[Call | int] = list(s.calls[:head])
    left = 0  # the calls left out since the last row
    for c in s.calls[head : len(s.calls) - tail] if kept else ():
        if c.id in kept:
            rows += [left, c] if left else [c]
            left = 0
        else:
            left += 1
    left = left if kept else len(s.calls) - tail - head  # none kept: one gap (most sessions)
    return [*rows, *([left] if left else []), *s.calls[len(s.calls) - tail :]]
