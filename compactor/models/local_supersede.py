"""Superseded state in the local summary (issue 28, blind check 10, helper state9): text that
was true once and that later messages overtook, judged by shape.

* a quoted earlier answer whose "next" marks (``← NEXT``, ``Next:``, unchecked boxes) later
  requests or answers moved on from is labelled so (:func:`judge_stale_next`);
* a cause or result the assistant stated ("runs on X instead of Y", "Y doesn't work") that a
  later sentence of the assistant shows no longer holds ("Model: Y ✅", "Y now works") is
  labelled superseded (:func:`judge_overtaken_causes`);
* questions and meta fragments are never decisions accepted by the user, and the assistant's
  own conditional plans ("If it still fails, I'll …") are not proposals the user turned down
  (:func:`judge_accepted`);
* a failed slash command (``/name args`` followed by the CLI's ``Unknown command: /name``) is
  the user's last input, not done (:func:`judge_refused_command`);
* a short reply continues the request before it only when it is a continuation word
  ("retry", "go on", "still failing"), never when it is a new question (:func:`continues`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import replace

from compactor._util import lazy_pattern
from compactor.facts import Entry, one_line, sentences

from .local_guesses import judge_replaced_guesses, judge_revised_causes
from .local_session import Session
from .local_superseded import judge_superseded_results

__all__ = [
    "continues",
    "judge_accepted",
    "judge_overtaken_causes",
    "judge_refused_command",
    "judge_stale_next",
    "stale_next",
]

_NEXT_RE = lazy_pattern(r"←\s*NEXT\b|<-+\s*NEXT\b|\bNext:|^\s*(?:[-*+]|\d{1,2}[.)])?\s*\[ \]", re.M)
"""A plan's "next" mark in an answer: an arrow, a ``Next:`` line, an unchecked box."""
_SAYS_NEXT_RE = lazy_pattern(r"\bnext\b|\bready for\b|\bup next\b", re.IGNORECASE)


def _short(text: str, limit: int) -> str:
    flat = one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _quoted(text: str, limit: int = 160) -> str:
    return "'" + _short(text, limit).replace("'", "’") + "'"


def judge_stale_next(s: Session) -> None:
    """An earlier answer the summary quotes (:attr:`Session.deliverable` before the latest
    request) that marks what comes next (``← NEXT``, ``Next:``, ``[ ]``) is stale in that: later
    requests followed it. Its note says so (:func:`stale_next`)."""
    d, last = s.deliverable, s.last_request
    if d is None or last is None or d.index > last.index or s.deliverable_note:
        return
    s.deliverable_note = stale_next(s, d)


def stale_next(s: Session, d: Entry) -> str:
    """The note of an earlier answer ``d`` whose "next" marks later requests moved on from, with
    the user's next words and what the latest answer says comes next, so that its old "next" is
    not read as current; '' when it marks none or no request followed it."""
    if "NEXT" not in d.text and "Next" not in d.text and "[ ]" not in d.text:
        return ""  # str pre-checks: most answers mark nothing
    if _NEXT_RE.search(d.text) is None:
        return ""
    after = next((r for r in s.requests if r.index > d.index), None)
    if after is None:
        return ""
    note = (
        f"superseded: its 'next' marks are not current, the user then wrote {_quoted(after.text)}"
    )
    latest = s.last_text
    if latest is not None and latest.index > after.index:
        says = [x for x in sentences(latest.text[-2_000:]) if _SAYS_NEXT_RE.search(x)]
        if says:
            note += f", and the latest answer says {_quoted(says[-1])}"
    return note


_INSTEAD_RE = lazy_pattern(
    r"\binstead of (?:using |the |a |an )?[`*\"']?([\w][\w.\-]{2,})", re.IGNORECASE
)
_NOT_WORK_RE = lazy_pattern(
    r"[`*\"']?([\w][\w.\-]{2,})[`*\"']? (?:does(?:n['’]t| not)|did(?:n['’]t| not)|is not|isn['’]t) "
    r"work", re.IGNORECASE
)  # fmt: skip
_HOLDS_RE = lazy_pattern(
    r"✅|\b(?:works|worked|working|now (?:being )?used|now uses?|now runs?|correctly|"
    r"succeeded|confirmed|is now)\b",
    re.IGNORECASE,
)
_NEGATED_RE = lazy_pattern(
    r"\b(?:not|no|never|instead|rather than|still|without|should|will|would|may|might|could|"
    r"expect\w*|hopefully|if)\b|n['’]t\b|❌",
    re.IGNORECASE,
)
_CAUSES_MOST = 20


