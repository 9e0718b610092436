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

Unless the work was done another way (blind check 77 W1, gr_bench1: ``docker-compose exec -T api
npm run prisma:deploy`` failed on a restarting container; the assistant then wrote
``docker-entrypoint.sh`` running ``npx prisma migrate deploy`` at start, made it executable,
rebuilt, and the logs said "No pending migrations to apply"): a file written after the failure
holds a line with the failed step's core words in order (``prisma … deploy``), a later
successful call names that file (runs it, makes it executable) or another written file does
(a Dockerfile's ``ENTRYPOINT``), and a successful call came after it: nothing is owed. A deploy
(never a push: only a push does a push) whose program later ran with the same target and
succeeded at least twice is told as "check whether it was done another way", not as owed.
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
        if said and not _done_another_way(s, failed, kind):
            out.append((failed, kind, said))
    return out


_SEGMENT_RE = lazy_pattern(r"&&|\|\||[;|\n]")
_WORD_RE = lazy_pattern(r"[A-Za-z0-9]+")
_ENV_RE = lazy_pattern(r"^\w+=")
_LEADERS = frozenset({"sudo", "env", "time", "nohup", "exec"})
_SAME_TARGET_MOST = 2
"""How many later successful calls of the failed deploy's program and target make it "check
whether it was done another way" rather than owed."""


def _segment(command: str, kind: str) -> list[str]:
    """The words of the part of ``command`` that runs the work of ``kind`` (``sleep 5 &&
    docker-compose exec -T api npm run prisma:deploy`` → its ``docker-compose`` part)."""
    names = re.compile(rf"\b{kind}\b", re.IGNORECASE)
    parts = [p.split() for p in _SEGMENT_RE.split(command)]
    found = next((p for p in parts if p and names.search(" ".join(p))), None) or []
    while found and (found[0] in _LEADERS or _ENV_RE.match(found[0])):
        found = found[1:]
    return found


def _core(words: list[str], kind: str) -> list[str]:
    """The failed step's core words: those of the argument that names the kind
    (``prisma:deploy`` → prisma, deploy), with the program before them when that argument is
    one word (``git push`` → git, push)."""
    names = re.compile(rf"\b{kind}\b", re.IGNORECASE)
    token = next((w for w in words if names.search(w)), "")
    core = [w.lower() for w in _WORD_RE.findall(token)]
    if len(core) < 2 and words:
        core = [w.lower() for w in _WORD_RE.findall(words[0])][-1:] + core
    return core


def _holds(text: str, core: list[str]) -> bool:
    """Whether a line of ``text`` holds the ``core`` words in order (not a comment)."""
    pattern = re.compile(r"\b" + r"\b.*?\b".join(map(re.escape, core)) + r"\b", re.IGNORECASE)
    return any(
        pattern.search(line) is not None and not line.lstrip().startswith(("#", "//"))
        for line in text.splitlines()
    )


def _written_text(c: Call) -> str:
    args = c.args
    parts = [args.get(k) for k in ("content", "new_string", "file_text", "new_source")]
    edits = args.get("edits")
    for e in edits if isinstance(edits, list) else ():
        parts.append(e.get("new_string") if isinstance(e, dict) else None)
    return "\n".join(p for p in parts if isinstance(p, str))


def _done_another_way(s: Session, failed: Call, kind: str) -> bool:
    """A file written after ``failed`` holds its core step, a later successful call or written
    file names that file, and a successful call came after it (module description)."""
    words = _segment(command_of(failed) or "", kind)
    core = _core(words, kind)
    if len(core) < 2:
        return False
    later = [c for c in s.calls if c.index > failed.index]
    ok = [
        c
        for c in later
        if c.id in s.answered and c.id not in s.failed_calls and c.id not in s.refused
    ]
    for made in ok:
        path = made.written_file
        if not path or not _holds(_written_text(made), core):
            continue
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        named = [
            c
            for c in ok
            if c.index >= made.index
            and c is not made
            and (name in (command_of(c) or "") or name in _written_text(c))
        ]
        if named and any(c.index > named[0].index and c.command is not None for c in ok):
            return True
    return False


def _same_target(s: Session, failed: Call, kind: str) -> list[Call]:
    """The later successful calls of the failed deploy's program that name its target (the
    argument after its subcommand and flags: ``docker-compose exec -T api`` → ``api``)."""
    if kind == "push":
        return []
    words = _segment(command_of(failed) or "", kind)
    args = [w for w in words[2:] if not w.startswith("-")]
    if len(words) < 2 or not args:
        return []
    program, target = words[0], args[0]
    return [
        c
        for c in s.calls
        if c.index > failed.index
        and c.id in s.answered
        and c.id not in s.failed_calls
        and (seg := _program_words(command_of(c) or "", program))
        and target in seg[1:]
    ]


def _program_words(command: str, program: str) -> list[str]:
    for part in _SEGMENT_RE.split(command):
        words = part.split()
        while words and (words[0] in _LEADERS or _ENV_RE.match(words[0])):
            words = words[1:]
        if words and words[0] == program:
            return words
    return []


def _why(s: Session, call: Call, width: int) -> str:
    line = call_line(call, 300)
    err = next((e for e in s.errors if e.index > call.index and e.call == line), None)
    said = " | ".join(err.outcome.lines[:2]) if err is not None else ""
    return f" ({cut(one_line(said), width)})" if said else ""


def owed_items(s: Session, width: int) -> list[str]:
    """Section 7's line for each push or deploy still owed (the module)."""
    items = []
    for c, kind, said in _owed(s):
        shown = code(cut(command_of(c) or call_line(c, width), width))
        same = _same_target(s, c, kind)
        if len(same) >= _SAME_TARGET_MOST:
            items.append(
                f"Check whether the {kind} {shown} was done another way: it failed"
                f"{_why(s, c, width)} and was not run again, but {len(same)} later calls of "
                f"{code(cut(command_of(same[-1]) or '', 80))} and the like succeeded; {said}"
            )
            continue
        items.append(
            f"Still owed: the {kind} {shown} failed{_why(s, c, width)} and was not run again; "
            f"{said}, which that result contradicts: it is not done"
        )
    return items


def owed_step(s: Session, width: int) -> str:
    """Section 9's sentence for the pushes and deploys still owed ('' when none)."""
    owed = [(c, k, w) for c, k, w in _owed(s) if len(_same_target(s, c, k)) < _SAME_TARGET_MOST]
    if not owed:
        return ""
    calls = ", ".join(code(cut(command_of(c) or call_line(c, width), width)) for c, _, _ in owed)
    return (
        f" Still owed: {calls} failed and never ran again, though it was said to be done: run it "
        f"again once the work before it is committed, and tell the user it had not been done."
    )
