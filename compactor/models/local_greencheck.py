"""A check that passed among failures is kept as a fact (blind check 66 N2, issue 28).

cx-stall: ``pnpm exec tsc --noEmit`` exited 0 with no output; the failing ``nx run-many -t
typecheck`` calls of the same project were kept, the green type-check was one of the "calls
omitted": a resuming agent could conclude the code does not type-check. :func:`green_check_lines`
names, in a session with failed calls, each check (type-check, tests, build, lint: ``tsc``,
``mypy``, ``pytest``, ``cargo check/test``, ``go test``, ``npm/pnpm/yarn test/build``, ``ruff``,
``eslint`` …) whose last run passed: "`pnpm exec tsc --noEmit` passed (exit 0, no output)". A
run piped or chained (its exit code may be another program's) or whose output counts errors
is no pass.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, cut, outcome, strip_output_header
from compactor.facts.samecommand import core_command, unwrapped

from .local_session import Session, once
from .local_text import code

__all__ = ["green_check_lines"]

_CHECK_RE = lazy_pattern(
    r"^(?:(?:npx|bunx|pnpm\s+(?:exec|dlx)|yarn|uv\s+run|poetry\s+run|python3?\s+-m)\s+)?"
    r"(?P<tool>tsc|mypy|pyright|pytest|ruff\s+check|ruff|eslint|vitest|jest)\b"
    r"|^(?P<two>cargo\s+(?:check|test|clippy|build)|go\s+(?:test|vet|build))\b"
    r"|^(?P<pm>npm|pnpm|yarn|bun)\s+(?:run\s+)?(?P<script>test|build|typecheck|type-check|lint|check)\b"
)
"""A check command, on the core of a command (no shell wrapper, no ``cd DIR &&``)."""
_HINT_RE = lazy_pattern(
    r"tsc|mypy|pyright|pytest|ruff|eslint|vitest|jest|cargo|go\s|test|build|lint|check"
)
"""Words a check command holds (a cheap test before :func:`_kind`)."""
_CHAINED_RE = lazy_pattern(r"\||&&|;|\n")
_COUNTS_ERRORS_RE = lazy_pattern(
    r"\b[1-9]\d* (?:errors?|failed|failures?)\b|\berror TS\d+|\bFAILED\b|^FAIL\b|\bpanicked\b",
    re.MULTILINE,
)
"""Output that says the check found problems (whatever the exit code said)."""
_MAX = 3


def _kind(command: str) -> str:
    """The check ``command`` runs (``tsc``, ``cargo test``, ``pnpm build``), or ""."""
    core = core_command(command)
    if _CHAINED_RE.search(core) is not None:
        return ""
    m = _CHECK_RE.match(core)
    if m is None:
        return ""
    if m.group("pm"):
        return f"{m.group('pm')} {m.group('script')}"
    return " ".join((m.group("tool") or m.group("two")).split())


def green_check_lines(s: Session, width: int) -> list[str]:
    """Section 5's items for the checks whose last run passed (module docstring), [] if none."""
    passed = once(s, _passed_checks)
    if not passed:
        return []
    return [
        "Checks whose last run passed (after any failure of the same check):",
        *(
            f"  {code(cut(command, width // 2))} passed ({_said(status, tail, width)})"
            for command, status, tail in passed[-_MAX:]
        ),
    ]


def _said(status: str, tail: str, width: int) -> str:
    return f"{status}; it ended: {cut(tail, width // 2)}" if tail else f"{status}, no output"


def _passed_checks(s: Session) -> list[tuple[str, str, str]]:
    """(command, exit status, its last output line) of each check whose last run passed, in
    the order of the last runs (read once: each render lists them)."""
    if not s.failed_calls:
        return []
    last: dict[str, Call] = {}  # kind → its last run, in the order of the last runs
    for c in s.calls:
        if c.command and _HINT_RE.search(c.command) is not None and (kind := _kind(c.command)):
            last.pop(kind, None)
            last[kind] = c
    if not last:
        return []
    wanted = {c.id for c in last.values() if c.id not in s.failed_calls}
    results = {r.call_id: r for e in s.entries for r in e.results if r.call_id in wanted}
    passed: list[tuple[str, str, str]] = []
    for c in last.values():
        r = results.get(c.id)
        if r is None:  # failed, or in flight: no pass
            continue
        oc = outcome(r, c)
        text = strip_output_header(r.text[-4_000:] if len(r.text) > 8_000 else r.text).strip()
        if oc.failed or _COUNTS_ERRORS_RE.search(text[-4_000:]):
            continue
        status = f"exit {oc.exit_code}" if oc.exit_code is not None else "no error"
        tail = text.rsplit("\n", 1)[-1].strip(" =-*")  # "=== 15 passed in 2s ==="
        passed.append((" ".join(unwrapped(c.command or "").split()), status, tail))
    return passed
