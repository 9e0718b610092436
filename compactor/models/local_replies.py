"""A short reply to the assistant's own question or instruction is no new request (blind check
67 W2: after "Let me know when you've added it!" (the SSH key, to GitHub) the user typed
"done", and after the assistant's set-up steps with ``ssh-keygen -C "your-email@example.com"``
the user typed their e-mail address; the summary's current request was "done", and section 9
said to "continue the latest request: "done"", while the request being worked on was the one
before, "push from claude code to github").

Such a reply is the user's answer in the work of the request it serves (the last substantive
one): it is taken out of the requests, and section 1 shows it as the user's answer to the
assistant's question (section 6 keeps it among the messages). Conservative: a short reply after
an assistant's answer that neither asks the user something nor tells them to do something is
still a request; a "yes" to an offer ("Would you like me to …?") is one too (it approves new
work: ``local_requests.asked_before`` says what it answers).
"""

from __future__ import annotations

import re

from compactor._util import lazy_pattern
from compactor.facts import Entry, clean, lowers_exactly, one_line, sentence_spans
from compactor.facts.ide import without_ide_note

from .local_session import Session
from .local_text import quote

__all__ = ["judge_replies", "reply_lines"]

_WORDS_MOST = 6
_CHARS_MOST = 80
_ASKED = 200  # characters of the assistant's sentence quoted
_BACK = 400  # entries before the reply where the assistant's last text is looked for
_HEAD = 400  # characters of a request that tell it is longer than a reply once on one line

_DONE_RE = lazy_pattern(
    r"^(?=.*\w)\W*(?:(?:ok(?:ay)?|yes|yep|yeah|sure|great|thanks?|alright|all)\b\W*)*"
    r"(?:(?:i(?:'ve| have)?\s+|it'?s\s+|it is\s+)?(?:done|added|did it|finished|completed|"
    r"created|pasted|installed|updated|set(?: it)? up)\b)?"
    r"(?:\W*(?:it|that|this|them|the key|now|already|too|as well)\b)*\W*$",
    re.IGNORECASE,
)
"""A confirmation that the user did what they were told, and nothing more: "done", "ok added",
"I've added it" (not "done, now deploy it": a request)."""
_TOLD_RE = lazy_pattern(
    r"\b(?:let me know|tell me|ping me|reply|confirm)\b[^.!?]{0,40}\b(?:when|once|after|if)\b|"
    r"^(?:once|when|after) you(?:'ve| have| are|'re)?\b[^.!?]{0,80}\b(?:let me know|tell me)\b",
    re.IGNORECASE,
)
"""The assistant tells the user to do something and report back: "Let me know when you've
added it!", "Once you've pasted it, let me know"."""
_VALUE_ASK_RE = lazy_pattern(
    r"^(?:what|where|who)\b(?![^?]*\b(?:me to|should I|shall I|would you like|do you "
    r"want|prefer)\b)[^?]*\?\s*$",
    re.IGNORECASE,
)
"""A question for a value of the user's: "What comment should the key have?" (not a choice:
"Which one?" is answered by a reply that continues the request, ``local_turns``)."""
_EMAIL_RE = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_NAMES_EMAIL_RE = lazy_pattern(r"\be-?mail\b", re.IGNORECASE)


_TOLD_WORDS = ("let me know", "tell me", "ping me", "reply", "confirm")
"""What every match of :data:`_TOLD_RE` holds (lower-cased)."""


def _asked(text: str, reply: str) -> str:
    """The sentence of the assistant's text ``text`` that ``reply`` answers, else ""."""
    cleaned = clean(text)  # (what sentences() splits: its sentences are pieces of this)
    done = _DONE_RE.match(reply) is not None
    if not _EMAIL_RE.match(reply) and not _may_ask(cleaned, done):
        return ""  # no sentence can tell or ask it: not split (a chat of tiny messages: 10 %)
    said = [x.strip() for _, x in sentence_spans(cleaned) if x.strip()]
    last = said[-1].strip() if said else ""
    if done and _TOLD_RE.search(last):
        return last
    if not done and _VALUE_ASK_RE.match(last):
        return last
    if _EMAIL_RE.match(reply) and _NAMES_EMAIL_RE.search(text):  # its placeholder's value
        return next((s.strip() for s in reversed(said) if _NAMES_EMAIL_RE.search(s)), last)
    return ""