def judge_overtaken_causes(s: Session) -> None:
    """:func:`_judge_overtaken`, then a guess a later "that's what was tripping up every
    previous attempt" replaced (:func:`judge_replaced_guesses`, blind check 25)."""
    _judge_overtaken(s)
    judge_replaced_guesses(s)
    judge_revised_causes(s)  # a cause the user's "that didn't correct it" overturned (set 31)
    judge_superseded_results(s)  # "added 10s timeout", later 45 s (blind check 33, N1)


def _judge_overtaken(s: Session) -> None:
    """A decision sentence that says Y is not what happened ("runs on the parent model instead
    of haiku", "fork didn't work") is superseded when a later assistant sentence names Y with a
    sign that it now holds ("Model: haiku ✅", "haiku is now being used") and no negation: it is
    labelled so, with those words (only the newest few such sentences are looked at)."""
    wanted: list[tuple[int, int, str]] = []  # (position in decisions, index, word)
    for n in range(len(s.decisions) - 1, -1, -1):
        text = s.decisions[n][2]
        if "instead of" not in text and "work" not in text:
            continue
        m = _INSTEAD_RE.search(text) or _NOT_WORK_RE.search(text)
        if m is not None:
            wanted.append((n, s.decisions[n][0], m.group(1).lower().rstrip(".")))
        if len(wanted) >= _CAUSES_MOST:
            break
    if not wanted:
        return
    first = min(i for _, i, _ in wanted)
    found: dict[int, str] = {}
    for e in s.entries[first + 1 :]:
        if e.role != "assistant" or e.internal or not e.text.strip():
            continue
        lowered = e.text.lower()
        for n, index, word in wanted:
            if n in found or e.index <= index or lowered.find(word) < 0:
                continue
            for x in sentences(e.text):
                if (
                    word in x.lower() and len(x) <= 400 and not x.lstrip().startswith("|")
                    and _HOLDS_RE.search(x) and not _NEGATED_RE.search(x)
                ):  # fmt: skip
                    found[n] = x
                    break
    for n, said in found.items():
        i, score, text = s.decisions[n]
        label = f"Superseded: {_short(text, 100)} (later: {_quoted(said, 48)})"
        s.decisions[n] = (i, score, label)


_ACCEPTED = "Accepted by the user: "
_FRAGMENT_RE = lazy_pattern(
    r"^\W*(?:this|that|it|here)(?: is|['’]s) (?:a |an |the |very |really |one )*"
    r"(?:\w+ ){0,3}(?:decision|point|question|issue|step|change|idea|thing|part)\W*$",
    re.IGNORECASE,
)
"""A sentence that only comments ("This is a critical design decision."): decides nothing."""
_YES_BUT_RE = lazy_pattern(
    r"^\W*(?:ok(?:ay)?|yes|yeah|yep|sure|right|fine|alright)\W+(?:but|though|however)\b",
    re.IGNORECASE,
)
_CONDITIONAL_RE = lazy_pattern(r"^\W*(?:if|when|once|unless|in case)\b", re.IGNORECASE)
_AMENDS_RE = lazy_pattern(
    r"\b(?:we|i)(?:['’]re| are|['’]m| am|['’]ll| will) not (?:be )?(?:putting|adding|including|"
    r"using|doing|keeping|going to|put|add|include|use|do|keep)\b|\bnot (?:putting|adding|"
    r"including|using|keeping)\b|\b(?:don['’]?t|do not|won['’]?t|will not|shouldn['’]?t) (?:put|"
    r"add|include|use|keep|need)\b|\bwithout\b|\bbut not\b|\binstead\b|\brather than\b|"
    r"\bleave (?:out|off)\b|(?:^|[,;:–—]\s*|\band\s+|\bbut\s+)no (?!problem|worries|thanks)\w",
    re.IGNORECASE,
)
"""A reply that negates or amends part of the proposal ("we're not putting X in there", "no X",
"without X", "but not X", "instead"): the user's words are the decision (BENCH41 W10)."""
_OPTIONS_LINE_RE = lazy_pattern(
    r"(?:^|[\s:;,])\(?a\)\s*\S.*[\s;,]\(?b\)\s*\S|(?:^|[\s:;,])\(1\)\s*\S.*[\s;,]\(2\)\s*\S",
    re.I | re.S,
)
"""A sentence listing the options (``Options: (a) …; (b) …``): never accepted whole."""
_AMENDED = "Decided by the user, amending the proposal: "
_AMEND_SENTENCES, _AMEND_CHARS = 3, 300


def _amendment(reply: str) -> str:
    """The user's own words when ``reply`` negates or amends part of a proposal (its sentences
    up to the first that does, at most :data:`_AMEND_SENTENCES`); "" when it does not."""
    said = sentences(reply[:4_000])
    for n, sentence in enumerate(said[:8]):
        if _AMENDS_RE.search(sentence):
            words = " ".join(one_line(x) for x in said[max(0, n + 1 - _AMEND_SENTENCES) : n + 1])
            return f'"{words[:_AMEND_CHARS]}{"…" if len(words) > _AMEND_CHARS else ""}"'
    return ""


