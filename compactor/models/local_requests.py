"""How the embedded summary lists the user's requests and messages (issue 28 point 6, blind
check 10): the current request quoted verbatim once, in section 1, and named by reference in the
sections after it; a message sent again (the same text, or an edited version right after an
interruption) listed once with ``(sent N times)``, at its last sending: the current request is
the latest message (blind check 13)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from compactor._util import lazy_pattern
from compactor.facts import cut, one_line, sentences
from compactor.facts.ide import ide_note_files, without_ide_note
from compactor.facts.pastedjson import without_json
from compactor.formats.harness_asks import HARNESS_SENT, harness_ask_tag

from .local_aside import aside_lines
from .local_decisions import asks_user
from .local_focus import ContextView
from .local_noise import Runs, collapse_resent, first_resent, request_ref
from .local_offers import is_ask
from .local_pasteonly import pasted_only_label
from .local_picked import picked_lines
from .local_queued import KEPT_QUEUED, QUEUED_NOTE
from .local_replies import reply_lines
from .local_resent import answered_earlier
from .local_session import Session
from .local_supersede import continues
from .local_template import template_quote
from .local_text import bullets, quote
from .local_turns import continued_request
from .local_views import head_tail, user_messages

__all__ = [
    "KEPT_ASKED",
    "KEPT_REQUEST",
    "aborted_turn_lines",
    "asked_before",
    "current_ref",
    "request_lines",
    "session_request_lines",
    "session_user_lines",
    "user_message_lines",
]

KEPT_REQUEST = "kept_request"
"""Key of :attr:`Session.earlier`: the latest request, when only the tail kept verbatim after
the summary holds it (set by :func:`compactor.models.local_tail.modelled_pair`)."""
KEPT_ASKED = "kept_asked"
"""Key of :attr:`Session.earlier`: the question or offer that request answers (``asked_before``)."""

_SINCE = "since the earlier summary, which states the initial request"
_FIRST = "since the earlier summary (the initial request is the one the earlier summary states)"
"""Not "…, which states the initial request: '…'", which read as if the quote were it."""


def request_lines(
    texts: Sequence[str],
    item: int,
    items: int,
    verbatim: int,
    prior: Sequence[str] = (),
    asked: str = "",
    again: str = "",
    memo: list[tuple[list[str], Runs]] | None = None,
) -> list[str]:
    """Section 1's lines for the requests ``texts`` (in order, at least one): the first, the
    later ones (each sent-again run once), the current one (the last) quoted up to ``verbatim``
    characters, once in the whole summary. ``prior``: the context's earlier summaries; with one
    (Claude Code's own compaction), so the first request here ("Keep going") is a continuation,
    not the initial request (blind check 12): that one is the earlier summary's. ``asked``: the
    assistant's question or offer a short current request answers (:func:`asked_before`).
    ``again``: an earlier sending of the current request was answered (``answered_earlier``):
    sendings apart are not merged, and the note follows the current request. ``memo``: the
    session's memo of the runs of sendings (:func:`~.local_noise.collapse_resent`)."""
    runs = collapse_resent(texts, True, bool(again), memo)  # latest stays last (13)
    continued = bool(prior)
    if (first := first_resent(texts)) != runs[0][0]:  # the first one was sent again
        runs.insert(0, (first, " (sent again later)"))  # it still opens the list
    if len(runs) == 1:
        note = f"the only one {_SINCE}" if continued else "the current request"
        return [f"   {'Current' if continued else 'Initial'} request: "
                f"{_current(runs[0][0], verbatim)}{runs[0][1]} ({note})"]  # fmt: skip
    first = _quote(runs[0][0], item * 2) + runs[0][1]
    lines = [f"   First request {_FIRST}: {first}" if continued else f"   Initial request: {first}"]
    later = ContextView(runs, 1, len(runs) - 1)  # runs[1:-1], not copied (285,000 in tiny)
    if later:
        lines.append("   Later requests, in order:")
        head, tail = items // 3, items - items // 3
        show = head_tail(later, head, tail, "requests", lambda r: _quote(r[0], item) + r[1])
        lines.append(bullets(show))
    current, label = runs[-1]
    label += again
    before = continued_request(texts[-40:])  # "2", "お願いします。"
    answers = f"it answers the assistant's {asked}" if asked else ""
    if before is not None:  # "yes" to "Would you like me to implement X, or Y?" (set 22)
        answers += f"{', and ' if answers else 'it '}continues the request before it, "
        answers += _quote(before, item)
    label += f" (a short reply: {answers})" if answers else ""
    lines.append(f"   Current request: {_current(current, verbatim)}{label}")
    return lines


def session_request_lines(s: Session, item: int, items: int, verbatim: int) -> list[str]:
    """:func:`request_lines` of the session's requests. When the tail kept after the summary
    holds a later request (:data:`KEPT_REQUEST`), that one is the current request, as sections
    7-9 (read from the whole session) say; the summarized part's last is named as its latest
    (blind check 22 N4: §1 "Current request: "Can I have this update dynamically?"" beside §8
    "The latest request was completed: "yes"")."""
    texts = [e.text for e in s.requests]
    if texts == (users := user_messages(s)):  # (most chats): one list in the memo, not two
        texts = users
    again = answered_earlier(s)  # (blind check 39 W4)
    lines = request_lines(texts, item, items, verbatim, s.prior, asked_before(s), again, s.resent)
    if texts and (tag := harness_ask_tag(texts[-1])) and lines[-1].startswith(_CURRENT):
        lines[-1] += f" ({HARNESS_SENT.format(tag=tag)})"  # (blind check 52 W2)
    if lines[-1].startswith(_CURRENT):  # a paste answering the request before it (52 N2)
        lines[-1] += pasted_only_label(texts, item)
    lines += picked_lines(s)  # "C+2": what C and 2 were (blind check 29 G1)
    lines += aborted_turn_lines(s, item)  # Codex's turn_aborted before a later request (F2)
    later = s.earlier.get(KEPT_REQUEST, "")
    if not later:
        if s.requests and s.requests[-1].queued and lines[-1].startswith(_CURRENT):
            lines[-1] += f" ({QUEUED_NOTE})"  # typed, never delivered (blind check 39)
        return lines + aside_lines(s, item) + reply_lines(s, item)  # (BENCH50 W4, 67 W2)
    last = lines[-1]
    if last.startswith(_CURRENT):
        last = "   Latest request in the part this summary covers: " + last[len(_CURRENT) :]
    lines[-1] = last.replace(" (the current request)", " (the latest in the part summarized)")
    asked = s.earlier.get(KEPT_ASKED, "")
    note = f"; a short reply: it answers the assistant's {asked}" if asked else ""
    where = QUEUED_NOTE if s.earlier.get(KEPT_QUEUED) else "in the messages kept after this summary"
    kept = f"{_quote(later, item * 2)} ({where}{note})"
    return [*lines, *aside_lines(s, item), *reply_lines(s, item), f"{_CURRENT}{kept}"]


_CURRENT = "   Current request: "
_HEAD = 500
"""Characters of a long or structured current request that section 1 quotes (start and end)."""
_LINES_LEAST = 4
"""A request of this many line breaks or more is an instruction list: its lines matter."""


def _current(text: str, verbatim: int) -> str:
    """The current request as section 1 quotes it: whole; or, when it is longer than
    ``verbatim`` (a pasted plan, which section 6 prints whole again) or a long instruction list
    of several lines (which a quote flattens, and section 6 then only points back to), its start
    and end, saying that the full text is the latest user message (section 6 shows it, with its
    line breaks; blind check 16). Not the pages of a command template, nor a message with an
    IDE note (quoted as before)."""
    if len(text) > 2 * _HEAD and (short := without_json(text)) is not None:
        return _quote(short, verbatim)  # the user's words, the JSON's head (blind check 64 N5)
    lines = text.strip().count("\n") + 1
    if len(text) <= 2 * _HEAD or (len(text) <= verbatim and lines <= _LINES_LEAST):
        return _quote(text, verbatim)
    if ide_note_files(text) or template_quote(text, verbatim) is not None:
        return _quote(text, verbatim)
    return (
        f"{quote(text, _HEAD)} ({len(text):,} characters, {lines} lines: its start and end "
        "here; the full text, with its line breaks, is the latest user message in section 6)"
    )


def user_message_lines(
    users: Sequence[str],
    head: int,
    tail: int,
    chars: int,
    apart: bool = False,
    memo: list[tuple[list[str], Runs]] | None = None,
) -> list[str]:
    """Section 6's messages, each sent-again run once with ``(sent N times)``, the first
    ``head`` and last ``tail`` of them (only those cut to ``chars``: a chat of 18,000 messages
    shows 30). The finalizer, which fills the block from the transcript, names the current
    request by reference. ``apart``: messages sent again after an answer are not merged.
    ``memo``: as for :func:`request_lines`."""
    runs = collapse_resent(users, apart=apart, memo=memo)
    return head_tail(runs, head, tail, "messages", lambda r: cut(_short(r[0], chars), chars) + r[1])


def _short(text: str, limit: int) -> str:
    """``text`` with its long pasted JSON shortened when it is over ``limit`` (64 N5)."""
    return (without_json(text) or text) if len(text) > limit else text


def session_user_lines(s: Session, head: int, tail: int, chars: int) -> list[str]:
    """:func:`user_message_lines` of the session's user messages; not merged across the answer
    to an earlier sending of the current request (blind check 39 W4)."""
    again = bool(answered_earlier(s))
    return user_message_lines(user_messages(s), head, tail, chars, again, s.resent)


def _quote(text: str, limit: int) -> str:
    """:func:`quote` of the user's words; the IDE note (``(with X open in the IDE)``) after
    the quote, not inside it (the user did not write it)."""
    text = _short(text, limit)  # the user's words, a pasted JSON's head (blind check 64 N5)
    notes = ide_note_files(text)
    if not notes:
        return template_quote(text, limit) or quote(text, limit)  # not pages of a template
    bare = without_ide_note(text)  # a template's words after it (blind check 49 W4)
    return f"{template_quote(bare, limit) or quote(bare, limit)} (with {notes[0]} open in the IDE)"


def current_ref(text: str, limit: int) -> str:
    """The current request as sections 7-9 name it: quoted when short, else by reference."""
    return request_ref(text, _quote(text, limit))


_ANSWER_WORDS = 6
_ANSWER_RE = lazy_pattern(
    r"^\W*(?:yes|yep|yeah|y|ok(?:ay)?|sure|please|go ahead|do it|go for it|sounds good|lgtm|"
    r"no|nope|nah|not now|both|neither|the (?:first|second|third|last|former|latter)|"
    r"option\s*\w+|\d{1,2}|[a-f])\b",
    re.IGNORECASE,
)
"""A short reply that answers a question or an offer (yes, no, a choice)."""
"""A current request of at most this many words may be an answer to the assistant's question."""
_ASKED = 300  # characters of the question quoted
_BACK = 400  # entries before the current request where the assistant's last text is looked for


def asked_before(s: Session) -> str:
    """``question "…"`` or ``offer "…"``: what the assistant's last text ended with, when the
    current request is a short reply to it ("yes" after "Would you like me to implement the
    fetchGit approach, or …?", "sure" after "If you want, I can also add …"); else "". A short
    question of the user's own ("why?") answers nothing."""
    last = s.last_request
    if last is None or len(s.requests) < 2:
        return ""
    typed = one_line(without_ide_note(last.text))
    if not typed or len(typed.split()) > _ANSWER_WORDS or typed.endswith(("?", "？")):
        return ""
    if _ANSWER_RE.match(typed) is None and not continues(typed):
        return ""  # "commit it first": a request of its own, not an answer
    before = s.requests[-2].index
    for e in reversed(s.entries[max(before + 1, last.index - _BACK) : last.index]):
        if e.role == "user" and e.text.strip() and not e.injected and not e.results:
            return ""  # another message of the user's came between
        if e.role == "assistant" and not e.internal and e.text.strip():
            said = sentences(e.text)
            last_said = said[-1].rstrip() if said else ""
            if asks_user(last_said):
                return f"question {quote(last_said, _ASKED)}"
            offers = is_ask(last_said) and not last_said.endswith(":")  # "If you want, I can …"
            return f"offer {quote(last_said, _ASKED)}" if offers else ""
    return ""


def aborted_turn_lines(s: Session, item: int) -> list[str]:
    """A line for each turn the user interrupted that a later request of the user's follows
    (blind check 35 F2: Codex 0.63 wrote a ``turn_aborted`` event and no ``<turn_aborted>``
    message, the user sent the same command again, and the summary said only "(sent 2
    times)"). The reader marks the message before the event (:attr:`Entry.aborted`); a
    ``<turn_aborted>`` notice is a message of its own. The last turn's interruption, with no
    request after it, is said where the work stands (:attr:`Session.interrupted`)."""
    marks = [
        e.index
        for e in s.entries
        if e.aborted or (e.injected and e.text.lstrip().startswith("<turn_aborted>"))
    ]
    lines: list[str] = []
    for at in marks:
        before = [r for r in s.requests if r.index <= at]
        after = next((r for r in s.requests if r.index > at), None)
        if not before or after is None:
            continue
        asked = before[-1]
        same = first_resent([asked.text, after.text]) == after.text  # the same, or edited
        then = "sent it again" if same else f"sent {_quote(after.text, item)}"
        line = (
            f"   The user interrupted the turn of {_quote(asked.text, item)} (the agent CLI's "
            f"turn_aborted notice, not a request), then {then}."
        )
        if line not in lines:
            lines.append(line)
    return lines
