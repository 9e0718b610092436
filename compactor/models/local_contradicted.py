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

from .local_pushtarget import output_of, push_target, same_target
from .local_session import ErrorFact, Session
from .local_text import call_line, code

__all__ = ["claims_kind", "is_kind", "judge_contradicted_claims"]

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
_SUBJECT_RE = lazy_pattern(
    r"\b(\w{2,})['’]s (?:own |\w+ )?(?:tests?|specs?|suite|build|e2e)\b"  # Stefan's tests
    r"|\b(?:Test[A-Z_]\w*|test_\w+|\w+_test|\w+\.(?:test|spec)\.\w+)\b"  # a test, its file
    r"|(?<![\w/.:-])[\w-]+(?:/[\w.-]+)+|\b[\w-]+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|"
    r"swift|cs|php|c|cc|cpp|h|vue|svelte|json|ya?ml|toml|sh)\b"  # a path or a file
    r"|\b[a-z]+_[a-z]\w*\b"  # a snake_case identifier
    r"|\b(?=[0-9a-f]{0,39}[a-f])(?=[0-9a-f]{0,39}\d)[0-9a-f]{7,40}\b"  # a commit (51 W7)
)
"""What a success claim names (module docstring, BENCH45 W3): someone's tests (group 1: the
name), a test or test file, a path or file, a snake_case identifier, a commit ("Pushed 0f8d765":
a later push of other commits that failed says nothing of it, blind check 51 W7)."""
_CLAIMS_MOST = 40  # the newest decision sentences looked at
_LINE = 120  # characters of the failure line


def _claimed(text: str) -> list[int]:
    """The kinds (positions in :data:`_KINDS`) of success ``text`` claims (none: [])."""
    if len(text) > 600 or _FAILURE_WORDS_RE.search(text):
        return []
    return [n for n, (_, claim, _) in enumerate(_KINDS) if claim.search(text)]


_DONE_ELSEWHERE = {
    "push": lazy_pattern(
        r"(?:푸시|푸쉬)\s*(?:완료|했|됐|되었)|プッシュ(?:しました|完了|済み)|已推送|推送(?:成功|完成)"
    ),
    "deploy": lazy_pattern(
        r"배포\s*(?:완료|했|됐|되었)|デプロイ(?:しました|完了|済み)|已部署|部署(?:成功|完成)"
    ),
}
"""A claim that a push or deploy was done, in the other languages the sessions used (blind
check 72 N1: "네, GitHub에 푸시 완료했습니다!")."""
_NAMES = {name: n for n, (name, _, _) in enumerate(_KINDS)}


def is_kind(call: Call, name: str) -> bool:
    """Whether ``call`` is a run of the kind ``name`` ("build", "push", "test", "deploy")."""
    return _of_kind(call, _NAMES[name])


def claims_kind(sentence: str, name: str) -> bool:
    """Whether ``sentence`` says work of the kind ``name`` was done, with no word of failure."""
    if len(sentence) > 600 or _FAILURE_WORDS_RE.search(sentence):
        return False
    done = _DONE_ELSEWHERE.get(name)
    hit = done is not None and done.search(sentence) is not None
    return hit or _KINDS[_NAMES[name]][1].search(sentence) is not None


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
    pushes: list[Call] | None = None
    for n, kinds in claims:
        index, score, text = s.decisions[n]
        found = [c for k in kinds if (c := latest.get(k)) is not None and c.index > index]
        failed = next((c for c in found if c.id in s.failed_calls and k_of(c) != _PUSH), None)
        if failed is None and _PUSH in kinds:  # the session's pushes, listed once
            pushes = pushes if pushes is not None else _pushes(s)
            failed = _failed_push(s, index, pushes)
        if failed is None:
            continue  # a push of another branch says nothing of this one (blind check 51, W7)
        if _same_subject(text, _failure_text(s, failed)):
            s.decisions[n] = (index, score, f"{text} ({_contradiction(s, failed)})")


_PUSH = 1  # the position of "push" in _KINDS


def k_of(call: Call) -> int:
    """:data:`_PUSH` for a ``git push``, else -1 (the other kinds keep the latest call)."""
    return _PUSH if _of_kind(call, _PUSH) else -1


def _pushes(s: Session) -> list[Call]:
    """The ``git push`` calls that ran (answered, not refused), in order."""
    return [
        c for c in s.calls if c.id in s.answered and c.id not in s.refused and _of_kind(c, _PUSH)
    ]


def _failed_push(s: Session, index: int, pushes: list[Call]) -> Call | None:
    """The push after the claim at entry ``index`` that failed last of those to the claim's
    target (the remote and branch the latest push before the claim that succeeded went to:
    :mod:`.local_pushtarget`), when no push to that target succeeded after it; any push that
    failed last when no push before the claim succeeded (fix57a 2)."""
    mine = next(
        (c for c in reversed(pushes) if c.index < index and c.id not in s.failed_calls), None
    )
    later = [c for c in pushes if c.index > index]
    if mine is not None:
        target = push_target(s, mine, output_of(s, mine))
        later = [c for c in later if same_target(target, push_target(s, c, output_of(s, c)))]
    return later[-1] if later and later[-1].id in s.failed_calls else None


def _same_subject(claim: str, failure: str) -> bool:
    """Whether a failure (its command and error lines) is about what ``claim`` names: a claim
    that names a subject (a test, a file, an identifier, someone's tests) is contradicted only by
    a failure that names it too; a claim that names none (``all tests pass``) by any failure of
    its kind (BENCH45 W3)."""
    named = {m.group(1) or m.group(0) for m in _SUBJECT_RE.finditer(claim)}
    low = failure.lower()
    return not named or any(n.lower() in low or _base(n) in low for n in named)


def _base(name: str) -> str:
    return name.rstrip("/").rsplit("/", 1)[-1].lower()


def _failure_text(s: Session, call: Call) -> str:
    line = call_line(call, 300)
    err = _error_of(s, call, line)
    said = " ".join(err.outcome.lines) if err is not None else ""
    return f"{command_of(call) or line} {said}"


def _error_of(s: Session, call: Call, line: str) -> ErrorFact | None:
    return next((e for e in s.errors if e.index > call.index and e.call == line), None)


def _contradiction(s: Session, call: Call) -> str:
    line = call_line(call, 300)
    err = _error_of(s, call, line)
    said = err.outcome.lines[0] if err is not None and err.outcome.lines else ""
    how = f" failed: {cut(one_line(said), _LINE)}" if said else " failed"
    return f"contradicted later: {code(call_line(call, 80))}{how}"
