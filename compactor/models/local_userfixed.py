"""A failure the user says he fixed outside the session (blind check 36 W8).

cx-speckit: ``npm install sonner next-themes`` failed twice (a broken npm cache) and ``npx shadcn
add sonner`` failed too; the user then wrote "ok i already install sooner. continue", the agent
went on and used the package. Section 4 still listed both among "the unfixed ones" ("Not
fixed: a later … failed too"): only the agent's own later calls counted as a fix.

:func:`judge_user_fixed` reads, for each failure not yet settled (no later attempt, or one that
failed too), the first message the user typed after it. It settles the failure as ``user
fixed`` (section 4: "the user says they fixed it: «words»") when that message says the work is
done outside the calls (a small English list, by shape: "already installed", "I fixed it",
"installed it manually", "done, continue") and either names one of the failed command's target
words (a package or file name: ``sonner``, ``next-themes``) or comes right after the failure
(no call succeeded between them). A later failure of the same command after that message
keeps it open: the user's fix did not hold.

Blind check 58 W3: seven failed PowerShell calls (``node --version; …``, ``Write-Output "test"``,
…), the assistant's Node.js install steps, then the user's "installed"; each of the seven was
said "fixed by the user", though the message answered the install steps only and the next
``node --version`` still failed. A message that names none of the failure's target words counts
only for a failure the assistant's text just before it named (its targets or programs:
what the user was asked to do), and never when a later failed call works on the same thing
(the same targets or programs: :func:`_about`).
"""

from __future__ import annotations

import bisect

from compactor._util import lazy_pattern
from compactor.facts import Entry, is_reading_call, programs, shell_words
from compactor.facts.samecommand import core_command

from .local_records import ErrorFact
from .local_retries import retries
from .local_session import Session
from .local_typed import typed_words

__all__ = ["judge_user_fixed", "targets"]

_DONE_RE = lazy_pattern(
    r"\balready\s+(?:\w+\s+)?(?:install|instal|fix|solv|resolv|set\s*up|did|done|ran|add)"
    r"|\b(?:i|i've|i\s+have|we)\s+(?:just\s+|now\s+|manually\s+)?"
    r"(?:installed|fixed|solved|resolved|added|set\s+up)\b"
    r"|\b(?:installed|fixed|solved|resolved|set\s+up)\s+(?:it\s+|that\s+|this\s+|them\s+)?"
    r"(?:manually|myself|by\s+hand|on\s+my\s+(?:side|end|machine))"
    r"|\A\W*(?:ok(?:ay)?\W+)?(?:done|fixed|installed)\b"
)
"""The user's words that say the work is done outside the calls (casefolded): "already
installed", "I fixed …", "installed it manually", a message that starts "done"/"fixed"."""
_NOT_RE = lazy_pattern(r"\b(?:not|never|still|fails?|failed|failing|error)\b|n't\b")
"""Words that say it is not done ("I haven't installed it", "still failing")."""
_NAME_RE = lazy_pattern(r"^[\w:.-]+: ")  # a call line's ``shell_command: `` before its command
_NOTE_RE = lazy_pattern(r"\s+\((?:escalated|failed|in background)[^()]*\)$")
_VERBS = frozenset(
    "install add i run exec ci update upgrade remove uninstall init build test start dev get "
    "sudo latest dlx create new".split()
)
"""A command's words that name what it does, not what it does it to."""
_SHELL = frozenset("cd echo set export true false sleep test exit source eval".split())
"""Programs that say nothing of what a command works on."""
_WORD_RE = lazy_pattern(r"[a-z0-9][a-z0-9._-]+")
_LEAST = 3
_FUZZY_LEAST = 5
_TYPED_MOST = 600
_SAID_MOST = 4_000


