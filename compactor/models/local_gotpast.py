"""A failure for a missing program that a later call got past (blind check 14, issue 28).

``chmod +x install.sh && psql --version && …`` failed with ``psql: command not found`` (exit
127); the next calls installed PostgreSQL and ``… && psql --version`` printed its version.
Section 4 said so, yet section 7 listed the chain as an "Unresolved failure". A failure whose
error names a program that is not there is fixed once a later call runs that program (in any
part of its chain) and does not fail: :func:`judge_got_past` marks it ``fixed``.

Blind check 40 W3: ``sleep 2 && curl -s URL | jq .`` failed only because ``jq`` is missing;
the next call, ``curl -s URL`` without the ``| jq`` stage, succeeded, yet section 7 listed an
"Unresolved failure". A later call that did not fail and runs the failed chain's steps without
the missing program's pipe stage (:func:`_without_stage`), among them the step that fed it,
worked around it. Neither a help call (``tool --help``) nor a cleanup stands in for the failed
one (:mod:`.local_standin`, blind checks 41 W3 and 42 W2).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call
from compactor.facts.commands import command_of, programs, shell_words
from compactor.facts.shellwrap import inner_command

from .local_session import ErrorFact, Session
from .local_standin import result_texts, stands_in
from .local_text import call_line, code

__all__ = ["Steps", "chain_steps", "judge_got_past", "missing_program"]

_SEGMENT_RE = lazy_pattern(r"\s*(?:&&|\|\||[;|\n])\s*")
_REDIRECT_RE = lazy_pattern(r"\d*[<>]")
_PIPE_RE = lazy_pattern(r"(?<!\|)\|(?!\|)")  # a pipe (``a | jq .``), not ``||``
_FEEDERS = frozenset("yes echo printf cd true sudo env".split())
"""Programs that feed or prepare a chain's work (``yes | pnpm install``), no step of it."""
_FILTERS = frozenset("tail head grep sort uniq wc cat less more cut tr".split())
"""Programs a chain pipes its output to (``| tail -5``), no step of it."""
_RUNNERS_RE = r"(?:\b(?:exec|npx|bunx|pnpx|dlx|uvx|run)\s+(?:-\S+\s+)*)"
"""What runs a program by name (``pnpm exec vitest``, ``npx tsc``, ``uv run pytest``)."""
_MISSING_RE = lazy_pattern(
    r"(?:^|[\s:])([\w.+-]+): (?:command )?not found\b"
    r"|command not found: ([\w.+-]+)"
    r"|['\"]?([\w.+-]+)['\"]? is not recognized as",
    re.IGNORECASE,
)


def missing_program(err: ErrorFact) -> str:
    """The program the failure's error lines say is not there (``psql``), or ""."""
    for line in err.outcome.lines:
        found = _MISSING_RE.search(line)
        if found is not None:
            name = next(g for g in found.groups() if g)
            if name.lower() not in ("bash", "sh", "zsh", "line"):
                return name
    return ""


def _ran_it(call: Call, program: str, s: Session, flying: set[str]) -> bool:
    command = command_of(call)
    if command is None or call.id in s.failed_calls or call.id in flying:
        return False
    if program in programs(command):
        return True
    return re.search(rf"{_RUNNERS_RE}{re.escape(program)}(?![\w.-])", command) is not None


Steps = tuple[tuple[str, ...], ...]


def _step(call: Call) -> Steps:
    """The words of each working segment of the call's chain without options and
    redirections: ``yes | pnpm install --offline 2>&1 | tail -5`` → ``((pnpm, install),)``."""
    return chain_steps(inner_command(call) or "")


def chain_steps(script: str) -> Steps:
    """The words of each working segment of ``script`` (split at ``&&``, ``||``, ``;``, ``|``
    and newlines) without options, redirections, feeders (``cd``, ``yes |``) and output
    filters (``| tail -5``); a segment left with no word is no step."""
    steps: list[tuple[str, ...]] = []
    for segment in _SEGMENT_RE.split(script):
        words = shell_words(segment)
        while words and ("=" in words[0] or words[0] in _FEEDERS):
            words = words[1:]
        if words and words[0] not in _FILTERS:
            kept = tuple(w for w in words if w[:1] != "-" and not _REDIRECT_RE.match(w))
            if kept:  # (``echo "--- logs ---"`` leaves only an option-like word: no step)
                steps.append(kept)
    return tuple(steps)