def _may_ask(cleaned: str, done: bool) -> bool:
    """Whether a sentence of ``cleaned`` may be what a reply answers: after a confirmation
    (``done``) one that holds a word of :data:`_TOLD_RE`'s, else a question (``?``)."""
    if not done:
        return "?" in cleaned  # what _VALUE_ASK_RE's last sentence ends with
    if not lowers_exactly(cleaned):
        return True  # lower-casing is not what the pattern compares: no shortcut
    low = cleaned.lower()
    return any(word in low for word in _TOLD_WORDS)


def _answered(s: Session, request: Entry, before: int, memo: dict[tuple[str, str], str]) -> str:
    """What the assistant asked that ``request`` (short) replies to, else "": its last text
    after the request at ``before``, with no other message of the user's between."""
    text = request.text
    if len(text) > _HEAD and "\x1b" not in text[:_HEAD] and "open in the IDE)" not in text:
        if len(one_line(text[:_HEAD])) > _CHARS_MOST:  # (perf68: a long request, not read whole)
            return ""  # what one_line makes of its head starts what it makes of it: too long
    typed = one_line(without_ide_note(text))
    if not typed or len(typed.split()) > _WORDS_MOST or len(typed) > _CHARS_MOST:
        return ""
    if typed.endswith(("?", "？")):
        return ""  # a question of the user's own asks for its own answer
    for e in reversed(s.entries[max(before + 1, request.index - _BACK) : request.index]):
        if e.role == "user" and e.text.strip() and not e.injected and not e.results:
            return ""  # another message of the user's came between
        if e.role == "assistant" and not e.internal and e.text.strip():
            return _asked_once(e.text, typed, memo)
    return ""


_MEMO_TEXT, _MEMO_MOST = 200, 4096
"""An assistant text this short is judged once a run with each reply (in so many pairs): a
chat of tiny messages repeats both ("Edited app.py." / "ok")."""


def _asked_once(text: str, typed: str, memo: dict[tuple[str, str], str]) -> str:
    """:func:`_asked`, a short text's once per reply (``memo``)."""
    if len(text) > _MEMO_TEXT:
        return _asked(text, typed)
    if (found := memo.get((text, typed))) is None:
        found = _asked(text, typed)
        if len(memo) < _MEMO_MOST:
            memo[text, typed] = found
    return found


def judge_replies(s: Session) -> None:
    """Take the short replies to the assistant's own question or instruction out of the
    requests (:attr:`Session.replies`); the first request is never one."""
    kept: list[Entry] = s.requests[:1]
    memo: dict[tuple[str, str], str] = {}
    for r in s.requests[1:]:
        asked = _answered(s, r, kept[-1].index, memo)
        if asked:
            s.replies.append((r, asked))
        else:
            kept.append(r)
    if len(kept) == len(s.requests):
        return
    s.requests = kept
    last = kept[-1]
    if s.reply is not None and s.reply.index < last.index:
        s.reply = None
    s.request_started = s.request_started or any(
        e.role == "assistant" for e in s.entries[last.index + 1 :]
    )


def reply_lines(s: Session, item: int) -> list[str]:
    """Section 1's line for each reply: the user's answer to the assistant's question, in the
    work of the request it serves."""
    lines: list[str] = []
    for r, asked in s.replies:
        to = next((q for q in reversed(s.requests) if q.index < r.index), None)
        which = "the current request" if to is s.requests[-1] else "the request in progress"
        if to is not None and to is not s.requests[-1]:
            which = f"the earlier request {quote(to.text, item // 2)}"
        lines.append(
            f"   In the work on {which}, the user answered the assistant's {quote(asked, _ASKED)} "
            f"with {quote(r.text, item)} (a reply to the assistant, not a new request)"
        )
    return lines