def targets(line: str) -> set[str]:
    """The words a failed call's line names it works on: the package or file names of its
    command (``npm install sonner next-themes --legacy-peer-deps`` → sonner, next-themes)."""
    command = _NOTE_RE.sub("", _NAME_RE.sub("", line.strip(), count=1))
    words = shell_words(core_command(command))
    out: set[str] = set()
    for word in words[1:]:
        if word.startswith("-") or word in ("&&", "||", "|", ";"):
            continue
        name = word.lower().rsplit("/", 1)[-1]
        name = name[: name.index("@", 1)] if "@" in name[1:] else name.lstrip("@")
        if len(name) >= _LEAST and name not in _VERBS and any(c.isalpha() for c in name):
            out.add(name)
    return out


def _near(a: str, b: str) -> bool:
    """Whether two words of five letters or more differ by one letter (a typo: sooner/sonner)."""
    if a == b:
        return True
    if min(len(a), len(b)) < _FUZZY_LEAST or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _names(words: set[str], text: str) -> bool:
    said = set(_WORD_RE.findall(text))
    return any(_near(w, x) for w in words for x in said)


def judge_user_fixed(s: Session) -> None:
    """Settle as ``user fixed`` each open failure the user's next message says he fixed."""
    users: list[Entry] | None = None  # the user's own messages, made once (not per failure)
    starts: list[int] = []
    for err in s.errors:
        if err.after not in ("", "failed again"):
            continue
        if users is None:
            users = [e for e in s.entries if e.role == "user" and not e.injected
                     and not e.internal and e.text.strip()]  # fmt: skip
            starts = [e.index for e in users]
        at = bisect.bisect_right(starts, err.index)
        if at >= len(users):
            continue
        user = users[at]
        typed = " ".join(typed_words(user.text)[:_TYPED_MOST].casefold().split())
        if not typed or _DONE_RE.search(typed) is None or _NOT_RE.search(typed):
            continue
        about = _about(err.call)
        if not _names(targets(err.call), typed) and not (
            _right_after(s, err, user.index) and _asked_about(s, err, user.index, about)
        ):  # (58 W3: "installed" answered the install steps, not each failure before it)
            continue
        if any(
            e.index > user.index and (retries(err.signature, e.signature) or about & _about(e.call))
            for e in s.errors
        ):  # failed again after the user's fix
            continue
        err.after, err.by, err.why = "user fixed", typed_words(user.text).strip(), ""


def _about(line: str) -> set[str]:
    """What a failed call's line works on: its targets and its programs (``node --version;
    npm --version`` → node, npm), not a shell's built-ins."""
    command = _NOTE_RE.sub("", _NAME_RE.sub("", line.strip(), count=1))
    named = {p.lower() for p in programs(core_command(command))}
    return targets(line) | {p for p in named if len(p) >= _LEAST and p not in _SHELL}


def _asked(s: Session, start: int, at: int, about: set[str]) -> bool:
    """Whether the assistant's last text between the failure and the user's message at ``at``
    names what the failure works on (the user was asked to do that)."""
    said = next(
        (e.text for e in reversed(s.entries)
         if start < e.index < at and e.role == "assistant" and e.text.strip()),
        "",
    )  # fmt: skip
    return bool(about) and _names(about, said[-_SAID_MOST:].casefold())


def _asked_about(s: Session, err: ErrorFact, at: int, about: set[str]) -> bool:
    """:func:`_asked` of ``err``, or of a failure since the user's last message with the same
    first error line (one cause: ``npm install x`` and ``npx shadcn add x`` both failed on the
    npm cache)."""
    if _asked(s, err.index, at, about):
        return True
    first = err.outcome.lines[:1]
    since = max((e.index for e in s.entries if e.role == "user" and e.index < err.index
                 and not e.injected and e.text.strip()), default=-1)  # fmt: skip
    return bool(first) and any(
        e is not err and since < e.index < at and e.outcome.lines[:1] == first
        and _asked(s, e.index, at, _about(e.call))
        for e in s.errors
    )  # fmt: skip


def _right_after(s: Session, err: ErrorFact, at: int) -> bool:
    """Whether no call that did more than read succeeded between the failure and ``at``."""
    return not any(
        err.index < c.index < at and c.id not in s.failed_calls and not is_reading_call(c)
        for c in s.calls
    )
