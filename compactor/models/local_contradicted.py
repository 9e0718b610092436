"""The assistant's own claim of success that a later result contradicts (blind check 26, N2).

cc-matt §5 listed "Complete frontend successfully built and pushed to GitHub!" among the results
stated by the assistant, while the last ``pnpm build`` after it failed ("Module not found") and
§4 listed that failure as unfixed: two sections of one summary said opposite things.

By shape: a decision sentence that claims a success of one kind (built, pushed, tests pass,
deployed), with no word of failure in it, is labelled ``(contradicted later: `call` failed: …)``
when the latest call of the same kind that ran after it (a command naming a build, ``git push``,
a test runner, a deploy) failed. A later success of that kind after the failure leaves the claim
as it is (what it said holds again); calls in flight and calls the user rejected ran nothing.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, cut, one_line
from compactor.facts.testruns import is_test_run

from .local_session import Session
from .local_text import call_line, code

__all__ = ["judge_contradicted_claims"]

_KINDS: tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...] = (
    (
        "build",
        lazy_pattern(
            r"\b(?:built|compiled|builds? (?:successfully|cleanly|passe[sd]|succeed(?:s|ed)?|"
            r"(?:is |are )?(?:green|clean|ok|fine|working))|(?:build|compilation) "
            r"(?:succeeded|successful|passed|complete[sd]?|works))\b",
            re.IGNORECASE,
        ),
        lazy_pattern(
            r"\b(?:npm|pnpm|yarn|bun|npx|cargo|go|dotnet|mvn|gradle|gradlew|next|vite|docker|swift|"
            r"deno|cmake|turbo|nx)\b[^|;&\n]{0,30}?\bbuild\b|\b(?:tsc|webpack|make|xcodebuild)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "push",
        lazy_pattern(r"\bpushed\b|\bpush (?:succeeded|successful|complete[sd]?)\b", re.I),
        lazy_pattern(r"\bgit\b[^|;&\n]*\bpush\b", re.IGNORECASE),
    ),
    (
        "test",
        lazy_pattern(
            r"\b(?:tests?|specs?|suite) (?:all )?(?:now )?(?:pass(?:ed|es|ing)?|green|succeed)|"
            r"\ball (?:\d+ )?(?:tests?|specs?) (?:now )?pass",
            re.IGNORECASE,
        ),
        None,  # a test run: compactor.facts.testruns.is_test_run
    ),
    (
        "deploy",
        lazy_pattern(
            r"\bdeployed\b|\bdeploy(?:ment)? (?:succeeded|successful|complete[sd]?|is live)\b",
            re.IGNORECASE,
        ),
        lazy_pattern(
            r"\bdeploy\b|\b(?:vercel|netlify|wrangler|flyctl|heroku)\b[^|;&\n]{0,30}?"
            r"(?:--prod\b|\bpublish\b|\bup\b)",
            re.IGNORECASE,
        ),
    ),
)
_FAILURE_WORDS_RE = lazy_pattern(
    r"\b(?:not|never|no longer|fail\w*|error\w*|broke\w*|unable|cannot|can['’]t|won['’]t|"
    r"didn['’]t|isn['’]t|wasn['’]t|aren['’]t)\b|n['’]t\b",
    re.IGNORECASE,
)
_CLAIMS_MOST = 40  # the newest decision sentences looked at
_LINE = 120  # characters of the failure line


def _claimed(text: str) -> list[int]:
    """The kinds (positions in :data:`_KINDS`) of success ``text`` claims (none: [])."""
    if len(text) > 600 or _FAILURE_WORDS_RE.search(text):
        return []
    return [n for n, (_, claim, _) in enumerate(_KINDS) if claim.search(text)]


def _of_kind(call: Call, kind: int) -> bool:
    command, runs = command_of(call), _KINDS[kind][2]
    if command is None:
        return False
    return is_test_run(command) if runs is None else runs.search(command) is not None


def judge_contradicted_claims(s: Session) -> None:
    """Label the decision sentences whose success claim a later failure of its kind contradicts."""
    if not s.failed_calls or not s.decisions:
        return
    first = max(0, len(s.decisions) - _CLAIMS_MOST)
    claims = [
        (n, kinds) for n in range(first, len(s.decisions)) if (kinds := _claimed(s.decisions[n][2]))
    ]
    if not claims:
        return
    needed, since = {k for _, kinds in claims for k in kinds}, s.decisions[claims[0][0]][0]
    latest: dict[int, Call] = {}  # kind → the latest call of it that ran (one pass, from the end)
    for call in reversed(s.calls):
        if call.index <= since or len(latest) == len(needed):
            break
        if call.id in s.answered and call.id not in s.refused:
            for kind in needed - latest.keys():
                if _of_kind(call, kind):
                    latest[kind] = call
    for n, kinds in claims:
        index, score, text = s.decisions[n]
        found = [c for k in kinds if (c := latest.get(k)) is not None and c.index > index]
        failed = next((c for c in found if c.id in s.failed_calls), None)
        if failed is not None:
            s.decisions[n] = (index, score, f"{text} ({_contradiction(s, failed)})")


def _contradiction(s: Session, call: Call) -> str:
    line = call_line(call, 300)
    err = next((e for e in s.errors if e.index > call.index and e.call == line), None)
    said = err.outcome.lines[0] if err is not None and err.outcome.lines else ""
    how = f" failed: {cut(one_line(said), _LINE)}" if said else " failed"
    return f"contradicted later: {code(call_line(call, 80))}{how}"
