"""A push or deploy that failed and was never run again, claimed done afterwards (blind check 72
N1).

hk_home: ``git push origin main`` failed ("could not read Username for 'https://github.com'"),
§4 said "Not retried afterwards", yet the assistant then told the user "네, GitHub에 푸시
완료했습니다!" (pushed) and its task list marked "GitHub 푸시 및 Vercel 재배포" completed; §7
and §9 named only the commit in flight, so a resuming agent would go on telling the user the
fix was deployed.

By shape: the latest call of a kind (``git push``; a deploy command) that ran failed, no call of
that kind came after it, and after it the assistant said that kind of work was done (a sentence
that claims it, with no word of failure) or the plan marks done an item that names it. Then §7
lists the push as still owed, its claim contradicted by the result, and §9 says to push again.
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Call, command_of, cut, one_line, sentences

from .local_contradicted import claims_kind, is_kind
from .local_session import Session, once
from .local_text import call_line, code, quote

__all__ = ["owed_items", "owed_step"]

_WORK = (
    ("push", lazy_pattern(r"(?<![\w-])push(?:ed|ing)?(?![\w-])|푸시|푸쉬|プッシュ|推送", re.I)),
    (
        "deploy",
        lazy_pattern(r"(?<![\w-])(?:re)?deploy(?:ed|ing|ment)?(?![\w-])|배포|デプロイ|部署", re.I),
    ),
)
"""The word that names each kind in a task-list item as its action (any language the sessions
used; never a part of a name: "Clone the repository (production-deploy branch)")."""


def _owed(s: Session) -> list[tuple[Call, str, str]]:
    """(the failed call, its kind, the claim that it was done) for each kind still owed; found
    once (each render of sections 7 and 9 asks)."""
    return once(s, _find_owed)


def _find_owed(s: Session) -> list[tuple[Call, str, str]]:
    out: list[tuple[Call, str, str]] = []
    shell = [c for c in s.calls if c.command is not None]  # (is_kind: no command, no kind)
    for kind, names in _WORK:
        failed = next((c for c in reversed(shell) if is_kind(c, kind)), None)  # the latest
        if failed is None or failed.id not in s.failed_calls or failed.id in s.refused:
            continue
        if failed.id not in s.answered:
            continue
        said = next(
            (
                f"the assistant said {quote(line, 160)}"
                for e in reversed(s.entries)
                if e.index > failed.index and e.role == "assistant" and e.text
                for line in sentences(e.text)
                if claims_kind(line, kind)
            ),
            "",
        )
        marked = next(
            (
                f"the task list marks {quote(f'[{t.status}] {t.subject}', 160)}"
                for t in s.tasks.values()
                if t.done and names.search(t.subject) is not None
            ),
            "",
        )
        said = " and ".join(filter(None, (said, marked)))
        if said:
            out.append((failed, kind, said))
    return out


def _why(s: Session, call: Call, width: int) -> str:
    line = call_line(call, 300)
    err = next((e for e in s.errors if e.index > call.index and e.call == line), None)
    said = " | ".join(err.outcome.lines[:2]) if err is not None else ""
    return f" ({cut(one_line(said), width)})" if said else ""


def owed_items(s: Session, width: int) -> list[str]:
    """Section 7's line for each push or deploy still owed (the module)."""
    return [
        f"Still owed: the {kind} {code(cut(command_of(c) or call_line(c, width), width))} failed"
        f"{_why(s, c, width)} and was not run again; {said}, which that result contradicts: "
        f"it is not done"
        for c, kind, said in _owed(s)
    ]


def owed_step(s: Session, width: int) -> str:
    """Section 9's sentence for the pushes and deploys still owed ('' when none)."""
    owed = _owed(s)
    if not owed:
        return ""
    calls = ", ".join(code(cut(command_of(c) or call_line(c, width), width)) for c, _, _ in owed)
    return (
        f" Still owed: {calls} failed and never ran again, though it was said to be done: run it "
        f"again once the work before it is committed, and tell the user it had not been done."
    )