def _without_stage(script: str, program: str) -> tuple[Steps, tuple[str, ...]]:
    """(the steps of ``script`` without its pipe stages that run ``program``, the step that fed
    the first of them); ``((), ())`` when no pipe stage runs it (``a && b | jq .`` → the steps
    of ``a && b`` and ``b``'s)."""
    kept: list[str] = []
    fed: tuple[str, ...] = ()
    for stage in _PIPE_RE.split(script):
        words = shell_words(stage)
        if kept and words and words[0] == program:
            if not fed and (before := chain_steps(kept[-1])):
                fed = before[-1]
            continue
        kept.append(stage)
    if not fed:
        return (), ()
    return chain_steps(" | ".join(kept)), fed


def _dropped_stage(
    s: Session, err: ErrorFact, call: Call, program: str, flying: set[str]
) -> Call | None:
    """The first later call that did not fail and ran only steps of the failed chain without
    the missing ``program``'s pipe stage, the step that fed it among them (blind check 40 W3)."""
    script = inner_command(call) or ""
    if "|" not in script:
        return None
    steps, fed = _without_stage(script, program)
    if not fed:
        return None
    for c in s.calls:
        command = c.command
        if c.index <= err.index or command is None or c.id in s.failed_calls or c.id in flying:
            continue
        if fed[0] in command and fed in (mine := _step(c)) and set(mine) <= set(steps):
            return c
    return None


def _other_forms(s: Session, failed: list[Call], flying: set[str]) -> dict[Steps, list[Call]]:
    """The later calls that did not fail, by the steps of :func:`_step`, for the steps of the
    ``failed`` calls (each other call's command is split only when it names one of their
    programs: a long session's thousands of calls stay cheap)."""
    wanted = {step for step in map(_step, failed) if any(len(words) >= 2 for words in step)}
    heads = {words[0] for step in wanted for words in step if words}
    found: dict[Steps, list[Call]] = {}
    if not wanted:
        return found
    for c in s.calls:
        command = c.command
        if command is None or c.id in s.failed_calls or c.id in flying:
            continue
        if any(head in command for head in heads) and (step := _step(c)) in wanted:
            found.setdefault(step, []).append(c)
    return found


def judge_got_past(s: Session) -> None:
    """Mark ``fixed`` each open failure for a missing program that a later call ran without
    failing (the program is there now); and ``worked around by`` one whose program and step a
    later call ran with other options without failing (blind check 18)."""
    flying = {c.id for c in s.in_flight}
    failed: dict[str, list[Call]] | None = None
    opened: list[tuple[ErrorFact, Call]] = []
    for err in s.errors:
        if err.after:  # (a later attempt already judged: its verdict stands)
            continue
        program = missing_program(err)
        later = program and next(
            (c for c in s.calls if c.index > err.index and _ran_it(c, program, s, flying)), None
        )
        if later:
            err.after, err.by = "fixed", call_line(later, 160)
            err.why = f"{code(program)} is there now and ran without failing"
            continue
        if failed is None:
            failed = {}
            for c in (c for c in s.calls if c.id in s.failed_calls):
                failed.setdefault(call_line(c, 300), []).append(c)
        call = next((c for c in reversed(failed.get(err.call, ())) if c.index <= err.index), None)
        if (
            call is not None
            and program
            and (dropped := _dropped_stage(s, err, call, program, flying))
        ):
            err.after, err.by = "worked around by", call_line(dropped, 160)
            err.why = f"succeeded without the {code('| ' + program)} stage"
        elif call is not None:
            opened.append((err, call))
    if not opened:
        return
    forms = _other_forms(s, [call for _, call in opened], flying)
    texts = result_texts(s, {c.id for calls in forms.values() for c in calls})
    for err, call in opened:  # ran its program and step with other options and did not fail
        other = next(
            (c for c in forms.get(_step(call), ()) if c.index > err.index
             and c.command != call.command and stands_in(call, c, texts.get(c.id, ""))),
            None,
        )  # fmt: skip
        if other is not None:
            err.after, err.by, err.why = "worked around by", call_line(other, 160), "succeeded"
