"""An answer that hands the request's remaining steps to the user (blind check 51, W1).

The request asked for actions ("update the notes, then commit, push and publish"); the agent did
some (a commit) and its last reply handed the rest over: "please run the following" (or "以下を
実行してください", "run these commands", "you can now push and tag") with a command block
addressed to the user (``jj git push -b main``, ``git tag v0.4.6``…). That is an answer, not a
completion: a resuming agent must not read "nothing is pending", but check whether the user ran
those steps (the remote, the tag, the release) before building on them.

Kept tight, because answers often SHOW commands ("to check it yourself you can run ``cargo search
tij``", "for reference, the commands were …"):

* the reply must hand something over in so many words (:data:`_HANDS_RE`);
* when the request names actions (commit, push, tag, publish, release, deploy, merge, install…),
  an action no successful call since the request did must remain, and what the reply hands over
  must name it (its commands, else its hand-over sentence): where every asked action was done, a
  command shown is an example;
* when the request names none, only a strong hand-over ("please run the following", "run these
  commands") with a command no call since the request ran counts.

:func:`left_steps` finds them; section 7 (:func:`left_item`), 8 (:func:`left_state`) and 9
(:func:`left_step`) say them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from compactor._util import lazy_pattern
from compactor.facts import Entry, clean, command_of

from .local_permstep import permission_step
from .local_session import Session
from .local_text import code, quote

__all__ = ["LEFT", "left_item", "left_state", "left_step", "left_steps"]

LEFT = "answered with steps left to the user"
"""How sections 7-9 say the answer handed steps over."""

_NO_STEP = (
    r"(?:be|see|have|get|notice|find|expect|receive|now|note|let|feel|advise|keep|tell|share|"
    r"send|provide|confirm|reply|respond|clarify|specify|choose|pick|decide|answer|look)\b"
)
"""Verbs after "please" / "you should" that say what the user will see, or ask for the user's
input (a question the turn waits on, read elsewhere): no step handed over."""
_STRONG_RE = lazy_pattern(
    r"\bplease (?:run|execute)\b|\brun (?:the following|these|this|the commands? below)\b|"
    r"\bexecute (?:the following|these)\b|"
    r"\byou(?:['’]ll| will)? (?:need to|have to|must|should) (?:now |then |also |first |still )?"
    rf"(?!{_NO_STEP})[a-z]{{3,}}\b|(?:^|[.!]\s+)please (?!{_NO_STEP})[a-z]{{3,}}\b|"
    r"\b(?:next|remaining) steps? (?:for you|on your (?:side|end))\b|"
    r"(?:以下|下記|次)(?:の(?:コマンド|手順))?を実行してください|実行してください|実行をお願いします|"
    r"请(?:运行|执行)",
    re.IGNORECASE,
)
"""A reply handing steps to the user in so many words: an imperative addressed to the user ("you
need to …", "you should …", "please …" at a sentence's start: any verb but :data:`_NO_STEP`),
"run the following" (fix57a 3: the verb list was the only shape)."""
_WEAK_RE = lazy_pattern(
    r"\byou can (?:now |then |also )?(?!see\b|find\b|check out\b|read\b)[a-z]{3,}\b|"
    r"\b(?:once|when) you(?:['’]ve| have)? (?:run|pushed|tagged|published|released|merged)\b",
    re.IGNORECASE,
)
"""A hand-over that may be an example ("you can run … to check"): only with an asked action
no call did (any verb: the asked actions are the hint, fix57a 3)."""
_HANDS_RE = lazy_pattern(_STRONG_RE.pattern + "|" + _WEAK_RE.pattern, re.IGNORECASE)
_ACTIONS = (
    "commit", "push", "tag", "publish", "release", "deploy", "merge", "upload", "install",
    "migrate", "rebase",
)  # fmt: skip
_ACTION_RE = lazy_pattern(r"\b(" + "|".join(_ACTIONS) + r")(?:e?s|e?d|ing)?\b", re.IGNORECASE)
_KANA = {"コミット": "commit", "プッシュ": "push", "タグ": "tag", "公開": "publish",
         "リリース": "release", "デプロイ": "deploy", "マージ": "merge"}  # fmt: skip
_FENCED_RE = lazy_pattern(
    r"^[ \t]{0,3}(?:```|~~~)[\w+-]*[ \t]*\n(.*?)^[ \t]{0,3}(?:```|~~~)", re.MULTILINE | re.DOTALL
)
_INLINE_RE = lazy_pattern(r"`([^`\n]{3,120})`")
_COMMAND_RE = lazy_pattern(r"^(?:\$\s+)?(?:sudo\s+)?[a-z][\w.\-]*(?:\s+\S+)+\s*$")
"""A line that looks like a shell command: a program word, then arguments."""
_MAX = 6


def _actions(text: str) -> list[str]:
    found = [m.group(1).lower() for m in _ACTION_RE.finditer(text)]
    found += [word for kana, word in _KANA.items() if kana in text]
    return list(dict.fromkeys(found))


def _commands(reply: str, at: int) -> list[str]:
    """The commands the reply hands over: its fenced lines and inline code from the hand-over
    (``at``) on, each a line that looks like a command."""
    tail = reply[at:]
    lines = [ln for m in _FENCED_RE.finditer(tail) for ln in m.group(1).splitlines()]
    if not lines:
        lines = [m.group(1) for m in _INLINE_RE.finditer(tail)]
    found = [ln.strip().removeprefix("$ ") for ln in lines if _COMMAND_RE.match(ln.strip())]
    return list(dict.fromkeys(c for c in found if not c.startswith("#")))


def _key(command: str) -> str:
    """A command's program and subcommand (``git push``, ``jj bookmark``)."""
    words = [w for w in command.split() if w != "sudo"]
    if len(words) > 1 and not words[1].startswith("-"):
        return " ".join(words[:2])
    return words[0] if words else ""


def _ran(s: Session, start: int, end: int) -> list[str]:
    """The commands of the calls between entries ``start`` and ``end`` that did not fail."""
    return [
        " ".join(command.split())
        for e in s.entries
        if start <= e.index < end
        for call in e.calls
        if call.id not in s.failed_calls and (command := command_of(call))
    ]


def left_steps(s: Session) -> tuple[str, list[str]]:
    """(the reply's hand-over sentence, the steps it left to the user: commands, else asked
    actions) when the last reply handed the request's remaining steps to the user; ("", [])
    otherwise (the module docstring)."""
    last = s.last_request
    if not s.turn_ended or last is None:
        return "", []
    reply = next((e for e in reversed(s.entries) if e.role == "assistant" and e.text.strip()), None)
    if reply is None or reply.index < last.index or reply.calls:
        return "", []
    text = clean(reply.text)
    found = _handed_over(s, last, reply, text)
    return found if found[1] else permission_step(text)  # "add it in the settings" (fix63a)


def _handed_over(s: Session, last: Entry, reply: Entry, text: str) -> tuple[str, list[str]]:
    hands = _HANDS_RE.search(text)
    if hands is None:
        return next_steps_list(text, lambda: _ran(s, last.index, reply.index))
    ran = _ran(s, last.index, reply.index)
    asked = _actions(last.text)
    commands = _commands(text, hands.start())
    start = text.rfind("\n", 0, hands.start()) + 1
    end = text.find("\n", hands.end())
    said = text[start : end if end >= 0 else len(text)].strip()
    if asked:
        undone = [a for a in asked if not any(re.search(rf"\b{a}", c) for c in ran)]
        handed = (" ".join(commands) if commands else said).lower()  # what it hands over
        if not any(a in handed for a in undone):
            return "", []  # every asked action was done: a command shown is an example
        steps = [c for c in commands if not any(c in r for r in ran)]
        steps = steps if commands else [a for a in undone if a in handed]
    elif (strong := _STRONG_RE.search(text)) is not None:
        steps = [c for c in commands if not any(_key(c) in r for r in ran)]
        steps = steps or ([] if commands else _phrase(text, strong))  # "restart the server"
    else:
        return "", []
    return (said, steps[:_MAX]) if steps else ("", [])


_CLAUSE_END_RE = lazy_pattern(
    r"[.;!?\n]|,\s+(?:and|so|then|but)\b|\s+(?:and|so) (?:I|I['’]ll|we)\b"
)
_PHRASE = 100


def _phrase(text: str, hands: re.Match[str]) -> list[str]:
    """The step an addressed imperative without a command hands over: its verb phrase ("restart
    the server"), from the verb to the clause's end; [] for a hand-over phrase without a verb of
    its own ("run the following")."""
    verb = re.search(r"[a-z]{3,}$", hands.group(0))
    if verb is None or verb.group(0) in ("run", "execute", "the", "following", "these", "this"):
        return []
    rest = text[hands.start() + verb.start() :]
    end = _CLAUSE_END_RE.search(rest)
    step = rest[: end.start() if end else len(rest)].strip()
    return [step[:_PHRASE]] if len(step.split()) >= 2 else []


_NEXT_STEPS_RE = lazy_pattern(
    r"^[ \t]*(?:#{1,4}[ \t]*|\*\*)?(?:next steps?|remaining steps?|steps? for you|"
    r"what(?:['’]s| is) left(?: for you)?|to do on your (?:side|end)|action items?)"
    r"(?: for you| on your (?:side|end))?[ \t]*:?(?:\*\*)?:?[ \t]*\n((?:[ \t]*\n)?"
    r"(?:[ \t]*(?:\d+[.)]|[-*])[ \t]+[^\n]+\n?)+)",
    re.IGNORECASE | re.MULTILINE,
)
"""A "Next steps" heading and the numbered or bulleted list right under it."""
_ITEM_RE = lazy_pattern(r"^[ \t]*(?:\d+[.)]|[-*])[ \t]+(.+)$", re.MULTILINE)
_OWN_RE = lazy_pattern(r"^(?:I|I['’]ll|I will|I can|We|We['’]ll|Let me)\b")
"""An item that is the agent's own next step, not the user's."""


def next_steps_list(text: str, calls_ran: Callable[[], list[str]]) -> tuple[str, list[str]]:
    """(its heading, its items) of a "Next steps" list in the final answer whose items are the
    user's (not "I'll …"), each that no successful call since the request (``calls_ran``)
    ran; ("", []) when there is none (fix57a 3)."""
    found = _NEXT_STEPS_RE.search(text)
    if found is None:
        return "", []
    items = [m.group(1).replace("**", "").strip() for m in _ITEM_RE.finditer(found.group(1))]
    items = [x for x in items if x and not _OWN_RE.match(x)]
    ran = calls_ran() if items else []  # (the calls since the request: read only when needed)
    left = []
    for item in items:
        commands = [m.group(1) for m in _INLINE_RE.finditer(item)]
        if commands and all(any(_key(c) in r for r in ran) for c in commands):
            continue  # its command ran
        left.append(item[:_PHRASE])
    heading = text[found.start() : text.find("\n", found.start())].strip(" \t#*:")
    return heading, left


def _named(steps: list[str]) -> str:
    return ", ".join(code(x) if " " in x else x for x in steps)


def left_item(s: Session, width: int) -> str:
    """Section 7's line for an answer that left steps to the user; '' when none."""
    said, steps = left_steps(s)
    if not steps:
        return ""
    return (
        f"The last request was {LEFT}: the last reply handed them over ({quote(said, width)}): "
        f"{_named(steps)}. No call in this session ran them: check whether the user did before "
        "building on them"
    )


def left_state(s: Session) -> str:
    """Section 8's "was …" for such an answer; '' when none."""
    return f"was {LEFT} (section 7)" if left_steps(s)[1] else ""


def left_step(s: Session, width: int) -> str:
    """Section 9 for such an answer; '' when none."""
    steps = left_steps(s)[1]
    if not steps:
        return ""
    return (
        f"   None for now: the last request was {LEFT} ({_named(steps[:4])}; section 7): wait "
        "for the user's next message, and check whether those steps ran before building on "
        "them."
    )
