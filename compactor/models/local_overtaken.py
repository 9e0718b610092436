"""Proposals and acceptances the later dialogue overtook (blind check 39, W2 and W5).

* W2 (cc-lowlight): the assistant wrote "Let me fix the model with numerically stable attention
  and lower learning rate, then restart:" and called ``kill PID``; the user rejected only that
  call, and after a later request the assistant made exactly that fix with successful edits. A
  proposal whose distinctive words later successful changes carry (the text leading in to them,
  what they wrote, the files they changed) was carried out: it is no proposal the user turned
  down (:func:`carried_out`); the rejected call itself stays listed as rejected. And when the
  rejected calls only stopped processes, the rejection was of the stop, not of the plan, unless
  the user's next message says no to it (:func:`stops_only`).
* W5 (cx-aiden): "Accepted by the user: … I'll run the updates" although the user's next message
  cancelled it ("nevermind, move to use case 12 branch") before anything of it was done. Such
  an acceptance is labelled "Accepted, then cancelled by the user" (:func:`judge_cancelled`);
  one carried out before the redirect, or followed by no cancelling message, stays accepted.
* Blind check 76 W1 (sk_react): "Saved the full architecture plan to PLAN.md in the project
  root." then a plan-approval call the user rejected: the text reported what the ``Write`` before
  it had done (successfully, as the user asked), it proposed nothing; the summary listed it as
  "Proposed, then the user rejected its call". Text that reports a change in the past tense,
  names a file a successful call of the same turn wrote before it, and announces nothing next,
  is a report, no proposal (:func:`reports_done`).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from compactor._util import lazy_pattern
from compactor.facts import Call, one_line

from .local_noise import is_file_edit
from .local_session import Session

__all__ = [
    "ACCEPTED",
    "carried_out",
    "judge_cancelled",
    "reports_done",
    "route_declined",
    "stops_only",
]

ACCEPTED = "Accepted by the user: "
_CANCELLED = "Accepted, then cancelled by the user"
_WORD_RE = lazy_pattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_GENERIC = frozenset(
    "about after again before being could every first going other their there these those which "
    "while would should might still using where think maybe right change changes update updated "
    "fixed fixing should since until whole issue error errors problem script command running "
    "works working check checks let's model models value values should really simply first "
    "second third later added adding start started restart files would".split()
)
_SHARED = 3  # distinctive words a proposal and the later changes share to call it carried out
_ARGS = 4_000  # characters of a change's arguments read


def _stem(word: str) -> str:
    for suffix in ("ally", "ly", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> set[str]:
    """The distinctive words of ``text``: identifiers split (``MultiheadAttention`` →
    multihead, attention), lower-cased, of 5 letters or more, not generic, lightly stemmed."""
    found = (w.lower() for w in _WORD_RE.findall(text))
    return {_stem(w) for w in found if len(w) >= 5 and w not in _GENERIC}


def _changes_after(s: Session, index: int) -> list[Call]:
    """The successful file changes (``Edit``, ``Write``, ``apply_patch`` …) made after entry
    ``index``."""
    return [
        c
        for c in s.calls
        if c.index > index and is_file_edit(c) and c.id in s.answered and c.id not in s.failed_calls
    ]


def carried_out(s: Session, index: int, text: str) -> bool:
    """Whether later successful changes carried out the proposal ``text`` of entry ``index``:
    they (the assistant text leading in to them, what they wrote, the files they changed) share
    at least ``_SHARED`` of its distinctive words."""
    changes = _changes_after(s, index)
    if not changes:
        return False
    wanted = _words(text)
    if len(wanted) < _SHARED:
        return False
    said: set[str] = set()
    for at in sorted({c.index for c in changes}):
        said |= _words(s.entries[at].text)
    for c in changes:
        said |= _words(c.arguments[:_ARGS])
    return len(wanted & said) >= _SHARED


_DONE_RE = lazy_pattern(
    r"\b(?:saved|wrote|written|created|updated|added|edited|modified|changed|fixed|renamed|moved)\b",
    re.IGNORECASE,
)
_NEXT_RE = lazy_pattern(
    r"\b(?:let me|let's|I['’]ll|I will|I['’]m going to|going to|next|now I|here['’]s|here is|"
    r"should I|shall I|want me to)\b|[:?]\s*\Z",
    re.IGNORECASE,
)


def reports_done(s: Session, index: int, text: str) -> bool:
    """Whether the assistant text ``text`` of entry ``index`` only reports a change done: a
    past-tense change verb, the name of a file a successful call wrote since the user's last
    message (before ``index``), and nothing announced next (blind check 76 W1)."""
    if not _DONE_RE.search(text) or _NEXT_RE.search(text):
        return False
    for c in reversed(s.calls):
        if c.index >= index:
            continue
        if any(
            e.role == "user" and e.text.strip() and not e.results
            for e in s.entries[c.index : index]
        ):
            break  # (a user message since: another turn)
        path = c.written_file
        if path and c.id in s.answered and c.id not in s.failed_calls and c.id not in s.refused:
            if path.rstrip("/").rsplit("/", 1)[-1] in text:
                return True
    return False


_STOP_TOOLS = frozenset({"taskstop", "killshell", "killbash", "kill_shell", "stop_task"})
_STOP_RE = lazy_pattern(r"^\s*(?:sudo\s+)?(?:kill|pkill|killall|taskkill|stop-process)\b", re.I)
_PARTS_RE = lazy_pattern(r"&&|\|\||;|\n")
_SAYS_NO_RE = lazy_pattern(
    r"^\W*(?:no\b|nope\b|nah\b|don['’]?t\b|do not\b|not (?:that|this|now)\b|stop\b|wait\b|"
    r"never ?mind\b|cancel\b|leave it\b|let['’]?s not\b|i (?:don['’]?t|do not) want\b)|"
    r"\binstead\b|\bdon['’]?t (?:change|touch|fix|edit|modify|restart)\b",
    re.IGNORECASE,
)
"""A message that says no to what the assistant proposed ("no, …", "don't touch the model")."""


def _stops(c: Call) -> bool:
    """Whether the call only stops processes (``kill PID``, ``pkill -f x``, ``TaskStop``)."""
    if c.name.lower() in _STOP_TOOLS:
        return True
    command = c.args.get("command") or c.args.get("cmd")
    if isinstance(command, list):
        command = command[-1] if command else ""
    if not isinstance(command, str) or not command.strip():
        return False
    parts = [x for x in _PARTS_RE.split(command) if x.strip()]
    return bool(parts) and all(_STOP_RE.match(x) for x in parts)


def stops_only(s: Session, calls: list[Call], index: int, text: str) -> bool:
    """Whether the rejection of ``calls`` (the follow-up of the proposal ``text`` of entry
    ``index``) turned down only those calls (blind check 39, W2, rule a): each only stopped a
    process, the proposal says more than that (3 distinctive words or more), and the user's next
    message does not say no ("no, …", "instead", "don't touch …")."""
    if not calls or not all(_stops(c) for c in calls) or len(_words(text)) < _SHARED:
        return False
    later = next((r for r in s.requests if r.index > index), None)
    return later is None or _SAYS_NO_RE.search(later.text[:300]) is None


_ASKS_HOW_WORDS = 16  # a short message: "How do I paste them here?", "where do I put it?"
_SUPPLIED_WITHIN = 2  # the user's messages after it, one of which brings the material
_MEDIA_RE = lazy_pattern(r"^\[(?:image|audio|video)\]$", re.MULTILINE)  # what the user attached


def route_declined(s: Session, index: int, said_by_user: bool) -> bool:
    """Whether the user declined only the way a proposal (entry ``index``) went, not the proposal
    (blind check 72 W2: "I can adapt your 4 photos…", then ``git show …:images/x.jpg`` rejected
    without a word; the user asked "how do I paste them here?", supplied the photos, and the
    switch was made and committed): the rejection carries no words of the user's own
    (``said_by_user``), the user's next message is short, asks something and does not say no, one
    of the two after it brings the material (an image, audio or video attached), and successful
    file changes followed that."""
    if said_by_user:
        return False
    later = next((r for r in s.requests if r.index > index), None)
    if later is None or _SAYS_NO_RE.search(later.text[:300]) is not None:
        return False
    text = later.text.strip()
    if not text.endswith("?") or len(text.split()) > _ASKS_HOW_WORDS:
        return False
    after = [r for r in s.requests if r.index > later.index][:_SUPPLIED_WITHIN]
    supplied = next((r for r in after if _MEDIA_RE.search(r.text)), None)
    return supplied is not None and bool(_changes_after(s, supplied.index))


_CANCEL_RE = lazy_pattern(
    r"^\W*(?:(?:oh|ok(?:ay)?|hm+|actually|wait|no|sorry|ah)\b[\s,.!]*)*"
    r"(?:never\s*mind|nvm\b|forget (?:it|that|about it|this)\b|cancel (?:that|it|this)\b|"
    r"scratch that\b|skip (?:that|it|this)\b|don['’]?t (?:do|run|bother|apply|proceed|worry)\b|"
    r"do not (?:do|run|apply|proceed)\b|instead\b|(?:let['’]?s |please )?(?:move|switch|go) "
    r"(?:on |back |over )?to\b|leave it\b|no need\b)",
    re.IGNORECASE,
)
"""A message that cancels or redirects what the user just accepted ("nevermind, move to …")."""
_LOOKED = 2  # requests after the accepting one that may cancel it


def judge_cancelled(s: Session) -> None:
    """An acceptance ("yes" to "I'll run the updates") that one of the next user messages
    cancelled or redirected ("nevermind, move to use case 12 branch") before any change was made
    after it is no accepted decision: it is labelled "Accepted, then cancelled by the user"."""
    if not any(d[2].startswith(ACCEPTED) for d in s.decisions):
        return
    starts = [r.index for r in s.requests]
    changed = [c.index for c in _changes_after(s, -1)]  # in call order: sorted (once)
    for n, (i, score, text) in enumerate(s.decisions):
        if not text.startswith(ACCEPTED):
            continue
        at = bisect_right(starts, i)
        if at >= len(starts):
            continue
        first = bisect_right(changed, s.requests[at].index)  # the first change after the yes
        for later in s.requests[at + 1 : at + 1 + _LOOKED]:
            if first < len(changed) and changed[first] < later.index:
                break  # something was done after the acceptance: it is not cancelled
            if _CANCEL_RE.match(later.text):
                said = one_line(later.text)[:120]
                body = text.removeprefix(ACCEPTED)
                s.decisions[n] = (i, score, f"{_CANCELLED} («{said}»): {body}")
                break