def judge_accepted(s: Session) -> None:
    """Questions ("Should I update the plan now?") and comment fragments ("This is a critical
    design decision.") are not decisions, not even when the user's next message said yes, and a
    proposal whose next user message objects ("Ok but this is redundant") is not accepted; the
    assistant's conditional plans ("If it still fails, I'll …") are not proposals the user
    turned down."""
    kept: list[tuple[int, int, str]] = []
    starts = [r.index for r in s.requests]
    for i, score, text in s.decisions:
        body = text.removeprefix(_ACCEPTED)
        if _FRAGMENT_RE.match(body):
            continue
        if text.startswith(_ACCEPTED):
            if body.rstrip().endswith(("?", "？")):
                continue  # the user's yes agreed to ask, not to a decision
            at = bisect_right(starts, i)
            if at < len(starts) and _YES_BUT_RE.match(s.requests[at].text):
                continue  # "Ok but this is redundant": an objection, not an agreement
            if at < len(starts) and (words := _amendment(s.requests[at].text)):
                if (i, score, _AMENDED + words) not in kept:  # (BENCH41 W10)
                    kept.append((i, score, _AMENDED + words))
                continue  # the user's words decide, not the proposal
            if _OPTIONS_LINE_RE.search(body):
                continue  # the options listed, not the one the user took
        kept.append((i, score, text))
    s.decisions = kept
    s.rejected = [x for x in s.rejected if not _CONDITIONAL_RE.match(x)]


_UNKNOWN = "Unknown command"
_UNKNOWN_RE = lazy_pattern(r"Unknown command:\s*(/[\w:.\-]+)")
_ARGS_RE = lazy_pattern(r"Args from unknown (?:skill|command):\s*(.+)")
_REFUSED = " — the CLI did not know the command; the request is not done"


def judge_refused_command(s: Session) -> None:
    """The user's last input is a slash command the CLI refused: either the latest request is
    ``/name args`` (``<command-name>`` markup) followed by ``Unknown command: /name``, or only
    the CLI's own notices after the last request record it (``Unknown command: /name``, ``Args
    from unknown skill: …``). It is the last request, said to be not done, and the turn before
    it no longer counts as the end."""
    last = s.last_request
    if last is not None and last.text.startswith("/"):
        name = last.text.split()[0]
        for e in s.entries[last.index + 1 : last.index + 6]:
            at = e.text.find(_UNKNOWN)
            if at >= 0 and name in e.text[at : at + 200]:
                s.requests[-1] = replace(last, text=last.text + _REFUSED)
                return
    after = last.index if last is not None else -1
    tail = [e for e in s.entries[-6:] if e.index > after and e.role == "user" and e.injected]
    notice = next((e for e in tail if _UNKNOWN in e.text), None)
    found = _UNKNOWN_RE.search(notice.text) if notice is not None else None
    if notice is None or found is None:
        return
    said = " ".join(x.text for x in tail if x.index >= notice.index)
    args = _ARGS_RE.search(said)
    text = found.group(1) + (f" {one_line(args.group(1))}" if args else "") + _REFUSED
    s.requests.append(replace(notice, text=text, injected=False))
    s.turn_ended, s.request_started, s.reply = False, False, None
    s.question = s.announced = ""


_CONTINUES_RE = lazy_pattern(
    r"^\W*(?:re-?try|try again|again|fail(?:s|ed|ing)?|continue|go on|go ahead|carry on|"
    r"keep going|proceed|resume|yes|yep|yeah|ok(?:ay)?|sure|do it|next|still\b.*|"
    r"(?:it )?(?:still )?(?:doesn['’]t|does not|didn['’]t) work|same (?:error|problem|issue)|"
    r"继续|重试|再试|还是\S*|失败\S*|好的?|可以|是的?|"
    r"(?:(?:それで|では|じゃあ)?お願い(?:します|いたします)?|はい|進めて(?:ください)?|"
    r"続けて(?:ください)?)|[0-9０-９]{1,2})\W*$",
    re.IGNORECASE,
)
_QUESTION_START_RE = lazy_pattern(
    r"^\W*(?:how|what|why|when|where|which|who|is|are|can|could|does|do|should|would|will|"
    r"如何|怎么|怎样|为什么|是否|什么|哪)",
    re.IGNORECASE,
)


def continues(text: str) -> bool:
    """Whether a short reply continues the request before it ("retry", "fail", "go on", "still
    failing", "继续", "お願いします", "2": an option the assistant offered): a question ("…?",
    "how …", "如何 …") or a message naming a new subject is a request of its own."""
    flat = one_line(text)
    if flat.endswith(("?", "？")) or _QUESTION_START_RE.match(flat):
        return False
    return _CONTINUES_RE.match(flat) is not None
